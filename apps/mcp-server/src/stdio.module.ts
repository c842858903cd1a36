import { Module, type DynamicModule } from '@nestjs/common';
import { CoreModule, type AppOptions } from './core.module.js';

/** The stdio transport: no HTTP listener, only the shared core (C-MCP-8). */
@Module({})
export class StdioAppModule {
  static forRoot(options: AppOptions): DynamicModule {
    return { module: StdioAppModule, imports: [CoreModule.forRoot(options)] };
  }
}

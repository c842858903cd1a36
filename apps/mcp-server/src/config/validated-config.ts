import type { DynamicModule } from '@nestjs/common';

/**
 * The `@nestjs/config` module holding the server's already-validated configuration under `namespace`
 * (`registerAs(namespace)`, injected by `getConfigToken(namespace)` or read with `ConfigService.get(namespace)`).
 * It reads no `.env` file and no `process.env`: argv and env were validated before Nest started.
 */
export async function validatedConfigModule(namespace: string, config: object): Promise<DynamicModule> {
  // Imported here, not at the top: main.ts answers --help and flag errors before anything of Nest loads.
  const { ConfigModule, registerAs } = await import('@nestjs/config');
  return ConfigModule.forRoot({
    isGlobal: true,
    ignoreEnvFile: true,
    validatePredefined: false,
    skipProcessEnv: true,
    load: [registerAs(namespace, () => config)],
  });
}

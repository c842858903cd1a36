import type { AddressInfo } from 'node:net';
import type { CallHandler, CanActivate, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import type { ServerConfig } from '../src/config/server-config.js';
import { BoundaryGuard } from '../src/http/boundary/boundary.guard.js';
import { HttpAppModule } from '../src/http.module.js';
import { configureHttpApp, createHttpAdapter } from '../src/http-server.js';
import { SESSION_SERVICE } from '../src/tokens.js';
import { memoryLogger, StrictSessionService, testConfig } from './fakes.js';

/** A handler the router matched and Nest entered (after every guard), with what the request carried. */
export interface HandlerEntry {
  readonly handler: string;
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
}

/** Records every handler entry: runs after the guards, so an entry means the request got through them. */
export class HandlerEntries implements NestInterceptor {
  readonly entries: HandlerEntry[] = [];

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    this.entries.push({
      handler: `${context.getClass().name}.${context.getHandler().name}`,
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization,
    });
    return next.handle();
  }
}

export interface HttpAppOptions {
  readonly config?: ServerConfig;
  /** Listen on 127.0.0.1:0 (raw-socket tests) instead of only `inject()`. */
  readonly listen?: boolean;
  /** Replaces the boundary guard (to prove a test detects a missing boundary). */
  readonly guard?: CanActivate;
}

export interface HttpApp {
  readonly app: NestFastifyApplication;
  readonly sessions: StrictSessionService;
  readonly entries: HandlerEntries;
  /** The listening port (with `listen`). */
  readonly port: number;
  readonly logs: ReturnType<typeof memoryLogger>;
}

/** The real HTTP app module over a strict session fake, configured as the binary configures it. */
export async function startHttpApp(options: HttpAppOptions = {}): Promise<HttpApp> {
  const config = options.config ?? testConfig();
  const sessions = new StrictSessionService().onShutdown(async () => undefined);
  const logs = memoryLogger();
  let builder = Test.createTestingModule({ imports: [HttpAppModule.forRoot({ config, logger: logs.logger })] })
    .overrideProvider(SESSION_SERVICE)
    .useValue(sessions);
  if (options.guard) builder = builder.overrideProvider(BoundaryGuard).useValue(options.guard);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(), { logger: false });
  configureHttpApp(app, logs.logger);
  const entries = new HandlerEntries();
  app.useGlobalInterceptors(entries);
  let port = 0;
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  } else {
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  }
  return { app, sessions, entries, port, logs };
}

/** `testConfig()` with a bearer token required. */
export function authConfig(token: string): ServerConfig {
  const config = testConfig();
  return { ...config, http: { ...config.http, authToken: token } };
}

import { rm } from 'node:fs/promises';
import { NestFactory } from '@nestjs/core';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { PinoLoggerService } from '@cli-mcp/common';
import type { AppOptions } from './core.module.js';
import { ShutdownCoordinator } from './lifecycle/shutdown-coordinator.js';
import { onShutdownSignals } from './lifecycle/signals.js';
import { McpSurface } from './mcp/mcp-surface.js';
import { ModernServerFactory } from './mcp/modern-server.factory.js';
import type { SessionService } from './sessions/session-service.port.js';
import { StdioAppModule } from './stdio.module.js';
import { SESSION_SERVICE } from './tokens.js';

/**
 * Serves one MCP client on stdin/stdout (C-MCP-8): nothing but protocol on stdout, logs on stderr. The process
 * serves one session (C-MCP-7); when the client goes away (stdin EOF) or on SIGTERM/SIGINT, running commands
 * are cancelled (EOF: nobody is left to read results) or drained (signal), the session's sandbox is stopped —
 * its workspace kept for the next launch with the same `--session-id`, deleted when the id was generated — and
 * the process exits 0.
 */
export async function runStdioServer(options: AppOptions): Promise<void> {
  const { config, logger } = options;
  const app = await NestFactory.createApplicationContext(StdioAppModule.forRoot(options), {
    logger: new PinoLoggerService(logger.child({ component: 'nest' })),
  });
  const factory = app.get(ModernServerFactory);
  const surface = app.get(McpSurface);
  const coordinator = app.get(ShutdownCoordinator);
  const sessions = app.get<SessionService>(SESSION_SERVICE);
  const sessionId = config.stdioSessionId;
  // Both eras (C-MCP-12): the SDK's serveStdio decides the connection's era from its opening exchange and pins one
  // server from the factory; the opening starts the sandbox (C-MCP-13).
  const server = serveStdio(({ era }) => {
    surface.noticeProtocolRequest(sessionId, era === 'legacy' ? 'initialize' : 'server/discover');
    return factory.create(sessionId, era);
  }, { onerror: (error) => logger.debug({ err: error.message }, 'mcp stdio error') });
  logger.info({ transport: 'stdio', session_id: sessionId, version: config.version }, 'serving on stdio');

  let stopping: Promise<void> | undefined;
  const stop = (reason: string, graceMs: number): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason, grace_ms: graceMs }, 'shutting down');
      const { cancelled } = await coordinator.drain(graceMs);
      await server.close();
      // A given --session-id comes back with the next launch and finds its files (issue 22); a generated one can
      // never be addressed again, so its sandbox goes with this process.
      const ending = config.local.stdioSessionGenerated;
      if (ending) {
        try {
          await sessions.end(sessionId, AbortSignal.timeout(30_000));
        } catch (error) {
          logger.warn({ session_id: sessionId, error: error instanceof Error ? error.message : String(error) }, 'could not end the session');
        }
      }
      await app.close();
      // The per-session sandbox directory is empty once the session ended and the backend shut down (config: sandboxDir).
      if (ending) await rm(config.local.sandboxDir, { recursive: true, force: true }).catch(() => undefined);
      logger.info({ cancelled }, 'shutdown complete');
    })();
    return stopping;
  };

  process.stdin.once('end', () => {
    stop('stdin closed', 0).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
  onShutdownSignals(logger, { first: (signal) => stop(signal, config.shutdownGraceMs), again: () => coordinator.cancelNow() });
}

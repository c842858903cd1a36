import type { Server } from 'node:http';
import type { AgentConfig } from './config/agent-config.js';
import type { ExecService } from './exec/exec-service.js';
import type { AgentLog } from './logging/agent-logger.js';
import { onParentExit } from './parent-watch.js';
import { settlesWithin } from './shell/process/command-stopper.js';
import type { ShellEngine } from './shell/shell-engine.js';

interface LifecycleParts {
  config: AgentConfig;
  engine: ShellEngine;
  exec: ExecService;
  log: AgentLog;
}

const HTTP_CLOSE_CAP_MS = 5_000;

/**
 * Process lifecycle (C-AG-10). SIGTERM/SIGINT: stop accepting connections, let the running (and queued) commands
 * finish for up to the max timeout, cancel what is left, kill the shell's process group, exit 0. A second signal
 * exits at once. With SANDBOX_EXIT_WITH_PARENT (watch started in main), a dead parent ends the agent the same hard
 * way, so local-backend agents never outlive the server. On any exit the shell group is killed.
 */
export function installLifecycle(parts: LifecycleParts): { attach(server: Server): void; readonly stopping: boolean } {
  const { config, engine, exec, log } = parts;
  let server: Server | undefined;
  let stopping = false;

  const hardExit = (): never => {
    exec.cancelAll();
    engine.shutdown();
    process.exit(0);
  };

  const graceful = async (signal: string): Promise<void> => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      hardExit();
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    // No new connections; idle keep-alive ones close now, busy ones after their answer (sent with `connection: close`).
    const closing = server ? new Promise<void>((resolve) => server?.close(() => resolve())) : Promise.resolve();
    server?.closeIdleConnections();
    if (!(await settlesWithin(exec.idle(), config.maxTimeoutSeconds * 1000))) {
      log.warn('commands still running at the shutdown deadline: cancelling');
      exec.cancelAll();
      await exec.idle();
    }
    server?.closeIdleConnections();
    await settlesWithin(closing, HTTP_CLOSE_CAP_MS);
    engine.shutdown();
    log.info('shutdown complete');
    process.exit(0);
  };

  process.on('SIGTERM', () => void graceful('SIGTERM'));
  process.on('SIGINT', () => void graceful('SIGINT'));
  process.on('exit', () => engine.shutdown());

  onParentExit(() => {
    log.warn('parent process exited: exiting');
    hardExit();
  });

  return {
    attach(httpServer) {
      server = httpServer;
    },
    get stopping() {
      return stopping;
    },
  };
}

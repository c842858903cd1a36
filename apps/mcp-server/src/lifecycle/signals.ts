import type { Logger } from 'pino';

export interface ShutdownHandlers {
  /** Runs once, on the first SIGTERM/SIGINT; the process exits 0 after it (1 if it throws). */
  first(signal: NodeJS.Signals): Promise<void>;
  /** A further signal while shutting down: skip the rest of the grace. */
  again(): void;
}

/** SIGTERM/SIGINT handling (C-HTTP-4, Go §7.3). */
export function onShutdownSignals(logger: Logger, handlers: ShutdownHandlers): void {
  let started = false;
  const handle = (signal: NodeJS.Signals): void => {
    if (started) {
      logger.warn({ signal }, 'second signal: cancelling running commands now');
      handlers.again();
      return;
    }
    started = true;
    handlers.first(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

import type { Logger } from 'pino';

/**
 * Node's process warnings (deprecations from bundled third-party code, e.g. `url.parse` in the Kubernetes
 * client's node-fetch on Node 24) go through the logger as JSON lines instead of Node's plain-text printer, so
 * stderr stays one JSON object per line (issue 22 item 7). Node's own printer is the `warning` listener it adds at
 * start-up unless `--no-warnings` was given; that choice is respected (no listener there: none is added here).
 */
export function routeProcessWarnings(logger: Pick<Logger, 'warn'>, proc: NodeJS.EventEmitter = process): void {
  if (proc.listenerCount('warning') === 0) return;
  proc.removeAllListeners('warning');
  proc.on('warning', (warning: Error & { code?: string }) => {
    logger.warn({ warning: { name: warning.name, code: warning.code, message: warning.message } }, 'node warning');
  });
}

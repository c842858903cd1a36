import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';

export type ProgressToken = string | number;
export type SendProgress = (notification: ProgressNotification) => Promise<void>;

/**
 * Sends `notifications/progress` every `intervalMs` while a command runs (C-MCP-10), so clients that reset their
 * timeout on progress keep waiting. `progress` is the elapsed time in seconds (strictly increasing, as the spec
 * requires); there is no `total`. Returns the function that stops it. Send failures are ignored: the response
 * stream may already be gone, and the command's own result decides the call.
 */
export function startProgress(
  token: ProgressToken | undefined,
  intervalMs: number,
  send: SendProgress,
  now: () => number = Date.now,
): () => void {
  if (token === undefined) return () => undefined;
  const started = now();
  let last = 0;
  const timer = setInterval(() => {
    const elapsedMs = now() - started;
    const progress = Math.floor(elapsedMs / 100) / 10;
    if (progress <= last) return;
    last = progress;
    send({
      method: 'notifications/progress',
      params: { progressToken: token, progress, message: `running for ${Math.round(elapsedMs / 1000)} s` },
    }).catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

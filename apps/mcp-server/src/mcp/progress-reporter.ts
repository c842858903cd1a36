import type { OutputResponse } from '@cli-mcp/agent-client';
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';

export type ProgressToken = string | number;
export type SendProgress = (notification: ProgressNotification) => Promise<void>;
/** The running command's latest output, or undefined when it cannot be had (never throws). */
export type PeekOutput = () => Promise<OutputResponse | undefined>;

/** Longest output line quoted in a progress message. */
const MAX_LINE_CHARS = 160;

/**
 * Sends `notifications/progress` every `intervalMs` while a command runs (C-MCP-10), so clients that reset their
 * timeout on progress keep waiting. `progress` is the elapsed time in seconds (strictly increasing, as the spec
 * requires); there is no `total`. With `peek`, the message also quotes the last line the command printed on each
 * stream ("recent output lines when available"); a slow or failed peek only drops that part. Returns the function
 * that stops it. Send failures are ignored: the response stream may already be gone, and the command's own result
 * decides the call.
 */
export function startProgress(
  token: ProgressToken | undefined,
  intervalMs: number,
  send: SendProgress,
  peek?: PeekOutput,
  now: () => number = Date.now,
): () => void {
  if (token === undefined) return () => undefined;
  const started = now();
  let last = 0;
  let busy = false;
  let stopped = false;
  const tick = async (): Promise<void> => {
    const output = peek ? await peek().catch(() => undefined) : undefined;
    const elapsedMs = now() - started;
    const progress = Math.floor(elapsedMs / 100) / 10;
    if (stopped || progress <= last) return;
    last = progress;
    const message = [`running for ${Math.round(elapsedMs / 1000)} s`, ...describeOutput(output)].join('; ');
    await send({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  };
  const timer = setInterval(() => {
    // A peek slower than the interval must not pile up ticks.
    if (busy) return;
    busy = true;
    void tick().finally(() => (busy = false));
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

function describeOutput(output: OutputResponse | undefined): string[] {
  if (!output?.running) return [];
  const parts: string[] = [];
  const stdout = lastLine(output.stdout);
  const stderr = lastLine(output.stderr);
  if (stdout) parts.push(`stdout: ${stdout}`);
  if (stderr) parts.push(`stderr: ${stderr}`);
  return parts;
}

/** The last non-blank line, control characters removed, clipped for a one-line status. */
function lastLine(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const line = text
    .split(/\r?\n|\r/)
    .map((l) => printable(l).trim())
    .filter((l) => l.length > 0)
    .at(-1);
  if (!line) return undefined;
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
}

/** Drops ANSI CSI sequences (colours, cursor moves) and other control characters; keeps tabs. */
function printable(line: string): string {
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code === 0x1b && line[i + 1] === '[') {
      i += 2;
      // Parameters and intermediates run until the final byte (@ to ~).
      while (i < line.length && !(line.charCodeAt(i) >= 0x40 && line.charCodeAt(i) <= 0x7e)) i++;
      continue;
    }
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) continue;
    out += line[i];
  }
  return out;
}

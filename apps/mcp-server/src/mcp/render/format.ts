/** Whole seconds as they are, fractions (an agent accepts `1.5`) with at most three decimals. */
export function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? String(seconds) : String(Math.round(seconds * 1000) / 1000);
}

/** `12 ms`, `4.2 s`, `2 min 5 s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/** Label of the stderr section of a result (and of a held command's output, C-MCP-15). */
export const STDERR_LABEL = '--- stderr ---';

export interface TimeoutLimits {
  readonly defaultSeconds: number;
  readonly maxSeconds: number;
}

/**
 * The effective command timeout (C-MCP-3, Go `clampTimeout`): absent, null or ≤ 0 → the default; above the
 * maximum → the maximum; otherwise unchanged. Never an error. The one clamp of both ends of the wire: the server
 * applies it to the tool's argument, the agent to what reaches `/exec` (C-AG-14), so they cannot drift apart.
 */
export function clampTimeout(requested: number | null | undefined, limits: TimeoutLimits): number {
  if (requested === undefined || requested === null || requested <= 0) return limits.defaultSeconds;
  return Math.min(requested, limits.maxSeconds);
}

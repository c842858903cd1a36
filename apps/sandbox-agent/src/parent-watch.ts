/**
 * SANDBOX_EXIT_WITH_PARENT (C-AG-10): the local backend starts one agent per session and must never leave one
 * behind. The parent pid is captured at the very start of main (before the slow framework imports, so a parent
 * dying during start-up is still noticed) and polled once a second; a change means the parent died.
 */
let onParentGone: () => void = () => process.exit(0);

export function watchParent(parentPid: number, intervalMs = 1_000): void {
  setInterval(() => {
    if (process.ppid !== parentPid) onParentGone();
  }, intervalMs).unref();
}

/** Replaces the default reaction (plain exit) once the agent can shut down properly. */
export function onParentExit(handler: () => void): void {
  onParentGone = handler;
}

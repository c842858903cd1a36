/**
 * Node flags every launcher of the sandbox agent passes before its entry: the local backend (`launch-spec.ts`, with
 * and without bubblewrap), the sandbox image's ENTRYPOINT (docker/Containerfile.sandbox; the recipe check compares)
 * and the fake kubelet, which runs agents as that image would.
 *
 * `--max-semi-space-size=1` (MB): V8 grows the young generation up to 2 × 16 MB as a busy process allocates, and
 * keeps it. The agent allocates a few KB per command and keeps almost nothing, so a 1 MB semi-space costs it no
 * measurable time (alternating A/B, 5 rounds × 1,000 `POST /exec true` × 3 trials: round-p50 medians within the
 * noise; 22 MB of output per command: 94 / 92 ms) while a long session's agent stays far smaller: Node 20,
 * anonymous memory after 10,000 commands 46 → 22 MB; Node 24 (the image's) 35 → 29 MB, after 1,000 commands
 * 33.6 → 29.6 MB (docs/benchmarks.md, round 6). V8 reads the flag only when the heap is set up, so it cannot be
 * set from inside the agent (`v8.setFlagsFromString` leaves the new space at 32 MB). `bin/sandbox-agent.cjs` run
 * by hand does without it.
 */
export const AGENT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

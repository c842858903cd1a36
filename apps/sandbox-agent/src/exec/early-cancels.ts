/** How long a cancel waits for the command it names (C-MCP-9); far above the server → agent hop of a few ms. */
export const EARLY_CANCEL_WINDOW_MS = 5_000;
/** Most cancels waiting at once; the oldest is dropped beyond (a flood of bogus ids cannot grow memory). */
const MAX_WAITING = 64;
/** Request ids of commands that arrived, remembered so a late cancel of one of them never waits. */
const REMEMBERED_IDS = 256;

/**
 * Cancels that arrive before their command (C-MCP-9, cross-replica). Replica A sends `/exec` while the client's
 * `notifications/cancelled` lands on replica B, which forwards it as `/cancel {request_id}`; B can win that race
 * by the few milliseconds A's request is in flight, and the command would then run its whole timeout. So a cancel
 * naming an id the agent has not seen *waits* for it: an `/exec` with that id within EARLY_CANCEL_WINDOW_MS is
 * answered as cancelled without running (once: a second one runs).
 *
 * What keeps it from stopping the wrong command: ids carry the client id the server issued (agent-request-id.ts),
 * so only a client without one could reuse an id; a cancel of an id that *did* arrive — the usual race, a cancel
 * sent as the command finished, or one of a command that yielded (C-MCP-11) — never waits (the last 256 ids that
 * arrived are remembered); and a waiting cancel lasts seconds, not for ever.
 */
export class EarlyCancels {
  /** Id → epoch ms until which the cancel waits; insertion order = age. */
  private readonly waiting = new Map<string, number>();
  private readonly arrived = new Set<string>();

  constructor(
    private readonly windowMs = EARLY_CANCEL_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A cancel found no live command of this id: makes it wait, unless the command already came. */
  wait(requestId: string): boolean {
    if (this.arrived.has(requestId)) return false;
    this.prune();
    this.waiting.delete(requestId);
    this.waiting.set(requestId, this.now() + this.windowMs);
    if (this.waiting.size > MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
    return true;
  }

  /** A command of this id arrived: whether a cancel was waiting for it (and is now spent). */
  arrive(requestId: string): boolean {
    this.arrived.delete(requestId);
    this.arrived.add(requestId);
    if (this.arrived.size > REMEMBERED_IDS) this.arrived.delete(this.arrived.values().next().value!);
    const until = this.waiting.get(requestId);
    if (until === undefined) return false;
    this.waiting.delete(requestId);
    return until >= this.now();
  }

  private prune(): void {
    const now = this.now();
    for (const [id, until] of this.waiting) {
      if (until >= now) break;
      this.waiting.delete(id);
    }
  }
}

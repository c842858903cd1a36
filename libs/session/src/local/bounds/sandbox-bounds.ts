import { totalmem } from 'node:os';

/** A bound as configured: bytes or tasks, `'off'` (turned off explicitly), or undefined (the default). */
export type BoundSetting = number | 'off';

export interface BoundSettings {
  /** `--local-max-processes`: tasks (processes and threads) per sandbox, the agent's own ~20 included. */
  maxProcesses?: BoundSetting;
  /** `--local-max-memory`: bytes per sandbox, the agent's ~60 MB and the sandbox's tmpfs directories included. */
  maxMemoryBytes?: BoundSetting;
  /** `--local-max-disk`: bytes a session's workspace may hold (monitored). */
  maxDiskBytes?: BoundSetting;
  /** `--local-max-output`: bytes of saved full outputs per session (`/workspace/.cli-mcp/out`). */
  maxOutputBytes?: BoundSetting;
}

/** The bounds in force for every sandbox of this server; an absent field is turned off. */
export interface SandboxBounds {
  readonly tasks?: number;
  readonly memoryBytes?: number;
  readonly diskBytes?: number;
  readonly outputBytes?: number;
}

const GIB = 2 ** 30;
const MIB = 2 ** 20;

/**
 * Defaults that fit a laptop (issue 22; measurements in docs/local-backend.md "Bounds"): an idle sandbox holds
 * 12 tasks and ~11 MiB of charged memory, so 1024 tasks and 2 GiB leave ordinary work ample room, while a fork or
 * memory bomb stops long before the host suffers (unbounded: 8,000 tasks in 5.5 s, 4 GiB held).
 */
export const BOUND_DEFAULTS = {
  tasks: 1024,
  /** Memory: the smaller of this and a quarter of the host's RAM. */
  memoryCapBytes: 2 * GIB,
  diskBytes: 4 * GIB,
  outputBytes: 256 * MIB,
} as const;

/** The smallest values that still let the agent start and save an output (each checked with its flag). */
export const BOUND_MINIMUMS = { tasks: 32, memoryBytes: 128 * MIB, diskBytes: 16 * MIB, outputBytes: MIB } as const;

export function defaultMemoryBytes(hostMemoryBytes: number = totalmem()): number {
  // Rounded down to MiB: cgroup files and tmpfs sizes read better that way.
  return Math.min(BOUND_DEFAULTS.memoryCapBytes, Math.floor(hostMemoryBytes / 4 / MIB) * MIB);
}

/** Applies the defaults: unset → default, `'off'` → absent. */
export function resolveBounds(settings: BoundSettings, hostMemoryBytes?: number): SandboxBounds {
  const pick = (value: BoundSetting | undefined, fallback: () => number): number | undefined =>
    value === 'off' ? undefined : value ?? fallback();
  return {
    tasks: pick(settings.maxProcesses, () => BOUND_DEFAULTS.tasks),
    memoryBytes: pick(settings.maxMemoryBytes, () => defaultMemoryBytes(hostMemoryBytes)),
    diskBytes: pick(settings.maxDiskBytes, () => BOUND_DEFAULTS.diskBytes),
    outputBytes: pick(settings.maxOutputBytes, () => BOUND_DEFAULTS.outputBytes),
  };
}

/**
 * The private tmpfs directories' sizes under a memory bound: `/tmp` half of it, `/var/tmp` a quarter, `/run` a
 * sixteenth up to 64Mi (sockets and pid files). tmpfs pages are host RAM that no process owns, so they are sized
 * on their own — where no cgroup counts them this is their only bound — and together stay under the bound, so a
 * full `/tmp` ends in "No space left on device" while the sandbox's processes still have room (no OOM kill).
 */
export function tmpfsSizes(memoryBytes: number | undefined): Record<string, number> | undefined {
  if (memoryBytes === undefined) return undefined;
  const page = (bytes: number): number => Math.floor(bytes / 4096) * 4096;
  return { '/tmp': page(memoryBytes / 2), '/var/tmp': page(memoryBytes / 4), '/run': page(Math.min(64 * MIB, memoryBytes / 16)) };
}

/** `2Gi`, `300Mi`, `5000` bytes: how logs, `/health` and notices show a size. */
export function formatBytes(bytes: number): string {
  if (bytes >= GIB) return `${+(bytes / GIB).toFixed(2)}Gi`;
  if (bytes >= MIB) return `${+(bytes / MIB).toFixed(1)}Mi`;
  // A sampled bound overshoots by less than a MiB at times: "575Ki over" reads like the rest of the message.
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)}Ki`;
  return `${bytes} bytes`;
}

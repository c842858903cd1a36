import { CgroupLimits, type CgroupFs } from '../cgroup-limits.js';
import type { CommandRunner } from '../command-runner.js';
import { PROBE_TIMEOUT_MS } from '../isolation.js';
import type { LaunchSpec } from '../process-launcher.js';
import { formatBytes, tmpfsSizes, type SandboxBounds } from './sandbox-bounds.js';

/**
 * How the tasks and memory bounds are enforced, strongest first (issue 22): a systemd user scope (a delegated
 * cgroup, no privilege needed), this server's own writable cgroupfs, else per-process rlimits.
 */
export type BoundsLayer = 'systemd-scope' | 'cgroupfs' | 'rlimit';

export interface BoundsPlanInput {
  bounds: SandboxBounds;
  runner: CommandRunner;
  cgroupFs?: CgroupFs;
  systemdRunPath?: string;
  prlimitPath?: string;
}

/** What the spawner applies to every sandbox, and what `/health` and the start-up log say about it. */
export interface BoundsPlan {
  readonly bounds: SandboxBounds;
  /** Unset when tasks and memory are both off. */
  readonly layer?: BoundsLayer;
  /** Per bound: its value and how it is enforced (`/health` `bounds`). */
  readonly report: Readonly<Record<string, string>>;
  /** One sentence per bound that is weaker than asked, naming how to get the stronger layer. */
  readonly warnings: readonly string[];
  /** With the `cgroupfs` layer: the prepared per-sandbox cgroups. */
  readonly cgroups?: CgroupLimits;
  /** Prefixes the sandbox's launch (systemd-run, prlimit); identity when nothing is to add. */
  wrap(spec: LaunchSpec): LaunchSpec;
}

/** How often bounds layer 3 measures the sandboxes' memory (memory-monitor.ts). */
export const MEMORY_CHECK_INTERVAL_MS = 500;

const SCOPE_HINT = 'a systemd user manager (`systemd-run --user --scope` works) or a writable cgroup (e.g. a unit with Delegate=yes)';

/** Picks the strongest layer that works here, probing each once at start. */
export async function planBounds(input: BoundsPlanInput): Promise<BoundsPlan> {
  const { bounds } = input;
  const systemdRun = input.systemdRunPath ?? 'systemd-run';
  const prlimit = input.prlimitPath ?? 'prlimit';
  const report: Record<string, string> = {};
  const warnings: string[] = [];
  // A single file can never exceed the workspace bound: RLIMIT_FSIZE makes such a write fail with EFBIG at once,
  // in every layer (the monitor catches many smaller files).
  const fsize = bounds.diskBytes === undefined ? [] : [`--fsize=${bounds.diskBytes}`];
  let layer: BoundsLayer | undefined;
  let cgroups: CgroupLimits | undefined;
  let prefix: string[] = [];
  const wantsCgroup = bounds.tasks !== undefined || bounds.memoryBytes !== undefined;
  if (wantsCgroup) {
    const scope = scopeArgs(bounds);
    const probe = await input.runner.run(systemdRun, [...scope, '--', 'true'], PROBE_TIMEOUT_MS);
    if (probe.ok) {
      layer = 'systemd-scope';
      prefix = [systemdRun, ...scope, '--'];
    } else {
      const limits = new CgroupLimits({ maxProcesses: bounds.tasks, maxMemoryBytes: bounds.memoryBytes }, input.cgroupFs);
      const problem = await limits.prepare().then(() => undefined, (error: unknown) => (error instanceof Error ? error.message : String(error)));
      if (problem === undefined) {
        layer = 'cgroupfs';
        cgroups = limits;
      } else {
        layer = 'rlimit';
        warnings.push(...rlimitWarnings(bounds, `no systemd user scope (${probe.detail}) and no writable cgroup (${problem})`));
      }
    }
  }
  if (bounds.tasks !== undefined) report.tasks = `${bounds.tasks} (${layer === 'rlimit' ? 'rlimit RLIMIT_NPROC' : layer})`;
  else report.tasks = 'off';
  if (bounds.memoryBytes !== undefined) {
    report.memory = `${formatBytes(bounds.memoryBytes)} (${layer === 'rlimit' ? `monitored every ${MEMORY_CHECK_INTERVAL_MS} ms` : layer})`;
    const sizes = tmpfsSizes(bounds.memoryBytes)!;
    report.tmp = `${Object.entries(sizes).map(([dir, size]) => `${dir} ${formatBytes(size)}`).join(', ')} (tmpfs size${layer === 'rlimit' ? '' : ', counted in memory too'})`;
  } else {
    report.memory = 'off';
    report.tmp = 'off (tmpfs without a size: half the host\'s RAM each)';
  }
  report.disk = bounds.diskBytes === undefined ? 'off' : `${formatBytes(bounds.diskBytes)} (monitored; rlimit RLIMIT_FSIZE per file)`;
  report.output = bounds.outputBytes === undefined ? 'off (the agent\'s own retention)' : `${formatBytes(bounds.outputBytes)} (agent retention)`;
  const rlimits = layer === 'rlimit' && bounds.tasks !== undefined ? [`--nproc=${bounds.tasks}`, ...fsize] : fsize;
  if (rlimits.length > 0) {
    const probe = await input.runner.run(prlimit, [...rlimits, '--', 'true'], PROBE_TIMEOUT_MS);
    if (probe.ok) prefix = [...prefix, prlimit, ...rlimits, '--'];
    else warnings.push(`local sandboxes get no rlimits (${rlimits.join(' ')}): prlimit is not usable (${probe.detail}); install util-linux`);
  }
  return { bounds, layer, report, warnings, cgroups, wrap: (spec) => prefixed(spec, prefix) };
}

/** `systemd-run --user --scope` with the bounds as unit properties; `--collect` so a failed scope leaves nothing. */
export function scopeArgs(bounds: SandboxBounds): string[] {
  const args = ['--user', '--scope', '--quiet', '--collect'];
  if (bounds.tasks !== undefined) args.push('-p', `TasksMax=${bounds.tasks}`);
  // MemorySwapMax=0: a bound that swap can stretch does not protect the laptop.
  if (bounds.memoryBytes !== undefined) args.push('-p', `MemoryMax=${bounds.memoryBytes}`, '-p', 'MemorySwapMax=0');
  return args;
}

function rlimitWarnings(bounds: SandboxBounds, why: string): string[] {
  const warnings: string[] = [];
  if (bounds.tasks !== undefined) {
    // RLIMIT_NPROC counts per uid in each user namespace level up to the host's: each sandbox's own namespace
    // holds it to the bound, but at the host level every process of the sandbox uid counts together.
    warnings.push(`local sandboxes' tasks are bounded only by RLIMIT_NPROC (${bounds.tasks}), which the host counts per user across all of that user's processes: ${why}; provide ${SCOPE_HINT}`);
  }
  if (bounds.memoryBytes !== undefined) {
    warnings.push(`local sandboxes' memory is bounded only by monitoring (their processes' resident memory every ${MEMORY_CHECK_INTERVAL_MS} ms, so a fast allocation can overshoot; the tmpfs directories by their sizes): ${why}; provide ${SCOPE_HINT}`);
  }
  return warnings;
}

function prefixed(spec: LaunchSpec, prefix: readonly string[]): LaunchSpec {
  if (prefix.length === 0) return spec;
  const [command, ...rest] = prefix as [string, ...string[]];
  return { ...spec, command, args: [...rest, spec.command, ...spec.args] };
}

/**
 * bubblewrap sizes a tmpfs only since 0.7 (`--size`; Ubuntu 22.04 ships 0.6): without it the sandboxes still
 * start, their tmpfs directories unsized, and this says so — rather than the whole bubblewrap probe failing and
 * `auto` isolation falling back to none.
 */
export async function tmpfsSizeProblem(runner: CommandRunner, bwrapPath: string): Promise<string | undefined> {
  const probe = await runner.run(bwrapPath, ['--size', '4096', '--tmpfs', '/tmp', '--version'], PROBE_TIMEOUT_MS);
  return probe.ok ? undefined : `local sandboxes' /tmp, /var/tmp and /run are not sized: this bubblewrap has no --size (${probe.detail}); ` +
    'they are bounded only by a memory cgroup, where one applies; install bubblewrap 0.7 or later';
}

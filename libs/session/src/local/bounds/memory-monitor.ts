import { readdir, readFile } from 'node:fs/promises';
import { formatBytes } from './sandbox-bounds.js';

/** One process as the monitor needs it: its parent. */
export interface ProcessSample {
  readonly pid: number;
  readonly ppid: number;
}

/** The host's processes and each one's memory; a port so the monitor is unit-tested without /proc. */
export interface ProcessTable {
  list(): Promise<readonly ProcessSample[]>;
  /** Bytes the process uses, shared pages divided among their users (0 when it ended meanwhile). */
  memoryOf(pid: number): Promise<number>;
}

/**
 * `/proc`: the ppid from `stat` (field 4), the memory as `Pss` from `smaps_rollup` — a sum of RSS would count the
 * pages forked children share once per child (a fork bomb's 1,000 idle children "used" 1.15 GiB that way).
 */
export const procProcessTable: ProcessTable = {
  async list() {
    const samples: ProcessSample[] = [];
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const line = await readFile(`/proc/${name}/stat`, 'latin1').catch(() => undefined);
      // The command name (field 2) may hold spaces and parentheses: count fields from the last ')'.
      const after = line?.slice(line.lastIndexOf(')') + 2).split(' ');
      if (after && after.length > 2) samples.push({ pid: Number(name), ppid: Number(after[1]) });
    }
    return samples;
  },
  async memoryOf(pid) {
    const text = await readFile(`/proc/${pid}/smaps_rollup`, 'latin1').catch(() => '');
    const kib = /^Pss:\s+(\d+) kB$/m.exec(text)?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  },
};

export interface MemoryMonitorOptions {
  limitBytes: number;
  intervalMs: number;
  table: ProcessTable;
}

/**
 * The memory bound where no cgroup can hold it (bounds layer 3, issue 22): one walk of the process table per
 * interval for all sandboxes, summing the resident memory of each sandbox's process tree; a sandbox over the
 * bound is stopped. It can overshoot by what a command allocates within one interval, which `/health` says.
 */
export class MemoryMonitor {
  private readonly watched = new Map<number, (reason: string) => void>();
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(private readonly options: MemoryMonitorOptions) {}

  /** Watches the process tree under `rootPid` until the returned function is called; `stop` is called at most once. */
  watch(rootPid: number, stop: (reason: string) => void): () => void {
    this.watched.set(rootPid, stop);
    this.timer ??= setInterval(() => void this.tick().catch(() => undefined), this.options.intervalMs);
    this.timer.unref();
    return () => this.unwatch(rootPid);
  }

  /** One measurement of every watched sandbox (the timer's, exposed for tests). */
  async tick(): Promise<void> {
    if (this.busy || this.watched.size === 0) return;
    this.busy = true;
    try {
      const children = new Map<number, number[]>();
      for (const { pid, ppid } of await this.options.table.list()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      for (const [root, stop] of [...this.watched]) {
        let used = 0;
        for (const pid of treeOf(root, children)) used += await this.options.table.memoryOf(pid);
        if (used <= this.options.limitBytes) continue;
        this.unwatch(root);
        stop(`the sandbox was stopped because its processes used ${formatBytes(used)} of memory, ` +
          `${formatBytes(used - this.options.limitBytes)} over its ${formatBytes(this.options.limitBytes)} bound (--local-max-memory)`);
      }
    } finally {
      this.busy = false;
    }
  }

  close(): void {
    this.watched.clear();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private unwatch(rootPid: number): void {
    this.watched.delete(rootPid);
    if (this.watched.size === 0) this.close();
  }
}

/** `root` and every descendant. */
function treeOf(root: number, children: Map<number, number[]>): number[] {
  const tree = [root];
  for (let next = 0; next < tree.length; next++) {
    for (const child of children.get(tree[next]!) ?? []) if (!tree.includes(child)) tree.push(child);
  }
  return tree;
}

/**
 * Which processes belong to the running command (C-AG-7). Pure: it works on a snapshot of /proc, so the rules are
 * unit-tested with fake tables. The Go agent killed bash's whole process group — bash included — on every timeout,
 * losing cwd/env (Go §18 item 1); we kill only the command's tree and keep the shell.
 */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  /** Clock ticks since boot; with the pid it identifies a process across pid reuse. */
  startTime: number;
}

export function processKey(entry: Pick<ProcEntry, 'pid' | 'startTime'>): string {
  return `${entry.pid}:${entry.startTime}`;
}

export interface TreeSelection {
  table: readonly ProcEntry[];
  rootPid: number;
  /** Include the root itself (tty commands) or only its descendants (the persistent shell). */
  includeRoot: boolean;
  /** `processKey`s of the root's children that existed before the command started: earlier background jobs. */
  preexisting: ReadonlySet<string>;
  /** Processes that ignore SIGHUP while the shell does not, i.e. started with `nohup`: the user's business. */
  detachedByNohup(pid: number): boolean;
}

/**
 * The command's processes: descendants of the root, skipping — with their whole subtrees — earlier background
 * jobs, processes in another session (`setsid`) and `nohup`ed processes. Parents before their children, the root
 * (if included) first: a signal of the round reaches a shell (a `bash -c 'sleep 30; rm x'`, a subshell `( … )`)
 * before its child dies, so it can never run the next step of its list in between — signalled the other way
 * round, `bash -c 'sleep 30; echo x'` printed x after a cancel in 3 of 5 tries here. A process that survives the
 * round's SIGTERM is found again for the SIGKILL round only if its parent is still there: as before.
 */
export function selectCommandTree(input: TreeSelection): number[] {
  const children = new Map<number, ProcEntry[]>();
  let root: ProcEntry | undefined;
  for (const entry of input.table) {
    if (entry.pid === input.rootPid) root = entry;
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  if (!root) return [];
  const selected: number[] = [];
  const walk = (parent: ProcEntry, depth: number): void => {
    // Guard against cycles in a torn snapshot (pid reuse while reading /proc).
    if (depth > 4096) return;
    for (const child of children.get(parent.pid) ?? []) {
      if (child.pid === parent.pid || child.pid === input.rootPid) continue;
      if (input.preexisting.has(processKey(child))) continue;
      if (child.session !== root!.session) continue;
      if (input.detachedByNohup(child.pid)) continue;
      selected.push(child.pid);
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  // A tty command's shell, too, then dies before it could report its children's deaths.
  if (input.includeRoot) selected.unshift(root.pid);
  return selected;
}

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { hasExited, readProcStat, type ProcStat } from '../../libs/testing/src/process-ref.js';

/**
 * What a test file left behind (C-TEST-1): its processes, its listening sockets, its mounts and its temp entries.
 * Attribution is what makes the check fair while files run in parallel: a process counts when it descends from
 * this file's worker or carries the file's marker in its environment (a setsid/nohup job reparented to init keeps
 * it); a socket when this worker holds it; a temp entry or a mount when it is under this file's own TMPDIR.
 * Network namespaces the tests make are held by processes (ship/support/netns.ts), so the process check covers them.
 */
export interface FileScope {
  /** The worker process running the file. */
  readonly pid: number;
  /** `NAME=value` in the environment of everything the file started. */
  readonly marker: string;
  /** The file's own TMPDIR. */
  readonly tmp: string;
}

export function leftoversOf(scope: FileScope): string[] {
  return [...processesOf(scope), ...listeningSocketsOf(scope.pid), ...mountsUnder(scope.tmp), ...tempEntriesOf(scope.tmp)];
}

function processTable(): ProcStat[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map((name) => readProcStat(Number(name))).filter((p): p is ProcStat => p !== undefined);
}

function processesOf(scope: FileScope): string[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const ours = new Set<number>();
  const visit = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      ours.add(child);
      visit(child);
    }
  };
  visit(scope.pid);
  for (const p of table) if (p.pid !== scope.pid && !ours.has(p.pid) && carriesMarker(p.pid, scope.marker)) ours.add(p.pid);
  return table.filter((p) => ours.has(p.pid) && !hasExited(p.state)).map((p) => `process ${p.pid}: ${commandLine(p.pid)}`);
}

function carriesMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
  } catch {
    return false;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 200) || '(no cmdline)';
  } catch {
    return '(gone)';
  }
}

/** TCP and Unix sockets in LISTEN state among the worker's own descriptors (a server a test did not close). */
function listeningSocketsOf(pid: number): string[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // Closed while we looked.
      }
    }
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readLines(`/proc/net/${table}`).slice(1)) {
      const cols = line.trim().split(/\s+/);
      // st 0A = LISTEN; local address is hex ip:port.
      if (cols[3] === '0A' && inodes.has(cols[9]!)) found.push(`listening ${table} socket on port ${Number.parseInt(cols[1]!.split(':')[1]!, 16)}`);
    }
  }
  for (const line of readLines('/proc/net/unix').slice(1)) {
    const cols = line.trim().split(/\s+/);
    // Flags 00010000 = __SO_ACCEPTCON: a listening socket.
    if (cols[3] === '00010000' && inodes.has(cols[6]!)) found.push(`listening unix socket ${cols[7] ?? '(unnamed)'}`);
  }
  return found;
}

function mountsUnder(dir: string): string[] {
  return readLines('/proc/self/mountinfo')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .map((point) => `mount on ${point}`);
}

function tempEntriesOf(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => `temp entry ${name}`);
  } catch {
    return [];
  }
}

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'latin1').split('\n').filter((line) => line.length > 0);
  } catch {
    return [];
  }
}

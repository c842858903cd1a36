import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import {
  describeExit, FIRST_EXTRA_FD, type AgentProcess, type LaunchSpec, type ProcessExit, type ProcessLauncher,
} from './process-launcher.js';

const STDERR_TAIL_BYTES = 4096;
const READY_LINE_MAX = 64;
const PIPE_CLOSE_WAIT_MS = 2_000;
const INFO_MAX_BYTES = 4096;

/**
 * Spawns sandbox processes detached (own process group, so a group signal reaches everything the agent left in
 * it) with fd 3 as the ready pipe (`SANDBOX_READY_FD=3`: the agent writes `<port>\n` once listening, so nobody
 * polls). stdout is discarded; stderr is drained into a small tail for logs.
 */
export class NodeProcessLauncher implements ProcessLauncher {
  launch(spec: LaunchSpec): AgentProcess {
    const extra = spec.extraFds ?? [];
    // `file` descriptors are ours only for the spawn: the child holds its own copy (without close-on-exec).
    const opened = extra.map((fd) => (fd.kind === 'file' ? openSync(fd.path, 'r') : undefined));
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['ignore', 'ignore', 'pipe', 'pipe', ...extra.map((fd, index) => {
          if (fd.kind === 'inherit') return fd.fd;
          return opened[index] ?? ('pipe' as const);
        })],
        detached: true,
      });
    } finally {
      for (const fd of opened) if (fd !== undefined) closeSync(fd);
    }
    let info: Readable | undefined;
    extra.forEach((fd, index) => {
      const stream = child.stdio[FIRST_EXTRA_FD + index] as (Readable & Writable) | null;
      if (!stream || fd.kind === 'inherit' || fd.kind === 'file') return;
      stream.on('error', () => undefined);
      if (fd.kind === 'data') stream.end(fd.content);
      else info = stream;
    });
    return new NodeAgentProcess(child, info);
  }
}

class NodeAgentProcess implements AgentProcess {
  readonly readyLine: Promise<string>;
  readonly exited: Promise<ProcessExit>;
  private exitSeen = false;
  private tail = '';

  readonly sandboxPid: Promise<number | undefined>;

  constructor(private readonly child: ChildProcess, info?: Readable) {
    const readyPipe = child.stdio[3] as Readable | null;
    // The agent keeps fd 3 open for its whole life. Under bwrap our child is bwrap, whose sandbox dies a moment
    // after it (PR_SET_PDEATHSIG); EOF on fd 3 says the agent itself is gone, so "exited" means the sandbox no
    // longer answers on its port. Bounded, since a command may have inherited the descriptor.
    const pipeClosed = new Promise<void>((resolve) => {
      if (!readyPipe) return resolve();
      readyPipe.once('close', resolve);
      readyPipe.once('error', () => resolve());
    });
    this.exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      // Spawn failures (ENOENT, EACCES) emit 'error' without 'exit'.
      child.once('error', (error) => {
        if (child.pid === undefined) resolve({ code: null, signal: null, error: error.message });
      });
    })
      .then(async (exit) => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([pipeClosed, new Promise<void>((resolve) => (timer = setTimeout(resolve, PIPE_CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
        readyPipe?.destroy();
        return exit;
      })
      .then((exit) => {
        this.exitSeen = true;
        return exit;
      });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    this.readyLine = readFirstLine(readyPipe, this.exited);
    this.readyLine.catch(() => undefined);
    this.sandboxPid = info ? readChildPid(info, this.exited) : Promise.resolve(undefined);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get hasExited(): boolean {
    return this.exitSeen;
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // After Node reaped the leader, the kernel keeps its number reserved while the group still has members (what it
    // left behind, which this signal is for). A process that holds the number now means the group is gone and the
    // number went to someone else: a group signal would hit an unrelated process group of this machine.
    if ((this.child.exitCode !== null || this.child.signalCode !== null) && existsSync(`/proc/${pid}`)) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        this.child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  }

  stderrTail(): string {
    return this.tail;
  }
}

function readFirstLine(stream: Readable | null, exited: Promise<ProcessExit>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (!stream) return reject(new Error('no ready pipe'));
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        stream.off('data', onData);
        stream.resume();
        resolve(text.slice(0, newline).trim());
      } else if (text.length > READY_LINE_MAX) {
        reject(new Error('ready pipe: no newline within 64 bytes'));
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error('agent closed the ready pipe without writing its port')));
    stream.once('error', (error) => reject(error));
    void exited.then((exit) => reject(new Error(describeExit(exit))));
  });
}

/** bubblewrap's `--info-fd` document: `{"child-pid": N, …}`, written once, then the descriptor is closed. */
function readChildPid(stream: Readable, exited: Promise<ProcessExit>): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const settle = (): void => {
      stream.destroy();
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
      resolve(pid === undefined ? undefined : Number(pid));
    };
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/}\s*$/.test(text) || text.length > INFO_MAX_BYTES) settle();
    });
    stream.once('end', settle);
    void exited.then(settle);
  });
}

import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { SANDBOX_PATH } from './launch-spec.js';

/** User-mode networking attached to one sandbox (C-SEC-2). */
export interface SandboxNetwork {
  readonly pid: number;
  /** Settles once the network process has exited (on `close`, or by itself). */
  readonly exited: Promise<void>;
  /** Ends the network process; resolves once it is gone. Idempotent. */
  close(): Promise<void>;
}

/** Attaches a network to the namespaces of a running process (a port, so the spawner is unit-tested). */
export interface NetworkAttacher {
  /** Resolves once the sandbox's interface is configured; rejects (leaving nothing running) when it cannot be. */
  attach(sandboxPid: number, signal: AbortSignal): Promise<SandboxNetwork>;
}

const STDERR_TAIL_BYTES = 2048;
const CLOSE_WAIT_MS = 2_000;

/**
 * slirp4netns (Debian package `slirp4netns`) in the sandbox's network namespace: `tap0` configured as
 * 10.0.2.100/24, gateway 10.0.2.2, DNS forwarder 10.0.2.3. `--disable-host-loopback` is the point: the gateway
 * does not lead to the host's 127.0.0.1, so neither this server nor host services on loopback are reachable.
 * `--exit-fd` ties its life to this process: the descriptor's other end is ours alone, so it also closes when the
 * server is killed (C-HTTP-4, no orphans). A server that is not root joins the sandbox's user namespace first
 * (`--userns-path`); root may enter the network namespace directly.
 */
export class Slirp4netnsAttacher implements NetworkAttacher {
  constructor(private readonly slirpPath: string, private readonly joinUserNamespace: boolean) {}

  attach(sandboxPid: number, signal: AbortSignal): Promise<SandboxNetwork> {
    const args = [
      '--configure', '--mtu=65520', '--disable-host-loopback', '--enable-sandbox', '--enable-seccomp',
      '--ready-fd=3', '--exit-fd=4',
      ...(this.joinUserNamespace ? [`--userns-path=/proc/${sandboxPid}/ns/user`] : []),
      String(sandboxPid), 'tap0',
    ];
    const child = spawn(this.slirpPath, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true, env: { PATH: SANDBOX_PATH } });
    const ready = child.stdio[3] as Readable;
    const exitFd = child.stdio[4] as Writable;
    exitFd.on('error', () => undefined);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)));
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        exitFd.destroy();
        let timer: NodeJS.Timeout | undefined;
        const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
        if (!gone) child.kill('SIGKILL');
        await exited;
      })();
      return closing;
    };
    return new Promise<SandboxNetwork>((resolve, reject) => {
      const fail = (reason: string): void => {
        void close();
        const why = problemLines(stderr);
        reject(new Error(`slirp4netns ${reason}${why ? `: ${why}` : ''}`));
      };
      const onAbort = (): void => fail('was stopped before the network was up');
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      ready.once('data', () => {
        signal.removeEventListener('abort', onAbort);
        ready.destroy();
        resolve({ pid: child.pid ?? -1, exited, close });
      });
      void exited.then(() => {
        signal.removeEventListener('abort', onAbort);
        fail('exited before the network was up');
      });
    });
  }
}

/**
 * What slirp4netns said went wrong: its own lines without the "WARNING:" notices it repeats from both processes,
 * the cause first — it prints the failed call (`open("/dev/net/tun"): Permission denied`) and then only
 * `child failed(1)`, so a last line alone would hide the cause.
 */
export function problemLines(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('WARNING:'));
  return [...new Set(lines)].slice(0, 3).join('; ').slice(0, 300);
}

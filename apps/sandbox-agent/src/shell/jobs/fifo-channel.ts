import { execFile } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, unlinkSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutputChannel, type StreamReceiver } from '../output/output-channel.js';

/** A fresh output channel made of two FIFOs: the shell opens them by path, the agent reads them (C-MCP-11). */
export interface FifoChannel {
  channel: OutputChannel;
  paths: { stdout: string; stderr: string };
  /** Once the shell has opened both: drop the agent's keep-open writers (so EOF means "all writers gone") and names. */
  release(): void;
  /** The shell never opened them (it died, or the hand-off failed). */
  abandon(): void;
}

let directory: string | undefined;
let counter = 0;

/**
 * Node has no mkfifo(3), so one `mkfifo` process per channel — only at a yield point, never per command. Each read
 * end is opened non-blocking (an open for reading never waits) and read through a libuv pipe handle (a net.Socket:
 * no thread-pool thread is held however long a job runs). A second, write-only descriptor keeps a reader from
 * seeing EOF before the shell opened its end.
 */
export async function createFifoChannel(receiver: StreamReceiver): Promise<FifoChannel> {
  directory ??= mkdtempSync(join(tmpdir(), 'climcp-fifo-'));
  const base = join(directory, `${process.pid}-${++counter}`);
  const paths = { stdout: `${base}.out`, stderr: `${base}.err` };
  await new Promise<void>((resolve, reject) => {
    execFile('mkfifo', ['-m', '600', paths.stdout, paths.stderr], (error) => (error ? reject(error) : resolve()));
  });
  const fds: number[] = [];
  try {
    const open = (path: string, flags: number): number => {
      const fd = openSync(path, flags | constants.O_NONBLOCK);
      fds.push(fd);
      return fd;
    };
    const readOut = open(paths.stdout, constants.O_RDONLY);
    const readErr = open(paths.stderr, constants.O_RDONLY);
    const keepers = [open(paths.stdout, constants.O_WRONLY), open(paths.stderr, constants.O_WRONLY)];
    const channel = new OutputChannel({
      stdout: new Socket({ fd: readOut, readable: true, writable: false }),
      stderr: new Socket({ fd: readErr, readable: true, writable: false }),
    }, receiver);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      for (const fd of keepers) closeQuietly(fd);
      for (const path of [paths.stdout, paths.stderr]) unlinkQuietly(path);
    };
    return { channel, paths, release, abandon: () => { release(); channel.destroy(); } };
  } catch (error) {
    for (const fd of fds) closeQuietly(fd);
    for (const path of [paths.stdout, paths.stderr]) unlinkQuietly(path);
    throw error;
  }
}

/** On agent exit: the directory of FIFO names (normally already empty). */
export function removeFifoDirectory(): void {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

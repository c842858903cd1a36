import type { Readable } from 'node:stream';

export type StreamName = 'stdout' | 'stderr';

export interface StreamReceiver {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

/**
 * One pair of streams the shell's processes write to, and who gets their bytes. The shell starts on the pipes the
 * agent spawned it with; when a command is detached at the yield point (C-MCP-11) it keeps that pair for itself and
 * the shell moves on to a fresh pair (FIFOs), so a job's later output never mixes with later commands' output.
 */
export class OutputChannel {
  private receiver: StreamReceiver;
  /** Both streams reached EOF: every process that held them is gone. */
  readonly ended: Promise<void>;

  constructor(private readonly streams: Record<StreamName, Readable>, receiver: StreamReceiver) {
    this.receiver = receiver;
    streams.stdout.on('data', (chunk: Buffer) => this.receiver.stdout(chunk));
    streams.stderr.on('data', (chunk: Buffer) => this.receiver.stderr(chunk));
    const endOf = (stream: Readable): Promise<void> =>
      new Promise((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
      });
    // A read error (EIO, the far end vanished) counts as the end too.
    streams.stdout.on('error', () => undefined);
    streams.stderr.on('error', () => undefined);
    this.ended = Promise.all([endOf(streams.stdout), endOf(streams.stderr)]).then(() => undefined);
  }

  setReceiver(receiver: StreamReceiver): void {
    this.receiver = receiver;
  }

  pause(stream: StreamName): void {
    this.streams[stream].pause();
  }

  resume(stream: StreamName): void {
    this.streams[stream].resume();
  }

  /** Stops listening; writers still holding the streams get EPIPE. */
  destroy(): void {
    for (const stream of [this.streams.stdout, this.streams.stderr]) {
      stream.removeAllListeners('data');
      stream.destroy();
    }
  }
}

import { createWriteStream, type WriteStream } from 'node:fs';
import type { AgentLog } from '../../logging/agent-logger.js';

const HIGH_WATER_MARK = 1024 * 1024;

/**
 * The full output of one stream of one command, written to disk (C-MCP-6). Asynchronous and back-pressure-aware:
 * `write` returns false when the file is congested, and the caller pauses the shell's pipe until `onDrain`.
 * Writing stops at `maxBytes`; a note at the end of the file says so.
 */
export class SpillFile {
  private readonly stream: WriteStream;
  private written = 0;
  private seen = 0;
  private failed = false;
  private readonly closed: Promise<void>;

  constructor(readonly path: string, private readonly maxBytes: number, private readonly log: AgentLog) {
    this.stream = createWriteStream(path, { flags: 'w', mode: 0o600, highWaterMark: HIGH_WATER_MARK });
    this.closed = new Promise((resolve) => this.stream.once('close', resolve));
    this.stream.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.failed) this.log.warn({ code: err.code, path }, 'cannot write full output file');
      this.failed = true;
    });
  }

  /** Whether the file holds the stream (false after a write error). */
  get usable(): boolean {
    return !this.failed;
  }

  write(chunk: Buffer): boolean {
    this.seen += chunk.length;
    if (this.failed || this.written >= this.maxBytes) return true;
    const part = this.written + chunk.length > this.maxBytes ? chunk.subarray(0, this.maxBytes - this.written) : chunk;
    this.written += part.length;
    return this.stream.write(part);
  }

  onDrain(callback: () => void): void {
    if (this.failed || !this.stream.writableNeedDrain) {
      callback();
      return;
    }
    const done = (): void => {
      this.stream.off('drain', done);
      this.stream.off('close', done);
      callback();
    };
    this.stream.once('drain', done);
    this.stream.once('close', done);
  }

  /** Flushes and closes; resolves once the bytes are on disk, so the next command can read the file. */
  async close(): Promise<void> {
    if (!this.failed && this.seen > this.written) {
      this.stream.write(`\n[cli-mcp: file stopped at ${this.maxBytes} bytes; the stream had ${this.seen} bytes]\n`);
    }
    this.stream.end();
    await this.closed;
  }
}

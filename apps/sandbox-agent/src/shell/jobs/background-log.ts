import { createWriteStream, mkdirSync, renameSync, statSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * Output that belongs to no command: what earlier background jobs print between commands (before a command's start
 * marker, after its end marker). It must not leak into the next command's result (Go §9.4 gap), and it must not be
 * silently lost either, so it is appended to `<outputDir>/background.log` — bounded: one rotation at 1 MiB, and
 * bytes are dropped rather than buffered without limit when the disk is slow.
 */
export class BackgroundLog {
  private stream: WriteStream | undefined;
  private size = 0;

  constructor(private readonly path: string | null) {}

  write(bytes: Buffer): void {
    if (this.path === null || bytes.length === 0) return;
    const stream = this.stream ?? this.open(this.path);
    if (!stream || stream.writableLength > MAX_PENDING_BYTES) return;
    stream.write(bytes);
    this.size += bytes.length;
    if (this.size > MAX_FILE_BYTES) this.rotate(this.path);
  }

  close(): void {
    this.stream?.end();
    this.stream = undefined;
  }

  private open(path: string): WriteStream | undefined {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      try {
        this.size = statSync(path).size;
      } catch {
        this.size = 0;
      }
      const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
      stream.on('error', () => {
        if (this.stream === stream) this.stream = undefined;
      });
      this.stream = stream;
      return stream;
    } catch {
      return undefined;
    }
  }

  private rotate(path: string): void {
    this.stream?.end();
    this.stream = undefined;
    try {
      renameSync(path, `${path}.1`);
    } catch {
      // Next write appends to the same file again; size bound still holds via the next rotation attempt.
    }
    this.size = 0;
  }
}

import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

let directory: string | undefined;
let counter = 0;

/**
 * The regular file a command's body travels in (issue 11, command-script.ts "One read"): bash reads a pipe one byte
 * at a time but a sourced regular file in one read(2), so the agent writes the body here and sends bash only a short
 * line. One file per shell, in a private 0700 directory outside the workdir and the output dir, rewritten before
 * every command's line (nothing a command leaves in it outlives that command). Kept open and rewritten in place
 * (`pwrite`, plus `ftruncate` when the file held more than the new body: ≈ 5 µs; an `open(O_TRUNC)` per command
 * measured ≈ 140 µs here). Same-UID processes can
 * reach it, as they can reach bash's stdin pipe through /proc: docs/agent.md, "The command body file".
 */
export class CommandBodyFile {
  readonly path: string;
  private fd: number | undefined;

  constructor() {
    directory ??= mkdtempSync(join(tmpdir(), 'climcp-sh-'));
    this.path = join(directory, `${process.pid}-${++counter}`);
  }

  /** Synchronous: the file must be complete before bash is told to read it. A removed file or directory is made again. */
  write(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    let fd = this.fd;
    // One fstat: a removed file (no links left) is made again, and the size says whether old bytes are left over.
    let size = 0;
    if (fd !== undefined) {
      const stat = fstatSync(fd);
      if (stat.nlink > 0) size = stat.size;
      else {
        closeSync(fd);
        fd = undefined;
      }
    }
    if (fd === undefined) {
      fd = this.fd = this.open();
      size = fstatSync(fd).size;
    }
    writeSync(fd, bytes, 0, bytes.length, 0);
    // Only a file longer than this body keeps old bytes (a longer earlier body, or whatever a command wrote there).
    if (size > bytes.length) ftruncateSync(fd, bytes.length);
  }

  remove(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }

  private open(): number {
    const flags = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW; // libuv adds O_CLOEXEC: bash never inherits it
    try {
      return openSync(this.path, flags, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      return openSync(this.path, flags, 0o600);
    }
  }
}

/** At shutdown. */
export function removeBodyDirectory(): void {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
}

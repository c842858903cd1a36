import { MarkerScanner } from './marker-scanner.js';

export interface FramerOutput {
  /** Bytes outside the command's window: earlier background jobs, or anything after the end marker. */
  background(bytes: Buffer): void;
  /** Bytes the command wrote. */
  body(bytes: Buffer): void;
}

type Phase = 'before' | 'mode' | 'body' | 'exit-code' | 'done';

const NEWLINE = 0x0a;
const MAX_EXIT_CODE_BYTES = 16;

/**
 * Splits one stream (stdout or stderr) of one command into background bytes, the command's bytes and — on stdout —
 * the exit code that follows the end marker (`<end marker><digits>\n`). The start marker is followed by one byte, the
 * mode the shell runs the command in (command-script.ts, C-MCP-11). C-AG-6: byte-based, chunk-boundary safe.
 */
export class StreamFramer {
  private phase: Phase = 'before';
  private scanner: MarkerScanner;
  private exitDigits = '';
  private code: number | undefined;
  private runMode: string | undefined;

  constructor(
    start: Buffer,
    private readonly end: Buffer,
    private readonly withExitCode: boolean,
    private readonly out: FramerOutput,
  ) {
    this.scanner = new MarkerScanner(start);
  }

  get started(): boolean {
    return this.phase !== 'before';
  }

  get done(): boolean {
    return this.phase === 'done';
  }

  get exitCode(): number | undefined {
    return this.code;
  }

  /** The byte after the start marker, once seen. */
  get mode(): string | undefined {
    return this.runMode;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) rest = this.step(rest);
  }

  /** The stream ended or the shell died: release held-back bytes into the current phase. */
  flush(): void {
    if (this.phase === 'before' || this.phase === 'mode' || this.phase === 'done') {
      const held = this.scanner.flush();
      if (held.length > 0) this.out.background(held);
    } else if (this.phase === 'body') {
      const held = this.scanner.flush();
      if (held.length > 0) this.out.body(held);
    }
  }

  private step(data: Buffer): Buffer {
    switch (this.phase) {
      case 'before': {
        const r = this.scanner.push(data);
        if (r.before.length > 0) this.out.background(r.before);
        if (!r.found) return Buffer.alloc(0);
        this.phase = 'mode';
        this.scanner = new MarkerScanner(this.end);
        return r.after;
      }
      case 'mode':
        this.runMode = String.fromCharCode(data[0]!);
        this.phase = 'body';
        return data.subarray(1);
      case 'body': {
        const r = this.scanner.push(data);
        if (r.before.length > 0) this.out.body(r.before);
        if (!r.found) return Buffer.alloc(0);
        this.phase = this.withExitCode ? 'exit-code' : 'done';
        return r.after;
      }
      case 'exit-code':
        return this.readExitCode(data);
      case 'done':
        this.out.background(data);
        return Buffer.alloc(0);
    }
  }

  private readExitCode(data: Buffer): Buffer {
    const nl = data.indexOf(NEWLINE);
    const take = nl < 0 ? data : data.subarray(0, nl);
    this.exitDigits += take.toString('latin1');
    if (nl < 0 && this.exitDigits.length <= MAX_EXIT_CODE_BYTES) return Buffer.alloc(0);
    const parsed = /^\d{1,3}$/.test(this.exitDigits) ? Number(this.exitDigits) : Number.NaN;
    // Only the protocol writes here (the nonce is unguessable); garbage would be a protocol bug → report failure.
    this.code = Number.isNaN(parsed) ? 1 : parsed;
    this.phase = 'done';
    return nl < 0 ? Buffer.alloc(0) : data.subarray(nl + 1);
  }
}

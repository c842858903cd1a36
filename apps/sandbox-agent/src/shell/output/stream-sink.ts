import { OutputCapture, type CapturedStream } from './output-capture.js';
import type { SpillFile } from './spill-file.js';

export interface SinkResult {
  captured: CapturedStream;
  /** Absolute path of the saved full output, when the stream was saved. */
  file?: string;
}

/**
 * Where one stream of one command goes: the bounded in-memory capture, plus — once the stream passes the spill
 * threshold — a file with everything (C-MCP-6). `push` returns false when the file is congested (back-pressure).
 */
export class StreamSink {
  private readonly capture: OutputCapture;
  private spill: SpillFile | undefined;
  private spillRefused = false;

  constructor(
    bufferBytes: number,
    private readonly spillThreshold: number,
    private readonly openSpill: (() => SpillFile | undefined) | undefined,
  ) {
    this.capture = new OutputCapture(bufferBytes);
  }

  push(chunk: Buffer): boolean {
    if (this.capture.totalBytes + chunk.length > this.spillThreshold) this.startSpill();
    this.capture.push(chunk);
    return this.spill ? this.spill.write(chunk) : true;
  }

  /**
   * Saves the stream to its file from now on, whatever its size (a command detached at the yield point, C-MCP-11:
   * its further output is only in the file). Returns the path, or undefined when saving is off or failed.
   */
  spillNow(): string | undefined {
    this.startSpill();
    return this.spill?.path;
  }

  /** What the stream holds right now (the output so far of a command that keeps running). */
  snapshot(): SinkResult {
    const captured = this.capture.finish();
    return this.spill?.usable ? { captured, file: this.spill.path } : { captured };
  }

  private startSpill(): void {
    if (this.spill || this.spillRefused || !this.openSpill) return;
    // Nothing was dropped yet: the threshold is at most half the in-memory budget (agent-config.ts).
    this.spill = this.openSpill();
    if (this.spill) this.spill.write(this.capture.allBytesSoFar());
    else this.spillRefused = true;
  }

  /** Bytes written so far and the latest of them (for `/output`). */
  peek(maxBytes: number): { text: string; bytes: number } {
    return { text: this.capture.latest(maxBytes), bytes: this.capture.totalBytes };
  }

  onDrain(callback: () => void): void {
    if (this.spill) this.spill.onDrain(callback);
    else callback();
  }

  async finish(): Promise<SinkResult> {
    const captured = this.capture.finish();
    if (!this.spill) return { captured };
    await this.spill.close();
    return this.spill.usable ? { captured, file: this.spill.path } : { captured };
  }
}

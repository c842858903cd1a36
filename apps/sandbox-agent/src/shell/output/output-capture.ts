import { completeUtf8Length, countNewlines, leadingContinuationBytes, trimTrailingNewlines } from './utf8-bytes.js';

/** What one stream of one command produced, ready for the wire (C-MCP-6). */
export interface CapturedStream {
  /** The whole stream, or its head when truncated. Trailing newlines trimmed when it is the whole stream. */
  text: string;
  /** The stream's tail when truncated (trailing newlines trimmed). */
  tail?: string;
  truncated: boolean;
  /** Exact number of bytes written. */
  bytes: number;
  omittedBytes?: number;
  omittedLines?: number;
  /** A NUL byte was seen. */
  binary: boolean;
}

/**
 * Bounded capture of one stream: the first half of the budget as head, the last half as a ring-buffer tail, exact
 * byte and newline totals. Memory never exceeds the budget, however much the command prints (C-MCP-6).
 */
export class OutputCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  private ring: Buffer | undefined;
  private ringStart = 0;
  private ringLength = 0;
  private total = 0;
  private newlines = 0;
  private sawNul = false;

  constructor(budgetBytes: number) {
    this.headLimit = Math.floor(budgetBytes / 2);
    this.tailLimit = budgetBytes - this.headLimit;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    this.newlines += countNewlines(chunk);
    if (!this.sawNul && chunk.indexOf(0) >= 0) this.sawNul = true;
    let rest = chunk;
    if (this.headLength < this.headLimit) {
      const take = Math.min(this.headLimit - this.headLength, rest.length);
      this.headChunks.push(Buffer.from(rest.subarray(0, take)));
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.pushTail(rest);
  }

  /** The last `maxBytes` bytes seen so far (or fewer), starting at a UTF-8 character boundary. */
  latest(maxBytes: number): string {
    const tail = this.tailBytes();
    const fromTail = tail.subarray(Math.max(0, tail.length - maxBytes));
    const needed = maxBytes - fromTail.length;
    // The head joins the tail only while nothing between them was dropped.
    const contiguous = this.total === this.headLength + this.ringLength;
    const head = needed > 0 && contiguous ? Buffer.concat(this.headChunks) : Buffer.alloc(0);
    const bytes = Buffer.concat([head.subarray(Math.max(0, head.length - needed)), fromTail]);
    return bytes.subarray(leadingContinuationBytes(bytes)).toString('utf8');
  }

  /** Every byte seen so far, while nothing has been dropped yet (the spill file starts from this). */
  allBytesSoFar(): Buffer {
    if (this.total !== this.headLength + this.ringLength) throw new Error('bytes were already dropped');
    return Buffer.concat([...this.headChunks, this.tailBytes()]);
  }

  finish(): CapturedStream {
    const head = Buffer.concat(this.headChunks);
    const tail = this.tailBytes();
    if (this.total === head.length + tail.length) {
      const text = trimTrailingNewlines(Buffer.concat([head, tail]).toString('utf8'));
      return { text, truncated: false, bytes: this.total, binary: this.sawNul };
    }
    const headKept = head.subarray(0, completeUtf8Length(head));
    const tailKept = tail.subarray(leadingContinuationBytes(tail));
    return {
      text: headKept.toString('utf8'),
      tail: trimTrailingNewlines(tailKept.toString('utf8')),
      truncated: true,
      bytes: this.total,
      omittedBytes: this.total - headKept.length - tailKept.length,
      omittedLines: this.newlines - countNewlines(headKept) - countNewlines(tailKept),
      binary: this.sawNul,
    };
  }

  private pushTail(data: Buffer): void {
    const size = this.tailLimit;
    if (size === 0) return;
    this.ring ??= Buffer.allocUnsafe(size);
    if (data.length >= size) {
      data.copy(this.ring, 0, data.length - size);
      this.ringStart = 0;
      this.ringLength = size;
      return;
    }
    const writeAt = (this.ringStart + this.ringLength) % size;
    const firstPart = Math.min(data.length, size - writeAt);
    data.copy(this.ring, writeAt, 0, firstPart);
    if (firstPart < data.length) data.copy(this.ring, 0, firstPart);
    const overflow = this.ringLength + data.length - size;
    if (overflow > 0) {
      this.ringStart = (this.ringStart + overflow) % size;
      this.ringLength = size;
    } else {
      this.ringLength += data.length;
    }
  }

  private tailBytes(): Buffer {
    if (!this.ring || this.ringLength === 0) return Buffer.alloc(0);
    const end = this.ringStart + this.ringLength;
    if (end <= this.ring.length) return Buffer.from(this.ring.subarray(this.ringStart, end));
    return Buffer.concat([this.ring.subarray(this.ringStart), this.ring.subarray(0, end - this.ring.length)]);
  }
}

/**
 * Finds a marker in a byte stream that arrives in arbitrary chunks (C-AG-6): binary-safe, no line splitting, and a
 * marker cut across two chunks is still found. Bytes that cannot be part of the marker are released at once; only
 * a suffix that is a proper prefix of the marker is held back until the next chunk decides.
 */
export interface ScanResult {
  /** Bytes before the marker (or all releasable bytes when it was not found). */
  before: Buffer;
  found: boolean;
  /** Bytes after the marker (only when found). */
  after: Buffer;
}

const EMPTY = Buffer.alloc(0);

export class MarkerScanner {
  private held: Buffer = EMPTY;

  constructor(private readonly marker: Buffer) {
    if (marker.length === 0) throw new Error('marker must not be empty');
  }

  push(chunk: Buffer): ScanResult {
    const data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const at = data.indexOf(this.marker);
    if (at >= 0) {
      this.held = EMPTY;
      return { before: data.subarray(0, at), found: true, after: data.subarray(at + this.marker.length) };
    }
    const keep = this.partialSuffixLength(data);
    this.held = keep === 0 ? EMPTY : Buffer.from(data.subarray(data.length - keep));
    return { before: data.subarray(0, data.length - keep), found: false, after: EMPTY };
  }

  /** Bytes held back because they might start the marker; released as data when the stream ends. */
  flush(): Buffer {
    const rest = this.held;
    this.held = EMPTY;
    return rest;
  }

  /** Length of the longest suffix of `data` that is a proper prefix of the marker. */
  private partialSuffixLength(data: Buffer): number {
    const max = Math.min(this.marker.length - 1, data.length);
    // Start from the first occurrence of the marker's first byte in the last `max` bytes: cheap for normal output.
    let from = data.length - max;
    while (from < data.length) {
      const at = data.indexOf(this.marker[0]!, from);
      if (at < 0) return 0;
      const length = data.length - at;
      if (data.compare(this.marker, 0, length, at, data.length) === 0) return length;
      from = at + 1;
    }
    return 0;
  }
}

/**
 * Streaming clean-up of pseudo-terminal output (C-AG-11): CR…CR LF and lone CR (runs) become one LF, ANSI escape sequences
 * (CSI, OSC/DCS/APC/PM/SOS strings, two- and three-byte ESC sequences) and BEL are removed. Byte-based and
 * stateful, so a sequence cut across two chunks is still removed.
 */
type State = 'text' | 'esc' | 'esc-intermediate' | 'csi' | 'string' | 'string-esc';

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;
const BEL = 0x07;

export class TerminalNormalizer {
  private state: State = 'text';
  private pendingCr = false;

  push(chunk: Buffer): Buffer {
    if (this.state === 'text' && !this.pendingCr && !hasSpecialByte(chunk)) return chunk;
    const out = Buffer.allocUnsafe(chunk.length + 1);
    let n = 0;
    for (const byte of chunk) {
      switch (this.state) {
        case 'text':
          if (byte === ESC) {
            this.state = 'esc';
          } else if (byte === CR) {
            // A run of CRs counts once: the pty turns "\r\n" into "\r\r\n" (ONLCR), a terminal shows one break.
            this.pendingCr = true;
          } else if (byte === LF) {
            out[n++] = LF;
            this.pendingCr = false;
          } else if (byte !== BEL) {
            if (this.pendingCr) {
              // n ≤ consumed bytes + 1 always holds: a pending CR consumed a byte without output.
              out[n++] = LF;
              this.pendingCr = false;
            }
            out[n++] = byte;
          }
          break;
        case 'esc':
          if (byte === 0x5b) this.state = 'csi';
          else if (byte === 0x5d || byte === 0x50 || byte === 0x5e || byte === 0x5f || byte === 0x58) this.state = 'string';
          else if (byte >= 0x20 && byte <= 0x2f) this.state = 'esc-intermediate';
          else this.state = 'text';
          break;
        case 'esc-intermediate':
          if (byte < 0x20 || byte > 0x2f) this.state = 'text';
          break;
        case 'csi':
          if (byte < 0x20 || byte > 0x3f) this.state = 'text';
          break;
        case 'string':
          if (byte === BEL) this.state = 'text';
          else if (byte === ESC) this.state = 'string-esc';
          break;
        case 'string-esc':
          this.state = byte === 0x5c ? 'text' : byte === ESC ? 'string-esc' : 'string';
          break;
      }
    }
    return out.subarray(0, n);
  }

  /** End of output: a final lone CR counts as a line end. */
  flush(): Buffer {
    const rest = this.pendingCr ? Buffer.from([LF]) : Buffer.alloc(0);
    this.pendingCr = false;
    this.state = 'text';
    return rest;
  }
}

function hasSpecialByte(chunk: Buffer): boolean {
  return chunk.indexOf(ESC) >= 0 || chunk.indexOf(CR) >= 0 || chunk.indexOf(BEL) >= 0;
}

/** Byte helpers for cutting captured output on UTF-8 character boundaries and counting lines exactly. */

const NEWLINE = 0x0a;

export function countNewlines(buf: Buffer): number {
  let count = 0;
  let at = buf.indexOf(NEWLINE);
  while (at >= 0) {
    count++;
    at = buf.indexOf(NEWLINE, at + 1);
  }
  return count;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function sequenceLength(lead: number): number {
  if (lead >= 0xc0 && lead < 0xe0) return 2;
  if (lead >= 0xe0 && lead < 0xf0) return 3;
  if (lead >= 0xf0 && lead < 0xf8) return 4;
  return 1;
}

/** Length of `buf` without an incomplete multi-byte character at its end. */
export function completeUtf8Length(buf: Buffer): number {
  const n = buf.length;
  let i = n - 1;
  while (i >= 0 && n - 1 - i < 3 && isContinuation(buf[i]!)) i--;
  if (i < 0) return n;
  const lead = buf[i]!;
  if (lead < 0xc0) return n;
  return n - i < sequenceLength(lead) ? i : n;
}

/** Number of continuation bytes (at most 3) at the start of `buf`: the rest of a character cut off in front. */
export function leadingContinuationBytes(buf: Buffer): number {
  let skip = 0;
  while (skip < 3 && skip < buf.length && isContinuation(buf[skip]!)) skip++;
  return skip;
}

/** Go §9.4: every trailing `\n` is removed from the end of a stream (leading newlines and `\r` are kept). */
export function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === NEWLINE) end--;
  return end === text.length ? text : text.slice(0, end);
}

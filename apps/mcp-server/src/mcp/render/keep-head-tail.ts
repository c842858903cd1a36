import { hasGap, type StreamView } from './stream-view.js';

/** Share of a stream's budget given to its head; the tail (errors, summaries) gets the rest. */
const HEAD_SHARE = 0.4;
/** A cut moves to a line boundary when one lies within this fraction of the kept part. */
const SNAP_WINDOW = 0.25;

/** A stream after the budget: text to show (with an omission marker inside when something was left out). */
export interface KeptStream {
  readonly text: string;
  /** Exact UTF-8 bytes and newlines left out: the agent's own omission plus ours. */
  readonly omittedBytes: number;
  readonly omittedLines: number;
  readonly truncated: boolean;
}

/** The line that stands where output was left out. */
export function omissionMarker(bytes: number, lines: number): string {
  return `[… ${bytes} bytes (${lines} lines) omitted …]`;
}

/** Longest marker we can produce (counts below 10^12), reserved before cutting so the budget holds. */
export const MARKER_RESERVE = omissionMarker(999_999_999_999, 999_999_999_999).length + 2;

/** Characters the whole stream takes when nothing more is cut. */
export function fullLength(view: StreamView): number {
  return hasGap(view) ? view.head.length + view.tail.length + MARKER_RESERVE : view.head.length;
}

/**
 * Keeps the head and tail of a stream within `budget` characters (UTF-16 units, as `String.length`), composing
 * the agent's head/tail parts with our cut so the omitted counts stay exact (C-MCP-6). Cuts prefer line
 * boundaries and never split a surrogate pair.
 */
export function keepHeadTail(view: StreamView, budget: number): KeptStream {
  const gap = hasGap(view);
  if (!gap && view.head.length <= budget) {
    return { text: view.head, omittedBytes: 0, omittedLines: 0, truncated: false };
  }
  if (gap && budget >= fullLength(view)) return compose(view.head, '', view.gapBytes, view.gapLines, '', view.tail);
  const available = Math.max(0, budget - MARKER_RESERVE);
  let headBudget = Math.floor(available * HEAD_SHARE);
  let tailBudget = available - headBudget;

  if (!gap) {
    const text = view.head;
    const headEnd = snapHeadEnd(text, headBudget, 0);
    const tailStart = snapTailStart(text, Math.max(headEnd, text.length - tailBudget), text.length);
    return compose(text.slice(0, headEnd), text.slice(headEnd, tailStart), 0, 0, '', text.slice(tailStart));
  }

  // Give what one side cannot use to the other.
  if (view.head.length < headBudget) {
    tailBudget += headBudget - view.head.length;
    headBudget = view.head.length;
  }
  if (view.tail.length < tailBudget) {
    headBudget = Math.min(view.head.length, headBudget + tailBudget - view.tail.length);
    tailBudget = view.tail.length;
  }
  const headEnd = snapHeadEnd(view.head, headBudget, 0);
  const tailStart = snapTailStart(view.tail, view.tail.length - tailBudget, view.tail.length);
  return compose(
    view.head.slice(0, headEnd),
    view.head.slice(headEnd),
    view.gapBytes,
    view.gapLines,
    view.tail.slice(0, tailStart),
    view.tail.slice(tailStart),
  );
}

function compose(
  keptHead: string,
  droppedHead: string,
  gapBytes: number,
  gapLines: number,
  droppedTail: string,
  keptTail: string,
): KeptStream {
  const omittedBytes = Buffer.byteLength(droppedHead) + gapBytes + Buffer.byteLength(droppedTail);
  const omittedLines = countNewlines(droppedHead) + gapLines + countNewlines(droppedTail);
  const before = keptHead === '' || keptHead.endsWith('\n') ? keptHead : `${keptHead}\n`;
  const after = keptTail === '' ? '' : `\n${keptTail}`;
  return { text: `${before}${omissionMarker(omittedBytes, omittedLines)}${after}`, omittedBytes, omittedLines, truncated: true };
}

/** End index of a kept head of about `length` characters: just after a newline when one is close. */
function snapHeadEnd(text: string, length: number, min: number): number {
  let end = Math.max(min, Math.min(length, text.length));
  if (end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  if (end === text.length) return end;
  // A newline right at the cut belongs to the head, so "head\n[marker]" is never ambiguous.
  if (text[end] === '\n') return end + 1;
  const newline = text.lastIndexOf('\n', end - 1);
  if (newline >= 0 && newline + 1 >= end - Math.floor(length * SNAP_WINDOW) && newline + 1 > min) return newline + 1;
  return end;
}

/** Start index of a kept tail beginning near `start`: at a line start when one is close. */
function snapTailStart(text: string, start: number, max: number): number {
  let begin = Math.min(Math.max(0, start), max);
  if (begin > 0 && begin < text.length && isLowSurrogate(text.charCodeAt(begin))) begin += 1;
  if (begin === 0 || begin >= text.length) return begin;
  if (text[begin - 1] === '\n') return begin;
  const window = Math.floor((text.length - begin) * SNAP_WINDOW);
  const newline = text.indexOf('\n', begin);
  if (newline >= 0 && newline + 1 <= begin + window && newline + 1 < max) return newline + 1;
  return begin;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

/**
 * The annotation timestamp format: RFC 3339, UTC, whole seconds (`2026-07-29T17:38:22Z`), as the Go system
 * wrote it (Go §3.2, C-K8S-1), so pods written by either implementation are read the same way.
 */

// Strict RFC 3339 (date-time with a mandatory offset); `Date.parse` alone accepts many other shapes and
// silently rolls invalid days over (`02-30` → March 2), so the fields are checked by a round trip.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Formats `date` as RFC 3339 UTC truncated to whole seconds, e.g. `2026-07-29T17:38:22Z`. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * Parses an RFC 3339 timestamp (any offset, optional fraction). Anything else — including impossible dates
 * such as February 30 — gives `undefined`; it never throws (annotations are untrusted input).
 */
export function parseTimestamp(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fields = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    fields.getUTCFullYear() !== year ||
    fields.getUTCMonth() !== month - 1 ||
    fields.getUTCDate() !== day ||
    fields.getUTCHours() !== hour ||
    fields.getUTCMinutes() !== minute ||
    fields.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  const offsetHours = m[10] === undefined ? 0 : Number(m[10]);
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offsetMs = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const fractionMs = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return new Date(fields.getTime() + fractionMs - offsetMs);
}

/**
 * Formats `date` as a `metav1.MicroTime`: RFC 3339 UTC with exactly six fractional digits
 * (`2026-07-29T17:38:22.123000Z`). Real API servers reject a Lease time with client-node's default three digits
 * (stack-notes C), so Lease times are always written through this.
 */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

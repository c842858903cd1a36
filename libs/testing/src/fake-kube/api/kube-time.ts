import { randomInt } from 'node:crypto';

/** Source of "now" for server-set timestamps (injectable for tests). */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** RFC 3339 with second precision (`2026-01-01T00:00:00Z`), the format of `metav1.Time`. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with six fractional digits, the format of `metav1.MicroTime`. */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

// The alphabet of `k8s.io/apimachinery/pkg/util/rand.String` (no vowels, no ambiguous characters).
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Five random characters, as appended to `metadata.generateName`. */
export function randomNameSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

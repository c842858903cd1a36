/**
 * Durations in Go `time.ParseDuration` syntax (`300ms`, `90s`, `1h30m`, `-1.5h`), the syntax the Go server's
 * flags used (Go §7), so existing deployments keep working (C-CFG-1).
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // µ (micro sign)
  '\u03bcs': 1e-3, // μ (Greek mu)
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export type DurationResult = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string };

const NUMBER = /^(\d+(?:\.\d*)?|\.\d+)/;
const UNIT = /^[^\d.]+/;

/**
 * Parses a Go duration into milliseconds (fractions kept for sub-millisecond units). Never throws; the error
 * text follows Go's wording (`time: invalid duration "x"`, `missing unit`, `unknown unit`) minus the `time: `.
 */
export function parseDuration(text: string): DurationResult {
  const invalid = (reason = 'invalid duration'): DurationResult => ({ ok: false, error: `${reason} ${JSON.stringify(text)}` });
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return { ok: true, ms: 0 };
  if (rest === '') return invalid();
  let total = 0;
  while (rest !== '') {
    const number = NUMBER.exec(rest);
    if (!number) return invalid();
    rest = rest.slice(number[0].length);
    const unit = UNIT.exec(rest);
    if (!unit) return invalid('missing unit in duration');
    const factor = UNIT_MS[unit[0]];
    if (factor === undefined) {
      return { ok: false, error: `unknown unit ${JSON.stringify(unit[0])} in duration ${JSON.stringify(text)}` };
    }
    rest = rest.slice(unit[0].length);
    total += Number(number[1]) * factor;
  }
  if (!Number.isFinite(total)) return invalid();
  return { ok: true, ms: sign * total };
}

/**
 * Formats milliseconds compactly in the same syntax (`1h30m`, `90s` is shown as `1m30s`, `250ms`), so a parsed
 * value can be printed back (help texts, logs) and parsed again.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${trimNumber(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  let out = sign;
  if (hours > 0) out += `${hours}h`;
  if (minutes > 0) out += `${minutes}m`;
  if (seconds > 0) out += `${trimNumber(seconds)}s`;
  return out;
}

function trimNumber(value: number): string {
  return String(Number(value.toFixed(3)));
}

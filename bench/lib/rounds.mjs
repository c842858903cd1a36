// Alternating rounds (A/B/A/B…): on a shared, loaded machine a single run of each contestant measures the
// machine's mood that minute. Each round times every contestant once, in an order that flips every round, so
// background load lands on all of them alike; the figure is the median of the per-round p50s with their spread.
import { median, ms, percentile, timeCalls } from './stats.mjs';

/**
 * Runs `rounds` rounds; in each, every contestant `{ label, call }` is timed `calls` times (after `warmup` untimed
 * calls in its first round). Resolves with per contestant: `{ label, rounds: [durations…], all: durations }`.
 */
export async function alternatingRounds(contestants, { rounds = 3, calls = 400, warmup = 50 } = {}) {
  const results = contestants.map(({ label }) => ({ label, rounds: [], all: [] }));
  for (let round = 0; round < rounds; round++) {
    const order = contestants.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const durations = await timeCalls(contestants[i].call, calls, round === 0 ? warmup : 0);
      results[i].rounds.push(durations);
      results[i].all.push(...durations);
    }
  }
  return results;
}

/** Median of the rounds' p50s, and their range. */
export function roundP50(result) {
  const p50s = result.rounds.map((durations) => median(durations));
  return { median: median(p50s), min: Math.min(...p50s), max: Math.max(...p50s) };
}

/** `1.23 ms (1.10–1.40)`: median p50 over rounds with the range of the round p50s. */
export function p50WithSpread(result) {
  const { median: mid, min, max } = roundP50(result);
  return `${ms(mid)} (${min.toFixed(2)}–${max.toFixed(2)})`;
}

export function p99Of(result) {
  return ms(percentile(result.all, 99));
}

/** Per-round ratios a/b of p50s (same round, same machine load). */
function roundRatios(a, b) {
  return a.rounds.map((durations, i) => median(durations) / median(b.rounds[i]));
}

/** The median of the per-round ratios a/b: the figure a ratio goal is judged on. */
export function ratioMedian(a, b) {
  return median(roundRatios(a, b));
}

/** Per-round ratio a/b of p50s: median and range, e.g. `0.82× (0.78–0.90)`. */
export function ratioWithSpread(a, b) {
  const ratios = roundRatios(a, b);
  return `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

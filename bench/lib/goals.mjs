// The benchmarks' goals, each with this run's figure and a verdict. Every suite states its goals beside its own
// tables; `npm run bench` then prints them all together at the end, so one run says where every goal stands
// (issue 11: "all in `npm run bench`, same run, side by side"). A goal is only recorded by the suite that measured
// it: a suite that was skipped, or not selected, leaves its goals out rather than reporting them as met.
import { ms, printTable } from './stats.mjs';

const recorded = [];

/** One goal: `suite` that measured it, `goal` as the issue states it, `figure` as printed, `met` the verdict. */
function recordGoal(suite, goal, figure, met) {
  recorded.push({ suite, goal, figure, met: Boolean(met) });
}

/** A duration goal `value ≤ limit` (both ms). */
export function atMostMs(suite, what, value, limit) {
  recordGoal(suite, `${what} ≤ ${ms(limit)}`, ms(value), value <= limit);
}

/** A ratio goal, e.g. ours / the peer `≤ 0.8×` or spawn / ours `≥ 4×`. */
export function ratioGoal(suite, what, value, limit) {
  const { text, met } = bound(limit);
  recordGoal(suite, `${what} ${text}×`, `${value.toFixed(2)}×`, met(value));
}

/** Any other quantity (MB, calls/s, requests, %), with its unit. */
export function quantityGoal(suite, what, value, { unit, digits = 1, ...limit }) {
  const { text, met } = bound(limit);
  recordGoal(suite, `${what} ${text} ${unit}`, `${value.toFixed(digits)} ${unit}`, met(value));
}

/** `{ atMost }` or `{ atLeast }` as text and as a check. */
function bound({ atMost, atLeast }) {
  return atMost !== undefined
    ? { text: `≤ ${atMost}`, met: (value) => value <= atMost }
    : { text: `≥ ${atLeast}`, met: (value) => value >= atLeast };
}

/** Prints every recorded goal with ✓ / ✗ and a count; nothing when no suite recorded one. */
export function printGoals() {
  if (recorded.length === 0) return;
  const missed = recorded.filter((goal) => !goal.met).length;
  printTable(
    `Goals of this run: ${recorded.length - missed} of ${recorded.length} met (each goal's suite above has the details)`,
    ['suite', 'goal', 'this run', 'met'],
    recorded.map(({ suite, goal, figure, met }) => [suite, goal, figure, met ? '✓' : '✗']),
  );
}

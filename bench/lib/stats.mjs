// Small helpers shared by the benchmarks: percentiles and a plain-text table printer.

/** Percentile (nearest rank) of an array of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(values) {
  return percentile(values, 50);
}

/** Formats milliseconds with sensible precision. */
export function ms(value) {
  return `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`;
}

/** Prints rows (arrays of strings) as an aligned table with a title. */
export function printTable(title, header, rows) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => String(row[i]).length)));
  const line = (row) => `| ${row.map((cell, i) => String(cell).padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** Times `fn` `count` times (after `warmup` untimed runs), returning durations in ms. */
export async function timeCalls(fn, count, warmup = 100) {
  for (let i = 0; i < warmup; i++) await fn();
  const durations = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await fn();
    durations.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return durations;
}

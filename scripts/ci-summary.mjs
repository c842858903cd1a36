#!/usr/bin/env node
// Prints the plain closing line CI recognises ("N passed, N failed, N skipped") from vitest's JSON reports: one
// per test run (the machine's Node, the images' LTS), added up into one line, printed last.
//
// Under CI=true a skipped test is also a failure (C-TEST-1): a CI run must not pass by skipping what it was meant
// to prove. Tests gated on a missing tool already fail there (test/support/prerequisites.ts); this catches any
// skip that did not come through the gate (an `it.skip`, a `describe.skipIf`), and names each one.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const SKIPPED = new Set(['skipped', 'pending', 'todo']);
const inCi = process.env.CI === 'true';
const files = process.argv.length > 2 ? process.argv.slice(2) : ['.vitest-results.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`${file}: no test report: that test run did not complete`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  // A file that failed with no failed test counts as one failure: a suite that failed to load, or an error in a
  // hook or a teardown after its tests passed (vitest fails the file; its tests alone would say all is well).
  const failedSuites = (report.testResults ?? []).filter((r) => r.status === 'failed' && !(r.assertionResults ?? []).some((a) => a.status === 'failed')).length;
  const run = { passed: report.numPassedTests, failed: report.numFailedTests + failedSuites, skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0) };
  console.error(`${file}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`);
  if (inCi && run.skipped > 0) {
    console.error(`${file}: under CI=true a skipped test is a failure:`);
    for (const result of report.testResults ?? []) {
      for (const test of result.assertionResults ?? []) {
        if (SKIPPED.has(test.status)) console.error(`  skipped: ${relative(process.cwd(), result.name ?? '?')} › ${test.fullName}`);
      }
    }
    run.failed += run.skipped;
  }
  passed += run.passed;
  failed += run.failed;
  skipped += run.skipped;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

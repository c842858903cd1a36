#!/usr/bin/env node
// Prints the plain closing line CI recognises ("N passed, N failed, N skipped") from vitest's JSON report.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-results.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  console.error(`no test report at ${file}: the test run did not complete`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A suite that failed to load counts as a failure even though it has no failed test.
const failedSuites = (report.testResults ?? []).filter((r) => r.status === 'failed' && r.assertionResults?.length === 0).length;
const failed = report.numFailedTests + failedSuites;
console.log(`${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Runs the leaky fixtures of test/integration/suite/leftovers.test.ts with the suite's leftovers check, two files at
// a time as the suite runs them (beside.fixture.ts waits for process.fixture.ts's leaks, so two workers it needs).
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.fixture.ts'],
    pool: 'forks',
    maxWorkers: 2,
    setupFiles: [fileURLToPath(new URL('../leftovers.setup.ts', import.meta.url))],
  },
});

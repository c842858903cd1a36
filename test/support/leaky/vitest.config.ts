import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Runs the leaky fixtures of test/integration/suite/leftovers.test.ts with the suite's leftovers check.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.fixture.ts'],
    pool: 'forks',
    setupFiles: [fileURLToPath(new URL('../leftovers.setup.ts', import.meta.url))],
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Runs the gated fixture of test/integration/suite/prerequisites.test.ts, with and without CI=true.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.fixture.ts'],
    pool: 'forks',
  },
});

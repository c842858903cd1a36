import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const lib = (name: string): string => fileURLToPath(new URL(`./libs/${name}/src/index.ts`, import.meta.url));

// Vite does not read tsconfig `paths`; mirror them here (stack-notes A.6).
const alias = {
  '@cli-mcp/auth': lib('auth'),
  '@cli-mcp/agent-client': lib('agent-client'),
  '@cli-mcp/egress': lib('egress'),
  '@cli-mcp/podspec': lib('podspec'),
  // Each `/client-node` entry before its lib, which would otherwise match it as a prefix.
  '@cli-mcp/session/client-node': fileURLToPath(new URL('./libs/session/src/client-node.ts', import.meta.url)),
  '@cli-mcp/session': lib('session'),
  '@cli-mcp/kube/client-node': fileURLToPath(new URL('./libs/kube/src/client-node.ts', import.meta.url)),
  '@cli-mcp/kube': lib('kube'),
  '@cli-mcp/testing': lib('testing'),
  '@cli-mcp/common': lib('common'),
};

// C-TEST-1: a file that leaves anything behind fails (test/support/leftovers.setup.ts).
const LEFTOVERS = fileURLToPath(new URL('./test/support/leftovers.setup.ts', import.meta.url));

/** `.sh` files the agent imports whole (protocol.sh), as the bundle's esbuild `text` loader gives them. */
const shellText = {
  name: 'shell-text',
  enforce: 'pre' as const,
  load(id: string) {
    return id.endsWith('.sh') ? `export default ${JSON.stringify(readFileSync(id, 'utf8'))};` : undefined;
  },
};

// Nest DI needs decorator metadata, which only SWC/tsc emit (stack-notes A.7).
const plugins = [
  shellText,
  swc.vite({
    module: { type: 'es6' },
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
    },
  }),
];

export default defineConfig({
  resolve: { alias },
  plugins,
  test: {
    pool: 'forks',
    // Two files at a time on every tier, e2e included (docs/testing.md, "Workers"): a pass on 2 cores ≈ 480 → ≈ 290 s.
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        plugins,
        // Unit specs share their worker's module cache (no fresh fork and import per file: 69 s → 19 s for 2,042 tests);
        // each spec keeps its own state, which `vitest --project unit --sequence.shuffle` checks (docs/testing.md).
        test: { name: 'unit', include: ['{apps,libs}/**/*.spec.ts'], testTimeout: 10_000, setupFiles: [LEFTOVERS], isolate: false },
      },
      {
        resolve: { alias },
        plugins,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000, setupFiles: [LEFTOVERS] },
      },
      {
        resolve: { alias },
        plugins,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000, setupFiles: [LEFTOVERS] },
      },
    ],
  },
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './image-harness.js';

/** The built outputs the image checks assemble from (`npm run build`, as `npm test` and CI run first). */
const OUTPUTS = ['dist/mcp-server/main.js', 'dist/apps/mcp-server/src/main.js', 'dist/apps/sandbox-controller/src/main.js', 'dist/sandbox-controller/main.js', 'dist/sandbox-agent/main.js', 'dist/libs/testing/src/dev-cluster.main.js'];

export function agentBuiltProblem(): string | undefined {
  const missing = OUTPUTS.filter((path) => !existsSync(join(REPO_ROOT, path)));
  return missing.length === 0 ? undefined : `not built (${missing.join(', ')}); run npm run build`;
}

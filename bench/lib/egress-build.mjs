// libs/egress is not part of an app build yet (apps/egress-gateway, issue 20 item 3, will import it), so the
// egress bench bundles the library with esbuild for the run, under node_modules/.cache so that its dependencies
// resolve; the caller removes the dir.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function buildEgress() {
  const cache = new URL('../../node_modules/.cache/', import.meta.url).pathname;
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'egress-bench-'));
  const outfile = join(dir, 'egress.mjs');
  await build({
    entryPoints: [new URL('../../libs/egress/src/index.ts', import.meta.url).pathname],
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, packages: 'external', logLevel: 'error',
  });
  return { dir, module: outfile };
}

/**
 * C-TEST-1: every test file runs with a TMPDIR of its own and a marker in its environment, and fails when it
 * leaves a process, a listening socket, a mount or a temp entry behind (test/support/leftovers.ts says how each is
 * attributed). Registered first, so its afterAll runs after the file's own (vitest runs after-hooks as a stack).
 * What is still ending gets a bounded grace: a process killed in the file's last hook may take a moment to exit.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { leftoversOf } from './leftovers.js';

// Overridable for the check's own test (test/integration/suite/leftovers.test.ts), which wants its failures fast.
const GRACE_MS = Number(process.env['CLI_MCP_LEFTOVERS_GRACE_MS'] ?? 10_000);
const MARKER_NAME = 'CLI_MCP_TEST_FILE';

const outerTmp = tmpdir();
const tmp = mkdtempSync(join(outerTmp, 't-'));
// It stands in for /tmp, so it has its mode: processes of other UIDs the tests start (sandboxes, pods as UID 1001) use it.
chmodSync(tmp, 0o1777);
const marker = `${MARKER_NAME}=${randomUUID()}`;
const previousTmp = process.env['TMPDIR'];
process.env['TMPDIR'] = tmp;
// npm (on Node 22+) turns on Node's compile cache, kept in `<tmpdir>/node-compile-cache`: off for what tests run,
// so no test leaves it and no process under test behaves differently for a cache another file filled.
process.env['NODE_DISABLE_COMPILE_CACHE'] = '1';
process.env[MARKER_NAME] = marker.slice(MARKER_NAME.length + 1);

afterAll(async () => {
  const scope = { pid: process.pid, marker, tmp };
  let left = leftoversOf(scope);
  for (const deadline = Date.now() + GRACE_MS; left.length > 0 && Date.now() < deadline; left = leftoversOf(scope)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (previousTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = previousTmp;
  rmSync(tmp, { recursive: true, force: true });
  if (left.length > 0) throw new Error(`this test file left behind (C-TEST-1):\n- ${left.join('\n- ')}`);
}, GRACE_MS + 5_000);

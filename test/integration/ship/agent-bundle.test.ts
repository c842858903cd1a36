/**
 * The sandbox agent's one-file bundle takes only the wire contract of @cli-mcp/agent-client, never the server's
 * HTTP client and undici (scripts/bundle-agent.mjs): the agent's start-up and idle footprint depend on it
 * (docs/agent.md, "Start-up and footprint").
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { agentBuiltProblem } from './support/build-state.js';
import { REPO_ROOT } from './support/image-harness.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const BUNDLE = join(REPO_ROOT, 'dist/sandbox-agent/main.js');

describeWhenReady('the sandbox agent bundle', agentBuiltProblem(), () => {
  it('holds the wire contract (its constants) and no undici', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    // Not vacuous: the C-AG-8 notice of wire.ts is in it (matches only, never the whole bundle, on failure).
    expect(text.match(/\[session state was reset /g)).toHaveLength(1);
    expect(text.match(/UND_ERR_\w*|undici/g) ?? []).toEqual([]);
    expect(statSync(BUNDLE).size).toBeLessThan(200 * 1024);
  });

  // Issue 11, round 4: node:fs/promises loads readline and the fs watchers (≈ 1.1 MB per idle agent on Node 24).
  // Issue 19 item 8: node:crypto maps OpenSSL (≈ 0.7 MB); it is fetched at first use (libs/auth node-crypto.ts).
  it('loads no node:fs/promises nor node:crypto at start (the built-ins it requires are the ones the agent needs then)', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    const required = [...text.matchAll(/require\("(node:[\w/]+)"\)/g)].map((match) => match[1]);
    expect(new Set(required)).toEqual(new Set(['node:child_process', 'node:fs', 'node:http', 'node:net', 'node:os', 'node:path', 'node:util']));
    expect(text.match(/getBuiltinModule\("node:crypto"\)/g)).toHaveLength(1);
  });
});

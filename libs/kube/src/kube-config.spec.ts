import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from './kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-config-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'kubeconfig');
writeFileSync(file, JSON.stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
  clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from('not-a-real-ca').toString('base64') } }],
  users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
}));

describe(loadKubeConfig.name, () => {
  it('hands every request the same keep-alive agent (client-node 1.4 made one per request: no reuse)', async () => {
    const config = loadKubeConfig(file);
    const first = (await config.applyToFetchOptions({})).agent as { keepAlive?: boolean } | undefined;
    const second = (await config.applyToFetchOptions({})).agent;
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(first!.keepAlive).toBe(true);
    (first as unknown as { destroy(): void }).destroy();
  });
});

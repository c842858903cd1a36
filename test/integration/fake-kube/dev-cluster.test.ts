import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AuthenticationV1Api } from '@kubernetes/client-node';
import { repoRoot } from '@cli-mcp/testing';
import { expect, it } from 'vitest';
import { describeWhenReady } from '../../support/prerequisites.js';
import { clientsFor } from './support.js';

const entry = join(repoRoot(), 'dist/libs/testing/src/dev-cluster.main.js');
const notBuilt = existsSync(entry) ? undefined : `${entry} is not built (npm run build)`;

describeWhenReady('npm run dev:cluster (built entry)', notBuilt, () => {
  it('prints the kubeconfig path on stdout, serves the API over HTTPS to the --user it names, and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(await mkdtemp(join(tmpdir(), 'dev-cluster-')), 'kubeconfig');
    const child = spawn(process.execPath, [entry, '--no-kubelet', '--kubeconfig', kubeconfig, '--user', 'tok-dev=dev-user'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    try {
      const firstLine = await new Promise<string>((resolveLine, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('\n')) resolveLine(out.split('\n')[0] as string);
        });
        child.once('exit', (code) => reject(new Error(`dev-cluster exited early (${code})`)));
      });
      expect(firstLine).toBe(kubeconfig);
      const written = JSON.parse(await readFile(firstLine, 'utf8')) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
      expect(written.clusters[0]?.cluster['server']).toMatch(/^https:\/\/127\.0\.0\.1:/);
      expect(written.clusters[0]?.cluster['certificate-authority-data']).toBeTruthy();
      expect(written.users[0]?.user).toEqual({ token: 'tok-dev' });
      const { core, kc } = clientsFor(firstLine);
      expect((await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} })).status?.userInfo?.username).toBe('dev-user');
      await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } } });
      expect((await core.listNamespacedPod({ namespace: 'default' })).items.map((p) => p.metadata?.name)).toEqual(['p']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    await rm(dirname(kubeconfig), { recursive: true, force: true });
  });
});

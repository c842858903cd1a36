/**
 * `npm run dev:cluster -- --operator` (issue 21 item 4): the fake cluster with the CRD installed and the BUILT
 * operator running; it prints the sample CR, which kubectl applies and `kubectl wait --for=condition=Ready`
 * sees become Ready; SIGTERM stops the operator and the cluster (exit 0).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@cli-mcp/testing';
import { expect, it } from 'vitest';
import { operatorSkipReason } from './support/operator-stack.js';
import { describeWhenReady, KUBECTL } from '../../support/prerequisites.js';

const entry = join(repoRoot(), 'dist/libs/testing/src/dev-cluster.main.js');
const run = promisify(execFile);

describeWhenReady('npm run dev:cluster -- --operator (built entry)', operatorSkipReason, () => {
  it('installs the CRD, runs the operator, prints a sample CR that becomes Ready, and stops cleanly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dev-operator-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const child = spawn(process.execPath, [entry, '--operator', '--namespace', 'team', '--speedup', '20', '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    const printed = new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('wait --for=condition=Ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`dev-cluster exited early (${code}):\n${stderr}`)));
    });
    const kubectl = async (...args: string[]) => (await run(KUBECTL!, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'kc'), '-n', 'team', ...args], { encoding: 'utf8' })).stdout;
    child.stdout.resume();
    try {
      await printed;
      expect(stderr).toContain('apiVersion: cli-mcp.redhat.com/v1alpha1');
      expect(stderr).toContain('kind: CliMcpInstance');
      await kubectl('apply', '--validate=false', '-f', join(repoRoot(), 'deploy/operator/samples/climcpinstance.yaml'));
      expect(await kubectl('wait', '--for=condition=Ready', 'climcpinstance/oc', '--timeout=60s')).toContain('condition met');
      expect(await kubectl('get', 'climcpinstances')).toMatch(/^oc\s+True\s+Ready\s+2\s+2\s/m);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/operator exited \((0|SIGTERM)\)/);
  }, 90_000);
});

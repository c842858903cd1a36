import { RuntimeCa } from '@cli-mcp/egress';
import { KubeError } from '@cli-mcp/kube';
import { describe, expect, it } from 'vitest';
import type { EgressKubeApi, StoredObject } from './egress-kube-api.port.js';
import { publishSandboxConfigMap } from './sandbox-configmap.js';
import { CaSecretError, loadSharedCa } from './shared-ca.js';

const signal = new AbortController().signal;
const notFound = (): KubeError => new KubeError('not found', 404, 'NotFound');

/** An in-memory namespace; `beforeWrite` runs first on every write, so a test can let "the other replica" win a race. */
class FakeApi implements EgressKubeApi {
  readonly secrets = new Map<string, StoredObject>();
  readonly maps = new Map<string, StoredObject>();
  readonly calls: string[] = [];
  beforeWrite: (() => void) | undefined;
  private version = 0;

  async getSecret(name: string): Promise<StoredObject> {
    this.calls.push(`get secret ${name}`);
    const found = this.secrets.get(name);
    if (!found) throw notFound();
    return found;
  }

  async createTlsSecret(name: string, data: Readonly<Record<string, string>>): Promise<void> {
    this.calls.push(`create secret ${name}`);
    this.race();
    if (this.secrets.has(name)) throw new KubeError('exists', 409, 'AlreadyExists');
    this.secrets.set(name, { name, data, type: 'kubernetes.io/tls' });
  }

  async getConfigMap(name: string): Promise<StoredObject> {
    this.calls.push(`get configmap ${name}`);
    const found = this.maps.get(name);
    if (!found) throw notFound();
    return found;
  }

  async createConfigMap(name: string, data: Readonly<Record<string, string>>): Promise<void> {
    this.calls.push(`create configmap ${name}`);
    this.race();
    if (this.maps.has(name)) throw new KubeError('exists', 409, 'AlreadyExists');
    this.maps.set(name, { name, data, resourceVersion: String(++this.version) });
  }

  async updateConfigMap(name: string, data: Readonly<Record<string, string>>, resourceVersion: string | undefined): Promise<void> {
    this.calls.push(`update configmap ${name}`);
    this.race();
    if (this.maps.get(name)?.resourceVersion !== resourceVersion) throw new KubeError('conflict', 409, 'Conflict');
    this.maps.set(name, { name, data, resourceVersion: String(++this.version) });
  }

  private race(): void {
    const run = this.beforeWrite;
    this.beforeWrite = undefined;
    run?.();
  }
}

describe('loadSharedCa (C-EGR-4: one CA for every replica)', () => {
  it('creates the Secret when absent, and a second start loads the same CA', async () => {
    const api = new FakeApi();
    const first = await loadSharedCa(api, 'ns', 'ca', signal);
    const second = await loadSharedCa(api, 'ns', 'ca', signal);
    expect([first.created, second.created]).toEqual([true, false]);
    expect(second.ca.certPem).toBe(first.ca.certPem);
  });

  it('a lost create race (409 AlreadyExists) reads and uses the winner\'s CA', async () => {
    const api = new FakeApi();
    const winner = await RuntimeCa.generatePem('winner');
    api.beforeWrite = () => api.secrets.set('ca', { name: 'ca', data: { 'tls.crt': winner.cert, 'tls.key': winner.key } });
    const loaded = await loadSharedCa(api, 'ns', 'ca', signal);
    expect(loaded.created).toBe(false);
    expect(loaded.ca.certPem.trim()).toBe(winner.cert.trim());
    expect(api.calls).toEqual(['get secret ca', 'create secret ca', 'get secret ca']);
  });

  it('an unusable Secret is a CaSecretError naming it', async () => {
    const api = new FakeApi();
    api.secrets.set('ca', { name: 'ca', data: { 'tls.crt': 'x' } });
    await expect(loadSharedCa(api, 'ns', 'ca', signal)).rejects.toThrow(new CaSecretError('the CA Secret ns/ca (--ca-secret) has no tls.key; delete it to have a new CA minted, or fill it with a P-256 CA'));
    const other = await RuntimeCa.generatePem('other');
    const mine = await RuntimeCa.generatePem('mine');
    api.secrets.set('ca', { name: 'ca', data: { 'tls.crt': mine.cert, 'tls.key': other.key } });
    await expect(loadSharedCa(api, 'ns', 'ca', signal)).rejects.toThrow(/the CA Secret ns\/ca \(--ca-secret\) is not a usable CA: the egress CA key does not match its certificate/);
  });
});

describe('publishSandboxConfigMap', () => {
  const data = { 'ca.crt': 'CERT', kubeconfig: 'KUBECONFIG' };

  it('creates, then leaves equal content alone, then updates changed content', async () => {
    const api = new FakeApi();
    expect(await publishSandboxConfigMap(api, 'm', data, signal)).toBe('created');
    expect(await publishSandboxConfigMap(api, 'm', data, signal)).toBe('unchanged');
    expect(await publishSandboxConfigMap(api, 'm', { ...data, kubeconfig: 'NEW' }, signal)).toBe('updated');
    expect(api.maps.get('m')?.data).toEqual({ ...data, kubeconfig: 'NEW' });
  });

  it('a lost race on create or update reads again: the other replica\'s equal write is kept', async () => {
    const api = new FakeApi();
    api.beforeWrite = () => api.maps.set('m', { name: 'm', data, resourceVersion: '7' });
    expect(await publishSandboxConfigMap(api, 'm', data, signal)).toBe('unchanged');
    api.maps.set('m', { name: 'm', data: { stale: 'x' }, resourceVersion: '8' });
    api.beforeWrite = () => api.maps.set('m', { name: 'm', data, resourceVersion: '9' });
    expect(await publishSandboxConfigMap(api, 'm', data, signal)).toBe('unchanged');
    expect(api.calls.filter((c) => c.startsWith('update'))).toHaveLength(1);
  });
});

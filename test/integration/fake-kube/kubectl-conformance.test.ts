import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { formatMicroTime, startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';
import { apiError, clientsFor, Kubectl } from './support.js';


/**
 * The same scenarios through the real kubectl and the real client-node: both must observe the same objects,
 * resourceVersions and errors (stack-notes E.3).
 */
describeWhenReady('fake API server conformance: kubectl vs client-node', KUBECTL_PROBLEM, () => {
  let cluster: FakeCluster;
  let kubectl: Kubectl;
  let core: CoreV1Api;
  let workDir: string;
  let nsCounter = 0;
  const namespace = (): string => `conf-${++nsCounter}`;

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false });
    kubectl = await Kubectl.create(KUBECTL as string, cluster.kubeconfigPath);
    core = clientsFor(cluster.kubeconfigPath).core;
    workDir = await mkdtemp(join(tmpdir(), 'fake-kube-conf-'));
  });
  afterAll(async () => {
    await cluster?.stop();
    await kubectl?.remove();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  async function manifest(name: string, body: unknown): Promise<string> {
    const path = join(workDir, `${name}.json`);
    await writeFile(path, JSON.stringify(body));
    return path;
  }

  const pod = (name: string, labels: Record<string, string>): V1Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'sandbox', image: 'sandbox:test' }] },
  });

  it('lists with set-based selectors: kubectl -o json and client-node return the same objects and resourceVersions', async () => {
    const ns = namespace();
    await core.createNamespacedPod({ namespace: ns, body: pod('a', { app: 'x', tier: 'web' }) });
    await core.createNamespacedPod({ namespace: ns, body: pod('b', { app: 'y', tier: 'db' }) });
    await core.createNamespacedPod({ namespace: ns, body: pod('c', { app: 'x', gone: 'yes' }) });
    await core.createNamespacedPod({ namespace: ns, body: pod('d', { app: 'z' }) });
    const selector = 'app in (x, y),!gone,tier notin (cache)';

    const viaKubectl = await kubectl.run(['get', 'pods', '-n', ns, '-l', selector, '-o', 'json']);
    expect(viaKubectl.code, viaKubectl.stderr).toBe(0);
    const kubectlItems = (JSON.parse(viaKubectl.stdout) as { items: V1Pod[] }).items;
    const viaClient = await core.listNamespacedPod({ namespace: ns, labelSelector: selector });

    const summary = (items: V1Pod[]): string[] => items.map((p) => `${p.metadata?.name}@${p.metadata?.resourceVersion}/${p.metadata?.uid}`);
    expect(summary(kubectlItems)).toEqual(summary(viaClient.items));
    expect(kubectlItems.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
    // kubectl asked for 500 per page, as it always does.
    const kubectlList = cluster.requests.entries({ verb: 'list', resource: 'pods', namespace: ns }).find((r) => r.userAgent?.startsWith('kubectl/'));
    expect(kubectlList?.query['limit']).toBe('500');
  });

  it('create -f --validate=false, label, annotate and patch --type=merge are seen by client-node', async () => {
    const ns = namespace();
    const file = await manifest('create', pod('web', { app: 'web' }));
    const created = await kubectl.run(['create', '-n', ns, '-f', file, '--validate=false']);
    expect(created).toMatchObject({ code: 0, stdout: 'pod/web created\n' });
    const createRequest = cluster.requests.last({ verb: 'create', resource: 'pods' });
    expect(createRequest).toMatchObject({ contentType: 'application/json', query: { fieldManager: 'kubectl-create', fieldValidation: 'Ignore' } });

    expect((await kubectl.run(['label', '-n', ns, 'pod', 'web', 'tier=front'])).stdout).toBe('pod/web labeled\n');
    expect((await kubectl.run(['annotate', '-n', ns, 'pod', 'web', 'note=hello'])).stdout).toBe('pod/web annotated\n');
    expect((await kubectl.run(['patch', '-n', ns, 'pod', 'web', '--type=merge', '-p', '{"metadata":{"labels":{"app":null,"patched":"yes"}}}'])).stdout).toBe('pod/web patched\n');
    const patches = cluster.requests.entries({ verb: 'patch', resource: 'pods', namespace: ns });
    expect(patches.map((r) => [r.contentType, r.query['fieldManager']])).toEqual([
      ['application/merge-patch+json', 'kubectl-label'],
      ['application/merge-patch+json', 'kubectl-annotate'],
      ['application/merge-patch+json', 'kubectl-patch'],
    ]);

    const read = await core.readNamespacedPod({ namespace: ns, name: 'web' });
    expect(read.metadata?.labels).toEqual({ tier: 'front', patched: 'yes' });
    expect(read.metadata?.annotations).toEqual({ note: 'hello' });
    const viaKubectl = JSON.parse((await kubectl.run(['get', '-n', ns, 'pod', 'web', '-o', 'json'])).stdout) as V1Pod;
    expect(viaKubectl.metadata?.resourceVersion).toBe(read.metadata?.resourceVersion);
    expect(viaKubectl.metadata?.uid).toBe(read.metadata?.uid);
  });

  it('kubectl patch without --type (strategic merge) changes labels and annotations as a merge patch would', async () => {
    const ns = namespace();
    await core.createNamespacedPod({ namespace: ns, body: pod('smp', { app: 'smp', old: 'yes' }) });
    const patched = await kubectl.run(['patch', '-n', ns, 'pod', 'smp', '-p', '{"metadata":{"labels":{"old":null,"tier":"front"},"annotations":{"note":"hi"}}}']);
    expect(patched, patched.stderr).toMatchObject({ code: 0, stdout: 'pod/smp patched\n' });
    expect(cluster.requests.last({ verb: 'patch', resource: 'pods', namespace: ns })).toMatchObject({ contentType: 'application/strategic-merge-patch+json', status: 200 });
    const read = await core.readNamespacedPod({ namespace: ns, name: 'smp' });
    expect(read.metadata?.labels).toEqual({ app: 'smp', tier: 'front' });
    expect(read.metadata?.annotations).toEqual({ note: 'hi' });
    // Lists need per-field merge keys the fake does not implement: a clear 415 naming the field, nothing changed.
    const refused = await kubectl.run(['patch', '-n', ns, 'pod', 'smp', '-p', '{"metadata":{"finalizers":["example.com/keep"]}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('metadata.finalizers');
    expect((await core.readNamespacedPod({ namespace: ns, name: 'smp' })).metadata?.resourceVersion).toBe(read.metadata?.resourceVersion);
  });

  it('reports NotFound and AlreadyExists with the same wording to both clients', async () => {
    const ns = namespace();
    const missing = await kubectl.run(['get', '-n', ns, 'pod', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): pods "nope" not found');
    const notFound = await apiError(core.readNamespacedPod({ namespace: ns, name: 'nope' }));
    expect(notFound).toMatchObject({ code: 404, status: { reason: 'NotFound', message: 'pods "nope" not found' } });

    const file = await manifest('dup', pod('dup', {}));
    await kubectl.run(['create', '-n', ns, '-f', file, '--validate=false']);
    const again = await kubectl.run(['create', '-n', ns, '-f', file, '--validate=false']);
    expect(again.stderr.trim()).toBe(`Error from server (AlreadyExists): error when creating "${file}": pods "dup" already exists`);
    const conflict = await apiError(core.createNamespacedPod({ namespace: ns, body: pod('dup', {}) }));
    expect(conflict).toMatchObject({ code: 409, status: { reason: 'AlreadyExists', message: 'pods "dup" already exists' } });
  });

  it('deletes through either client', async () => {
    const ns = namespace();
    await core.createNamespacedPod({ namespace: ns, body: pod('one', {}) });
    await core.createNamespacedPod({ namespace: ns, body: pod('two', {}) });
    expect((await kubectl.run(['delete', '-n', ns, 'pod', 'one'])).stdout).toBe('pod "one" deleted\n');
    expect((await apiError(core.readNamespacedPod({ namespace: ns, name: 'one' }))).code).toBe(404);
    const deleted = await core.deleteNamespacedPod({ namespace: ns, name: 'two' });
    expect(deleted.metadata?.name).toBe('two');
    expect((await kubectl.run(['get', '-n', ns, 'pods', '-o', 'name'])).stdout).toBe('');
  });

  it('kubectl get -w sees ADDED, then MODIFIED with the resourceVersion of a client-node merge patch', async () => {
    const ns = namespace();
    const created = await core.createNamespacedPod({ namespace: ns, body: pod('watched', { app: 'w' }) });
    const watch = kubectl.background([
      'get', 'pods', '-n', ns, '-w', '--output-watch-events',
      '-o', 'jsonpath={.type} {.object.metadata.name} {.object.metadata.resourceVersion}{"\\n"}',
    ]);
    try {
      await watch.waitForLines(1);
      // The list → watch handover: kubectl watches from the list's resourceVersion.
      await cluster.server.whenWatching({ resource: 'pods', namespace: ns });
      const patched = await core.patchNamespacedPod(
        { namespace: ns, name: 'watched', body: { metadata: { labels: { step: 'two' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      const lines = await watch.waitForLines(2);
      expect(lines.slice(0, 2)).toEqual([`ADDED watched ${created.metadata?.resourceVersion}`, `MODIFIED watched ${patched.metadata?.resourceVersion}`]);
      const watchRequest = cluster.requests.last({ verb: 'watch', resource: 'pods', namespace: ns });
      expect(watchRequest?.query['resourceVersion']).toBe(created.metadata?.resourceVersion);
    } finally {
      await watch.stop();
    }
  });

  it('serves leases (coordination.k8s.io) with MicroTime to both clients', async () => {
    const ns = namespace();
    const { coordination } = clientsFor(cluster.kubeconfigPath);
    const renewTime = formatMicroTime(new Date());
    const lease = await coordination.createNamespacedLease({
      namespace: ns,
      body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: renewTime as unknown as Date } },
    });
    const viaKubectl = JSON.parse((await kubectl.run(['get', '-n', ns, 'lease', 'leader', '-o', 'json'])).stdout) as Record<string, { renewTime?: string; resourceVersion?: string }>;
    expect(viaKubectl['spec']?.renewTime).toBe(renewTime);
    expect(viaKubectl['metadata']?.resourceVersion).toBe(lease.metadata?.resourceVersion);
    const missing = await kubectl.run(['get', '-n', ns, 'lease', 'nope']);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): leases.coordination.k8s.io "nope" not found');
  });

  it('creates a Secret from JSON with stringData folded into data; protobuf-sending subcommands get 415', async () => {
    const ns = namespace();
    const file = await manifest('secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'auth' }, stringData: { token: 'abc' } });
    expect((await kubectl.run(['create', '-n', ns, '-f', file, '--validate=false'])).code).toBe(0);
    const secret = await core.readNamespacedSecret({ namespace: ns, name: 'auth' });
    expect(secret.data).toEqual({ token: Buffer.from('abc').toString('base64') });
    expect(secret.stringData).toBeUndefined();
    expect(secret.type).toBe('Opaque');

    const generic = await kubectl.run(['create', 'secret', 'generic', 'x', '-n', ns, '--from-literal=a=b']);
    expect(generic.code).not.toBe(0);
    expect(generic.stderr).toContain('the body of the request was in an unknown format - accepted media types include: application/json');
    expect(cluster.requests.last({ verb: 'create', resource: 'secrets', namespace: ns })).toMatchObject({ contentType: 'application/vnd.kubernetes.protobuf', status: 415 });
  });

  it('rejects a failed JSON patch test with the real 422 wording', async () => {
    const ns = namespace();
    await core.createNamespacedPod({ namespace: ns, body: pod('jp', { app: 'a' }) });
    const viaKubectl = await kubectl.run(['patch', '-n', ns, 'pod', 'jp', '--type=json', '-p', '[{"op":"test","path":"/metadata/labels/app","value":"b"}]']);
    expect(viaKubectl.stderr.trim()).toBe('The request is invalid: the server rejected our request due to an error in our request');
    const viaClient = await apiError(core.patchNamespacedPod({ namespace: ns, name: 'jp', body: [{ op: 'test', path: '/metadata/labels/app', value: 'b' }] }));
    expect(viaClient).toMatchObject({ code: 422, status: { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' } });
  });
});

/**
 * The real kubectl against custom resources on the fake (issue 21 item 3): apply of a CRD and a CR (client-side:
 * `--validate=false`, the fake serves no OpenAPI), get by plural and short name with the printer columns
 * (`-o wide` adds priority-1 columns), describe with the CR's Events, `wait --for=condition=Ready`, the 422 of
 * a CEL rule, and delete with `--cascade=orphan`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENTS, startFakeCluster, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';
import { widget, WIDGET_CRD, WIDGET_CRD_NAME } from './fixtures/widget-crd.js';
import { Kubectl } from './support.js';

const NS = 'kcrd';

describeWhenReady('fake API server: kubectl on custom resources', KUBECTL_PROBLEM, () => {
  let cluster: FakeCluster;
  let kubectl: Kubectl;
  let dir: string;

  async function file(name: string, body: unknown): Promise<string> {
    const path = join(dir, `${name}.json`);
    await writeFile(path, JSON.stringify(body));
    return path;
  }
  async function ok(args: string[]): Promise<string> {
    const result = await kubectl.run(args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  }

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false, namespace: NS });
    kubectl = await Kubectl.create(KUBECTL as string, cluster.kubeconfigPath);
    dir = await mkdtemp(join(tmpdir(), 'fake-kube-kcrd-'));
    expect(await ok(['apply', '--validate=false', '-f', await file('crd', WIDGET_CRD)])).toBe(`customresourcedefinition.apiextensions.k8s.io/${WIDGET_CRD_NAME} created\n`);
  });
  afterAll(async () => {
    await cluster?.stop();
    await kubectl?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('apply creates and then configures a CR; get prints the printer columns, -o wide adds the priority ones', async () => {
    const manifest = await file('w1', widget('w1', { image: 'nginx:1' }));
    expect(await ok(['apply', '--validate=false', '-f', manifest])).toBe('widget.example.com/w1 created\n');
    expect(await ok(['apply', '--validate=false', '-f', manifest])).toBe('widget.example.com/w1 unchanged\n');
    expect(await ok(['apply', '--validate=false', '-f', await file('w1b', widget('w1', { image: 'nginx:2', replicas: 2 }))])).toBe('widget.example.com/w1 configured\n');
    expect(cluster.requests.last({ verb: 'patch', resource: 'widgets' })?.contentType).toBe('application/merge-patch+json');

    const table = (await ok(['get', 'widgets'])).trim().split('\n').map((line) => line.split(/\s+/));
    expect(table[0]).toEqual(['NAME', 'IMAGE', 'REPLICAS', 'READY', 'AGE']);
    expect(table[1]?.slice(0, 3)).toEqual(['w1', 'nginx:2', '2']);
    const wide = (await ok(['get', 'wd', '-o', 'wide'])).trim().split('\n').map((line) => line.split(/\s+/));
    expect(wide[0]).toEqual(['NAME', 'IMAGE', 'REPLICAS', 'READY', 'OWNER', 'AGE']);
    expect(wide[1]?.slice(0, 4)).toEqual(['w1', 'nginx:2', '2', 'nobody']);
    expect(JSON.parse(await ok(['get', 'widget', 'w1', '-o', 'json']))).toMatchObject({ kind: 'Widget', metadata: { generation: 2 }, spec: { size: 'small' } });
    expect(await ok(['get', 'crd'])).toContain(WIDGET_CRD_NAME);
  });

  it('describe shows the spec and the Events of the CR; an invalid CR is refused with the CEL message', async () => {
    await ok(['apply', '--validate=false', '-f', await file('w2', widget('w2', { image: 'i' }))]);
    const uid = cluster.store.get(WIDGET_CRD_NAME, NS, 'w2')?.metadata.uid;
    cluster.api.create(EVENTS, NS, {
      metadata: { name: 'w2.ready' },
      involvedObject: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w2', namespace: NS, uid },
      reason: 'Reconciled', message: 'all children created', type: 'Normal', source: { component: 'widget-operator' }, count: 1,
    });
    const described = await ok(['describe', 'widget', 'w2']);
    expect(described).toMatch(/Kind:\s+Widget/);
    expect(described).toMatch(/Image:\s+i/);
    expect(described).toMatch(/Normal\s+Reconciled\s+.*widget-operator\s+all children created/);

    const refused = await kubectl.run(['apply', '--validate=false', '-f', await file('bad', widget('w-way-too-long', { image: 'i' }))]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The Widget "w-way-too-long" is invalid: <nil>: Invalid value: "object": name must be at most 12 characters');
  });

  it('wait --for=condition=Ready returns once the status says so', async () => {
    await ok(['apply', '--validate=false', '-f', await file('w3', widget('w3', { image: 'i' }))]);
    const since = cluster.requests.entries().length;
    const waiting = kubectl.run(['wait', '--for=condition=Ready', 'widget/w3', '--timeout=20s']);
    await cluster.server.whenWatching({ resource: 'widgets', since });
    const def = cluster.registry.find('example.com', 'v1', 'widgets');
    cluster.api.patch(def!, NS, 'w3', 'merge', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Done' }] } }, { subresource: 'status' });
    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('widget.example.com/w3 condition met\n');
  });

  it('delete, and delete --cascade=orphan keeps what the CR owned', async () => {
    await ok(['apply', '--validate=false', '-f', await file('w4', widget('w4', { image: 'i' }))]);
    const owner = cluster.store.get(WIDGET_CRD_NAME, NS, 'w4') as KubeObject;
    const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w4-config', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w4', uid: owner.metadata.uid }] } };
    await ok(['apply', '--validate=false', '-f', await file('child', child)]);
    expect(await ok(['delete', 'widget', 'w4', '--cascade=orphan'])).toBe('widget.example.com "w4" deleted\n');
    await cluster.waitFor(WIDGET_CRD_NAME, NS, 'w4', (o) => o === undefined);
    expect(cluster.store.get('configmaps', NS, 'w4-config')?.metadata['ownerReferences']).toBeUndefined();
    expect(await ok(['delete', 'wd', 'w3'])).toBe('widget.example.com "w3" deleted\n');
    expect((await kubectl.run(['get', 'widget', 'w3'])).stderr).toContain('widgets.example.com "w3" not found');
  });
});

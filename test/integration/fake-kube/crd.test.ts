/**
 * CustomResourceDefinitions on the fake API server (issue 21 item 3), through the real client-node: a CRD serves
 * its resources at once (discovery, CRUD, watch, status subresource, generation, finalizers), defaults and
 * validates them with the real error wording (structural schema and CEL), prunes unknown fields, prints Tables,
 * and takes its resources with it when deleted.
 */
import { ApiextensionsV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeCluster, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widget, WIDGET_CRD, WIDGET_CRD_NAME, WIDGET_GROUP } from './fixtures/widget-crd.js';
import { apiError, rawRequest } from './support.js';

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

describe('fake API server: CustomResourceDefinitions (client-node)', () => {
  let cluster: FakeCluster;
  let custom: CustomObjectsApi;
  let extensions: ApiextensionsV1Api;
  let n = 0;
  const ns = (): string => `crd-${++n}`;
  const at = (namespace: string, extra: Record<string, unknown> = {}) => ({ group: WIDGET_GROUP, version: 'v1', plural: 'widgets', namespace, ...extra });
  const raw = (path: string, options: Parameters<typeof rawRequest>[2] = {}) => rawRequest(`${cluster.url}${path}`, cluster.caPem, options);

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false });
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    custom = kc.makeApiClient(CustomObjectsApi);
    extensions = kc.makeApiClient(ApiextensionsV1Api);
    expect((await createCrd(WIDGET_CRD)).status).toBe(201);
  });

  /**
   * CRDs go in as raw JSON: client-node's typed ApiextensionsV1Api serialises its own camelCase model and drops the
   * `x-kubernetes-*` and `default` keys of a plain manifest.
   */
  const createCrd = (body: unknown) => raw('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body });
  afterAll(() => cluster?.stop());

  it('serves the new group at once: discovery, Established status, CRUD in both versions with defaults and generation', async () => {
    const group = await raw(`/apis/${WIDGET_GROUP}`);
    expect(group.body).toMatchObject({ kind: 'APIGroup', name: WIDGET_GROUP, preferredVersion: { version: 'v1' } });
    const resources = await raw(`/apis/${WIDGET_GROUP}/v1`);
    expect(resources.body.resources).toEqual([
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: expect.any(Array), shortNames: ['wd'], categories: ['all'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
    const crd = await cluster.waitFor('customresourcedefinitions', undefined, WIDGET_CRD_NAME, (o) => ((o?.['status'] as Obj['status'])?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True'));
    expect(crd?.metadata.generation).toBe(1);

    const namespace = ns();
    const created = (await custom.createNamespacedCustomObject({ ...at(namespace), body: { ...widget('w1'), status: { ready: 3 } } })) as Obj;
    expect(created.spec).toEqual({ image: 'busybox:1', replicas: 1, size: 'small', owner: 'nobody', targets: [] });
    expect(created.status).toBeUndefined();
    expect(created.metadata).toMatchObject({ generation: 1, namespace, name: 'w1' });
    const beta = (await custom.getNamespacedCustomObject({ ...at(namespace), version: 'v1beta1', name: 'w1' })) as Obj;
    expect(beta).toMatchObject({ apiVersion: `${WIDGET_GROUP}/v1beta1`, kind: 'Widget', metadata: { uid: created.metadata.uid } });
    const list = (await custom.listNamespacedCustomObject(at(namespace))) as { kind: string; items: Obj[] };
    expect(list.kind).toBe('WidgetList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['w1']);
    expect(cluster.store.get(WIDGET_CRD_NAME, namespace, 'w1')?.metadata.uid).toBe(created.metadata.uid);
  });

  it('status subresource: spec changes bump generation, status only through /status, each ignoring the other', async () => {
    const namespace = ns();
    await custom.createNamespacedCustomObject({ ...at(namespace), body: widget('w') });
    const specPatched = (await custom.patchNamespacedCustomObject({ ...at(namespace), name: 'w', body: { spec: { replicas: 2 }, status: { ready: 9 } } }, merge)) as Obj;
    expect(specPatched.metadata.generation).toBe(2);
    expect(specPatched.status).toBeUndefined();
    const labelled = (await custom.patchNamespacedCustomObject({ ...at(namespace), name: 'w', body: { metadata: { labels: { a: 'b' } } } }, merge)) as Obj;
    expect(labelled.metadata.generation).toBe(2);

    const statusPatched = (await custom.patchNamespacedCustomObjectStatus(
      { ...at(namespace), name: 'w', body: { spec: { replicas: 7 }, metadata: { labels: { c: 'd' } }, status: { ready: 2, conditions: [{ type: 'Ready', status: 'True' }] } } },
      merge,
    )) as Obj;
    expect(statusPatched.status).toEqual({ ready: 2, conditions: [{ type: 'Ready', status: 'True' }] });
    expect(statusPatched.spec?.['replicas']).toBe(2);
    expect(statusPatched.metadata.labels).toEqual({ a: 'b' });
    expect(statusPatched.metadata.generation).toBe(2);

    const badStatus = await apiError(custom.patchNamespacedCustomObjectStatus({ ...at(namespace), name: 'w', body: { status: { ready: -1 } } }, merge));
    expect(badStatus.code).toBe(422);
    expect(badStatus.status?.message).toBe('Widget.example.com "w" is invalid: status.ready: Invalid value: -1: status.ready in body should be greater than or equal to 0');

    const replaced = (await custom.replaceNamespacedCustomObject({ ...at(namespace), name: 'w', body: { ...widget('w', { image: 'alpine:3', replicas: 3 }), status: { ready: 0 } } })) as Obj;
    expect(replaced.status?.['ready']).toBe(2);
    expect(replaced.metadata.generation).toBe(3);
    const patchedByJson = (await custom.patchNamespacedCustomObject({ ...at(namespace), name: 'w', body: [{ op: 'replace', path: '/spec/replicas', value: 4 }] }, jsonPatch)) as Obj;
    expect(patchedByJson.spec?.['replicas']).toBe(4);

    const strategic = await raw(`/apis/${WIDGET_GROUP}/v1/namespaces/${namespace}/widgets/w`, { method: 'PATCH', body: { spec: { replicas: 5 } }, contentType: 'application/strategic-merge-patch+json' });
    expect(strategic.status).toBe(415);
    expect(strategic.body.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('validates with the real 422 wording and field paths: types, enums, bounds, patterns, required, item counts', async () => {
    const namespace = ns();
    const invalid = await apiError(
      custom.createNamespacedCustomObject({
        ...at(namespace),
        body: widget('bad', { image: 'UPPER', replicas: 'two', size: 'huge', targets: [{ type: 'x' }, { domains: [] }, { type: 'allowlist' }, { type: 'allowlist' }] }),
      }),
    );
    expect(invalid.code).toBe(422);
    expect(invalid.status?.details).toMatchObject({ name: 'bad', group: WIDGET_GROUP, kind: 'Widget' });
    const causes = (invalid.status?.details?.['causes'] as { field: string; reason: string; message: string }[]).map((c) => `${c.field} | ${c.reason} | ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        `spec.image | FieldValueInvalid | Invalid value: "UPPER": spec.image in body should match '^[a-z0-9./:-]+$'`,
        `spec.replicas | FieldValueTypeInvalid | Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
        `spec.size | FieldValueNotSupported | Unsupported value: "huge": supported values: "small", "large"`,
        `spec.targets | FieldValueTooMany | Too many: 4: must have at most 3 items`,
        `spec.targets[0].type | FieldValueNotSupported | Unsupported value: "x": supported values: "kubernetes", "allowlist"`,
        `spec.targets[1].type | FieldValueRequired | Required value`,
        `spec.targets[1].domains | FieldValueInvalid | Invalid value: 0: spec.targets[1].domains in body should have at least 1 items`,
        // A wrong type or enum value blocks the CEL rules, as on a real server.
        `<nil> | FieldValueInvalid | Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
      ]),
    );
    expect(invalid.status?.message).toMatch(/^Widget\.example\.com "bad" is invalid: \[/);

    const missing = await apiError(custom.createNamespacedCustomObject({ ...at(namespace), body: widget('nospec', { replicas: 11 }) }));
    expect(missing.status?.message).toBe(
      'Widget.example.com "nospec" is invalid: [spec.image: Required value, spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10, spec: Invalid value: "object": replicas 11 needs size large]',
    );
    const long = await apiError(custom.createNamespacedCustomObject({ ...at(namespace), body: widget('long', { image: 'a'.repeat(41) }) }));
    expect(long.status?.message).toBe('Widget.example.com "long" is invalid: spec.image: Too long: may not be longer than 40');
  });

  it('evaluates CEL rules: messages, the root rule at <nil>, a list filter, messageExpression, transition rules on update only', async () => {
    const namespace = ns();
    const name = await apiError(custom.createNamespacedCustomObject({ ...at(namespace), body: widget('thirteen-char') }));
    expect(name.status?.message).toBe('Widget.example.com "thirteen-char" is invalid: <nil>: Invalid value: "object": name must be at most 12 characters');
    const two = await apiError(custom.createNamespacedCustomObject({ ...at(namespace), body: widget('two', { image: 'i', targets: [{ type: 'kubernetes' }, { type: 'kubernetes' }] }) }));
    expect(two.status?.message).toBe('Widget.example.com "two" is invalid: spec: Invalid value: "object": at most one kubernetes target');
    const expr = await apiError(custom.createNamespacedCustomObject({ ...at(namespace), body: widget('many', { image: 'i', replicas: 6 }) }));
    expect(expr.status?.message).toBe('Widget.example.com "many" is invalid: spec: Invalid value: "object": replicas 6 needs size large');

    await custom.createNamespacedCustomObject({ ...at(namespace), body: widget('owned', { image: 'i', owner: 'alice' }) });
    const transition = await apiError(custom.patchNamespacedCustomObject({ ...at(namespace), name: 'owned', body: { spec: { owner: 'bob' } } }, merge));
    expect(transition.status?.message).toBe('Widget.example.com "owned" is invalid: spec: Invalid value: "object": owner is immutable');
    const fine = (await custom.patchNamespacedCustomObject({ ...at(namespace), name: 'owned', body: { spec: { replicas: 6, size: 'large' } } }, merge)) as Obj;
    expect(fine.spec).toMatchObject({ owner: 'alice', replicas: 6, size: 'large' });
  });

  it('prunes fields the schema does not declare: a Warning by default, 400 with fieldValidation=Strict, kept under preserve-unknown-fields', async () => {
    const namespace = ns();
    const path = `/apis/${WIDGET_GROUP}/v1/namespaces/${namespace}/widgets`;
    const warned = await raw(path, { method: 'POST', body: widget('p', { image: 'i', typo: 1, extra: { anything: { goes: true } } }) });
    expect(warned.status).toBe(201);
    expect(warned.headers['warning']).toBe('299 - "unknown field \\"spec.typo\\""');
    expect(warned.body.spec).toEqual({ image: 'i', replicas: 1, size: 'small', owner: 'nobody', targets: [], extra: { anything: { goes: true } } });
    const strict = await raw(`${path}?fieldValidation=Strict`, { method: 'POST', body: widget('q', { image: 'i', typo: 1 }) });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.typo"');
  });

  it('finalizers: a delete sets deletionTimestamp (a new generation); removing the last finalizer deletes', async () => {
    const namespace = ns();
    await custom.createNamespacedCustomObject({ ...at(namespace), body: widget('fin', { image: 'i' }, { finalizers: ['example.com/hold'] }) });
    const deleting = (await custom.deleteNamespacedCustomObject({ ...at(namespace), name: 'fin' })) as Obj;
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(deleting.metadata.generation).toBe(2);
    const events: string[] = [];
    const sub = cluster.store.subscribe((e) => {
      if (e.resource === WIDGET_CRD_NAME) events.push(e.type);
    });
    await custom.patchNamespacedCustomObject({ ...at(namespace), name: 'fin', body: [{ op: 'remove', path: '/metadata/finalizers' }] }, jsonPatch);
    sub();
    expect(events).toEqual(['DELETED']);
    expect((await apiError(custom.getNamespacedCustomObject({ ...at(namespace), name: 'fin' }))).status?.message).toBe('widgets.example.com "fin" not found');
    await custom.createNamespacedCustomObject({ ...at(namespace), body: widget('plain', { image: 'i' }) });
    expect(await custom.deleteNamespacedCustomObject({ ...at(namespace), name: 'plain' })).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'plain', group: WIDGET_GROUP, kind: 'widgets' } });
  });

  it('serves Tables with the printer columns when asked (kubectl), plain lists otherwise', async () => {
    const namespace = ns();
    await custom.createNamespacedCustomObject({ ...at(namespace), body: widget('t', { image: 'nginx:1', replicas: 2 }) });
    await custom.patchNamespacedCustomObjectStatus({ ...at(namespace), name: 't', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } }, merge);
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const table = await raw(`/apis/${WIDGET_GROUP}/v1/namespaces/${namespace}/widgets`, { headers: { accept } });
    expect(table.body.kind).toBe('Table');
    expect(table.body.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0], ['Image', 'string', 0], ['Replicas', 'integer', 0], ['Ready', 'string', 0], ['Owner', 'string', 1], ['Age', 'date', 0],
    ]);
    expect(table.body.rows[0].cells.slice(0, 5)).toEqual(['t', 'nginx:1', 2, 'True', 'nobody']);
    expect(table.body.rows[0].cells[5]).toMatch(/^\d+s$/);
    expect(table.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 't' } });
    expect((await raw(`/apis/${WIDGET_GROUP}/v1/namespaces/${namespace}/widgets`)).body.kind).toBe('WidgetList');
  });

  it('refuses invalid CRDs (bad CEL, a name that is not plural.group) and serves cluster-scoped ones', async () => {
    const broken = structuredClone(WIDGET_CRD) as any;
    broken.metadata.name = 'gadgets.example.com';
    broken.spec.names = { plural: 'gadgets', kind: 'Gadget' };
    broken.spec.versions = [{ ...broken.spec.versions[0], schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] } } }];
    const cel = await createCrd(broken);
    expect(cel.status).toBe(422);
    expect(cel.body.message).toMatch(/^CustomResourceDefinition\.apiextensions\.k8s\.io "gadgets\.example\.com" is invalid: spec\.versions\[0\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.a \+": compilation failed: /);
    broken.metadata.name = 'wrong.example.com';
    broken.spec.versions[0].schema.openAPIV3Schema = { type: 'object' };
    expect((await createCrd(broken)).body.message).toContain('metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group');

    const clusterScoped = { ...structuredClone(broken), metadata: { name: 'regions.example.com' }, spec: { ...broken.spec, scope: 'Cluster', names: { plural: 'regions', kind: 'Region' } } };
    expect((await createCrd(clusterScoped)).status).toBe(201);
    const region = (await custom.createClusterCustomObject({ group: WIDGET_GROUP, version: 'v1', plural: 'regions', body: { apiVersion: `${WIDGET_GROUP}/v1`, kind: 'Region', metadata: { name: 'eu', namespace: 'ignored' } } })) as Obj;
    expect(region.metadata.namespace).toBeUndefined();
    expect(((await custom.listClusterCustomObject({ group: WIDGET_GROUP, version: 'v1', plural: 'regions' })) as { items: Obj[] }).items).toHaveLength(1);
    expect((await raw(`/apis/${WIDGET_GROUP}/v1/namespaces/x/regions`)).status).toBe(404);
  });

  it('deleting a CRD deletes its resources first (cleanup finalizer), then stops serving them', async () => {
    const copy = { ...structuredClone(WIDGET_CRD), metadata: { name: 'gizmos.example.com' } } as any;
    copy.spec.names = { plural: 'gizmos', kind: 'Gizmo' };
    copy.spec.versions = [{ ...copy.spec.versions[0], schema: { openAPIV3Schema: { type: 'object' } }, additionalPrinterColumns: undefined }];
    expect((await createCrd(copy)).status).toBe(201);
    const gizmo = (name: string, finalizers?: string[]) => ({ apiVersion: `${WIDGET_GROUP}/v1`, kind: 'Gizmo', metadata: { name, ...(finalizers ? { finalizers } : {}) } });
    const where = { group: WIDGET_GROUP, version: 'v1', plural: 'gizmos', namespace: 'g' };
    await custom.createNamespacedCustomObject({ ...where, body: gizmo('a') });
    await custom.createNamespacedCustomObject({ ...where, body: gizmo('b', ['example.com/hold']) });
    const deleting = await raw('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com', { method: 'DELETE' });
    expect(deleting.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(deleting.body.metadata.deletionTimestamp).toBeDefined();
    // The typed client reads the CRD back (its model keeps the names it knows).
    expect((await extensions.readCustomResourceDefinition({ name: 'gizmos.example.com' })).spec.names.plural).toBe('gizmos');
    await cluster.waitFor('gizmos.example.com', 'g', 'a', (o) => o === undefined);
    const held = await cluster.waitFor('gizmos.example.com', 'g', 'b', (o) => o?.metadata.deletionTimestamp !== undefined);
    expect(held).toBeDefined();
    expect(cluster.store.get('customresourcedefinitions', undefined, 'gizmos.example.com')).toBeDefined();
    await custom.patchNamespacedCustomObject({ ...where, name: 'b', body: { metadata: { finalizers: null } } }, merge);
    await cluster.waitFor('customresourcedefinitions', undefined, 'gizmos.example.com', (o) => o === undefined);
    expect((await raw(`/apis/${WIDGET_GROUP}/v1/namespaces/g/gizmos`)).status).toBe(404);
    expect(cluster.registry.find(WIDGET_GROUP, 'v1', 'gizmos')).toBeUndefined();
  });
});

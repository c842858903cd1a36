/**
 * issue 21 item 4 (C-OP-1, C-SHIP-2 for the operator): `deploy/operator` renders with kustomize, every object
 * validates offline (kubernetes-models), the CRD schema is structural with the Go operator's field names plus our
 * documented additions, the operator runs two leader-elected replicas under the restricted Pod Security Standard,
 * and the OLM bundle is what scripts/operator-bundle.mjs writes from these manifests, by the structural rules of
 * docs/operator.md "OLM bundle" (no maintained npm package ships the OLM schemas).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkRestrictedPodSecurity } from '../../../libs/podspec/src/testing/restricted-pss.js';
import { resolveInstance } from '../../../apps/sandbox-controller/src/operator/spec/resolve-instance.js';
import { REPO_ROOT, render, schemaProblem, selects, type Manifest } from '../deploy/support/rendered.js';
import { schemaPaths, structuralProblems, valueProblem, type SchemaNode } from './support/crd-structure.js';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';

const manifests = KUBECTL ? render('deploy/operator') : [];
const of = (kind: string) => manifests.filter((m) => m.kind === kind);
const file = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const crd = parse(file('deploy/operator/crd.yaml')) as { spec: { versions: Array<{ schema: { openAPIV3Schema: SchemaNode }; additionalPrinterColumns: Array<{ name: string; jsonPath: string }> }> } };
const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;

describe('the CliMcpInstance CRD', () => {
  it('is structural, and every default and enum value fits its own schema', () => {
    expect(structuralProblems(schema)).toEqual([]);
  });

  it('has the Go operator\'s field names (its CRs apply unchanged) and the documented additions', () => {
    const paths = schemaPaths(schema);
    const go = [
      'spec.replicas', 'spec.sandbox.image', 'spec.sandbox.idleTimeout', 'spec.sandbox.warmPoolSize', 'spec.sandbox.resources.requests.cpu',
      'spec.sandbox.resources.limits.memory', 'spec.sandbox.env[].name', 'spec.sandbox.env[].valueFrom.secretKeyRef.key', 'spec.sandbox.imagePullPolicy',
      'spec.serverContainer.resources.limits.cpu', 'spec.serverContainer.imagePullPolicy', 'spec.proxy.targets[].type', 'spec.proxy.targets[].secretName',
      'spec.proxy.targets[].domains', 'status.warmPoolReady', 'status.warmPoolDesired', 'status.resolvedSandboxImage', 'status.observedGeneration', 'status.conditions[].reason',
    ];
    expect(paths).toEqual(expect.arrayContaining([...go, 'spec.sandbox.maxSessionAge', 'spec.server.yieldAfter']));
    const describe = (path: string) => path.split('.').reduce<SchemaNode | undefined>((node, key) => node?.properties?.[key], schema)?.['description'];
    expect(describe('spec.sandbox.maxSessionAge')).toMatch(/^Addition:/);
    expect(describe('spec.server')).toMatch(/^Addition:/);
  });

  it('defaults as the issue and the Go operator say: 1 replica, 30m idle, no pool, 100m/500m 128Mi/512Mi', () => {
    const spec = schema.properties!['spec']!;
    expect(spec.properties!['replicas']).toMatchObject({ default: 1, minimum: 1 });
    const sandbox = spec.properties!['sandbox']!.properties!;
    expect(sandbox['idleTimeout']!.default).toBe('30m');
    expect(sandbox['warmPoolSize']).toMatchObject({ default: 0, minimum: 0 });
    expect(sandbox['resources']!.default).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } });
    expect(sandbox['imagePullPolicy']!.enum).toEqual(['Always', 'Never', 'IfNotPresent']);
    // Durations and quantities have patterns; a Go-written duration (1h0m0s) passes, a typo does not.
    expect(valueProblem(sandbox['idleTimeout']!, '1h0m0s')).toBeUndefined();
    expect(valueProblem(sandbox['idleTimeout']!, '30 minutes')).toMatch(/does not match/);
    expect(valueProblem(sandbox['resources']!.properties!['requests']!.properties!['cpu']!, '-1')).toMatch(/does not match/);
  });

  it('prints Ready, its reason and the pool (wide: replicas and image)', () => {
    expect(crd.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name)).toEqual(['Ready', 'Reason', 'Pool', 'Desired', 'Replicas', 'Image', 'Age']);
  });
});

describeWhenReady('deploy/operator', KUBECTL_PROBLEM, () => {
  it('renders, and every object validates offline against the Kubernetes schemas', async () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(['CustomResourceDefinition', 'Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'ServiceAccount']);
    const problems: string[] = [];
    for (const manifest of manifests) {
      const problem = await schemaProblem(manifest);
      if (problem !== undefined) problems.push(`${manifest.kind}/${manifest.metadata.name}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('runs two leader-elected replicas under their pod names, watching their namespace, with the three RELATED_IMAGEs', () => {
    const [deployment] = of('Deployment') as unknown as V1Deployment[];
    expect(deployment!.spec!.replicas).toBe(2);
    const pod = deployment!.spec!.template;
    expect(checkRestrictedPodSecurity({ metadata: pod.metadata, spec: pod.spec })).toEqual([]);
    const container = pod.spec!.containers[0]!;
    expect(container.args).toEqual(['--operator', '--address=0.0.0.0:8081', '--identity=$(POD_NAME)']);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
    expect(env).toMatchObject({ POD_NAME: 'metadata.name', WATCH_NAMESPACE: 'metadata.namespace' });
    expect(Object.keys(env).filter((name) => name.startsWith('RELATED_IMAGE_'))).toEqual(['RELATED_IMAGE_SERVER', 'RELATED_IMAGE_SANDBOX', 'RELATED_IMAGE_EGRESS']);
    expect(container.readinessProbe?.httpGet?.path).toBe('/health');
    for (const kind of ['PodDisruptionBudget', 'NetworkPolicy']) {
      const selector = (of(kind)[0] as Manifest & { spec: { selector?: object; podSelector?: object } }).spec;
      expect(selects((selector.selector ?? selector.podSelector) as never, pod.metadata!.labels!), kind).toBe(true);
    }
    const binding = of('RoleBinding')[0] as Manifest & { roleRef: { name: string }; subjects: Array<{ name: string }> };
    expect(binding.roleRef.name).toBe(of('Role')[0]!.metadata.name);
    expect(binding.subjects.map((s) => s.name)).toEqual([pod.spec!.serviceAccountName]);
    expect(of('ClusterRole')).toEqual([]);
  });

  it('ships a sample CR the operator accepts', () => {
    const sample = parse(file('deploy/operator/samples/climcpinstance.yaml'));
    const result = resolveInstance(sample, { namespace: 'ns', serverImage: 's', sandboxImage: 'b', maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60 });
    expect(result.ok ? [] : result.errors).toEqual([]);
  });
});

describeWhenReady('the OLM bundle (bundle/)', KUBECTL_PROBLEM, () => {
  const csv = parse(file('bundle/manifests/cli-mcp-operator.clusterserviceversion.yaml'));
  const annotations = parse(file('bundle/metadata/annotations.yaml')).annotations as Record<string, string>;

  it('is exactly what scripts/operator-bundle.mjs writes from deploy/operator (no drift between the two install paths)', () => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/operator-bundle.mjs'), '--check'], { stdio: 'pipe' });
    expect(file('bundle/manifests/cli-mcp.redhat.com_climcpinstances.yaml')).toBe(file('deploy/operator/crd.yaml'));
  });

  it('follows the registry+v1 layout: annotations name the manifests and metadata folders, a package and its default channel', () => {
    expect(annotations).toEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'cli-mcp-operator',
      'operators.operatorframework.io.bundle.channels.v1': 'alpha',
      'operators.operatorframework.io.bundle.channel.default.v1': 'alpha',
    });
    expect(file('bundle/bundle.Dockerfile')).toContain('LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1');
  });

  it('has a CSV that owns the CRD, installs OwnNamespace and SingleNamespace only, and lists RELATED_IMAGE_{SERVER,SANDBOX,EGRESS}', () => {
    const { version } = JSON.parse(file('package.json')) as { version: string };
    expect(csv).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: `cli-mcp-operator.v${version}` }, spec: { version } });
    expect(csv.spec.installModes).toEqual([
      { type: 'OwnNamespace', supported: true }, { type: 'SingleNamespace', supported: true },
      { type: 'MultiNamespace', supported: false }, { type: 'AllNamespaces', supported: false },
    ]);
    expect(csv.spec.customresourcedefinitions.owned).toEqual([expect.objectContaining({ name: 'climcpinstances.cli-mcp.redhat.com', version: 'v1alpha1', kind: 'CliMcpInstance' })]);
    const container = csv.spec.install.spec.deployments[0].spec.template.spec.containers[0];
    const related = new Map((csv.spec.relatedImages as Array<{ name: string; image: string }>).map((r) => [r.name, r.image]));
    for (const name of ['SERVER', 'SANDBOX', 'EGRESS']) {
      const env = container.env.find((e: { name: string }) => e.name === `RELATED_IMAGE_${name}`);
      expect(related.get(name.toLowerCase()), name).toBe(env.value);
    }
    expect(related.get('operator')).toBe(container.image);
    expect(container.env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE').valueFrom.fieldRef.fieldPath).toBe("metadata.annotations['olm.targetNamespaces']");
  });

  it('installs the same operator as deploy/operator: its Deployment and its Role as the CSV\'s permissions, nothing cluster-wide', async () => {
    const deployment = of('Deployment')[0] as unknown as V1Deployment;
    const installed = csv.spec.install.spec.deployments[0];
    const strip = (spec: V1Deployment['spec']) => {
      const copy = structuredClone(spec)!;
      const container = copy.template.spec!.containers[0]!;
      delete container.image;
      container.env = container.env!.filter((e) => e.name !== 'WATCH_NAMESPACE');
      return copy;
    };
    expect(strip(installed.spec)).toEqual(strip(deployment.spec));
    expect(await schemaProblem({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: installed.name }, spec: installed.spec })).toBeUndefined();
    expect(csv.spec.install.spec.permissions).toEqual([{ serviceAccountName: 'cli-mcp-operator', rules: (of('Role')[0] as Manifest & { rules: unknown }).rules }]);
    expect(csv.spec.install.spec.clusterPermissions).toBeUndefined();
    const [example] = JSON.parse(csv.metadata.annotations['alm-examples']) as unknown[];
    expect(example).toEqual(parse(file('deploy/operator/samples/climcpinstance.yaml')));
  });
});

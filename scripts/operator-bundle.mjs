#!/usr/bin/env node
// Writes the OLM bundle (bundle/) from the operator's manifests (deploy/operator/) and package.json, so the two
// install paths cannot drift: the CRD is copied byte for byte, the CSV's deployment is deploy/operator's (its
// WATCH_NAMESPACE taken from olm.targetNamespaces, as OLM sets it), its permissions are deploy/operator's Role, its
// relatedImages are the container's RELATED_IMAGE_* variables. docs/operator.md "OLM bundle".
// Usage: node scripts/operator-bundle.mjs [--check]   (--check: exit 1 when bundle/ differs from what it writes)
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path) => readFileSync(join(root, path), 'utf8');
const { version } = JSON.parse(read('package.json'));
const PACKAGE = 'cli-mcp-operator';
const IMAGE_REGISTRY = 'quay.io/example';

export function bundleFiles() {
  const crdText = read('deploy/operator/crd.yaml');
  const crd = parse(crdText);
  const deployment = parse(read('deploy/operator/deployment.yaml'));
  const role = parse(read('deploy/operator/role.yaml'));
  const container = deployment.spec.template.spec.containers[0];
  container.image = `${IMAGE_REGISTRY}/cli-mcp-controller:${version}`;
  container.env = container.env.map((e) =>
    e.name === 'WATCH_NAMESPACE' ? { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } } } : e,
  );
  const relatedImages = container.env
    .filter((e) => e.name.startsWith('RELATED_IMAGE_'))
    .map((e) => ({ name: e.name.slice('RELATED_IMAGE_'.length).toLowerCase(), image: e.value }));
  const version0 = crd.spec.versions[0];
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `${PACKAGE}.v${version}`,
      annotations: {
        capabilities: 'Basic Install',
        categories: 'Developer Tools, AI/Machine Learning',
        containerImage: container.image,
        description: 'Declares cli-mcp-server instances: an MCP server giving AI agents a sandboxed, persistent bash shell, one pod per session.',
        'operators.operatorframework.io/suggested-namespace': 'cli-mcp',
        'alm-examples': JSON.stringify([parse(read('deploy/operator/samples/climcpinstance.yaml'))], null, 2),
      },
    },
    spec: {
      displayName: 'cli-mcp operator',
      description:
        'Reconciles CliMcpInstance resources: each one is an MCP server Deployment (stateless, any replica serves any session), its RBAC and NetworkPolicies, a generated HMAC key and bearer token, a warm pool of sandbox pods and idle GC. Admin Secrets keep the Go operator\'s names: cli-mcp-<name>-kubeconfig (key kubeconfig). See docs/operator.md.',
      version,
      maturity: 'alpha',
      minKubeVersion: '1.28.0',
      keywords: ['mcp', 'sandbox', 'bash', 'ai-agent'],
      provider: { name: 'cli-mcp-server contributors' },
      maintainers: [{ name: 'cli-mcp-server contributors', email: 'cli-mcp@example.com' }],
      links: [{ name: 'Documentation', url: 'https://example.com/cli-mcp-server/docs/operator.md' }],
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: false },
      ],
      customresourcedefinitions: {
        owned: [
          {
            name: crd.metadata.name,
            version: version0.name,
            kind: crd.spec.names.kind,
            displayName: 'CLI MCP Instance',
            description: 'One cli-mcp-server instance: a sandbox class (image and settings) with its server, pool and GC.',
            resources: [
              { kind: 'Deployment', version: 'v1' },
              { kind: 'Service', version: 'v1' },
              { kind: 'ServiceAccount', version: 'v1' },
              { kind: 'Role', version: 'v1' },
              { kind: 'RoleBinding', version: 'v1' },
              { kind: 'NetworkPolicy', version: 'v1' },
              { kind: 'Secret', version: 'v1' },
              { kind: 'Pod', version: 'v1' },
            ],
            statusDescriptors: [
              { path: 'warmPoolReady', displayName: 'Warm pool ready' },
              { path: 'warmPoolDesired', displayName: 'Warm pool desired' },
              { path: 'conditions', displayName: 'Conditions', 'x-descriptors': ['urn:alm:descriptor:io.kubernetes.conditions'] },
            ],
          },
        ],
      },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [{ name: deployment.metadata.name, label: deployment.metadata.labels, spec: deployment.spec }],
          permissions: [{ serviceAccountName: deployment.spec.template.spec.serviceAccountName, rules: role.rules }],
        },
      },
      relatedImages: [{ name: 'operator', image: container.image }, ...relatedImages],
    },
  };
  const annotations = {
    annotations: {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': PACKAGE,
      'operators.operatorframework.io.bundle.channels.v1': 'alpha',
      'operators.operatorframework.io.bundle.channel.default.v1': 'alpha',
    },
  };
  const header = '# Generated by scripts/operator-bundle.mjs from deploy/operator and package.json; do not edit.\n';
  return {
    'bundle/manifests/cli-mcp.redhat.com_climcpinstances.yaml': crdText,
    [`bundle/manifests/${PACKAGE}.clusterserviceversion.yaml`]: header + stringify(csv, { lineWidth: 0 }),
    'bundle/metadata/annotations.yaml': header + stringify(annotations),
    'bundle/bundle.Dockerfile': [
      '# Generated by scripts/operator-bundle.mjs; build from bundle/: podman build -f bundle.Dockerfile -t <registry>/cli-mcp-operator-bundle:<version> bundle',
      'FROM scratch',
      ...Object.entries(annotations.annotations).map(([key, value]) => `LABEL ${key}=${value}`),
      'COPY manifests /manifests/',
      'COPY metadata /metadata/',
      '',
    ].join('\n'),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [path, text] of Object.entries(bundleFiles())) {
    const target = join(root, path);
    if (check) {
      if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
        console.error(`${path} is out of date: run node scripts/operator-bundle.mjs`);
        stale++;
      }
      continue;
    }
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, text);
  }
  process.exit(stale > 0 ? 1 : 0);
}

import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../api/resource-registry.js';
import type { ResourceDefinition } from '../api/resources.js';

/** Version reported by `/version` (kubectl 1.32 is installed on the project machines). */
export const FAKE_SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-fake',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function resourceEntries(registry: ResourceRegistry, group: string, version: string): object[] {
  const entries: object[] = [];
  for (const def of registry.all().filter((r: ResourceDefinition) => r.group === group && r.version === version)) {
    entries.push({
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs,
      ...(def.shortNames.length > 0 ? { shortNames: def.shortNames } : {}),
      ...(def.categories.length > 0 ? { categories: def.categories } : {}),
    });
    if (def.hasStatus) {
      entries.push({ name: `${def.plural}/status`, singularName: '', namespaced: def.namespaced, kind: def.kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  return entries;
}

const NAMESPACES_ENTRY = { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] };

const AUTHENTICATION_VERSION = { groupVersion: 'authentication.k8s.io/v1', version: 'v1' };
const AUTHENTICATION_GROUP = { name: 'authentication.k8s.io', versions: [AUTHENTICATION_VERSION], preferredVersion: AUTHENTICATION_VERSION };
const SELF_SUBJECT_REVIEWS_ENTRY = { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] };

function apiGroup(name: string, versions: string[]): { name: string; versions: object[]; preferredVersion: object } {
  const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: list, preferredVersion: list[0] as object };
}

/**
 * Legacy (unaggregated) discovery documents, built from the registry (so a new CRD's group appears at once).
 * Requests for aggregated discovery still get these plain `application/json` bodies; kubectl falls back to them
 * (stack-notes E.3).
 */
export function discoveryDocument(path: string, serverAddress: string, registry: ResourceRegistry): object | undefined {
  const groups = [AUTHENTICATION_GROUP, ...registry.groups().map((g) => apiGroup(g.name, g.versions))];
  switch (path) {
    case '/version':
      return FAKE_SERVER_VERSION;
    case '/api':
      return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
    case '/api/v1':
      return { kind: 'APIResourceList', groupVersion: 'v1', resources: [NAMESPACES_ENTRY, ...resourceEntries(registry, '', 'v1')] };
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups };
    case '/apis/authentication.k8s.io/v1':
      return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'authentication.k8s.io/v1', resources: [SELF_SUBJECT_REVIEWS_ENTRY] };
  }
  const [, , group, version] = path.split('/');
  const served = groups.find((g) => g.name === group);
  if (!served) return undefined;
  if (version === undefined) return { kind: 'APIGroup', apiVersion: 'v1', ...served };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: resourceEntries(registry, group as string, version) };
}

/**
 * A Namespace object: the fake treats every namespace as existing and Active (kubectl reads the namespace
 * after a NotFound to tell "no such object" from "no such namespace").
 */
export function namespaceObject(name: string, created: string): Record<string, unknown> {
  const hash = createHash('sha1').update(`namespace/${name}`).digest('hex');
  const uid = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-a${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
  return {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name, uid, resourceVersion: '1', creationTimestamp: created, labels: { 'kubernetes.io/metadata.name': name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

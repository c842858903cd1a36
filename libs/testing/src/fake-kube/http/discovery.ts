import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceDefinition } from '../api/resources.js';

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

function resourceEntries(group: string): object[] {
  const entries: object[] = [];
  for (const def of Object.values(RESOURCES).filter((r: ResourceDefinition) => r.group === group)) {
    entries.push({
      name: def.plural,
      singularName: def.singular,
      namespaced: true,
      kind: def.kind,
      verbs: def.verbs,
      ...(def.shortNames.length > 0 ? { shortNames: def.shortNames } : {}),
      ...(def.plural === 'pods' ? { categories: ['all'] } : {}),
    });
    if (def.hasStatus) {
      entries.push({ name: `${def.plural}/status`, singularName: '', namespaced: true, kind: def.kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  return entries;
}

const NAMESPACES_ENTRY = { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] };

const COORDINATION_VERSION = { groupVersion: 'coordination.k8s.io/v1', version: 'v1' };
const AUTHENTICATION_VERSION = { groupVersion: 'authentication.k8s.io/v1', version: 'v1' };
const SELF_SUBJECT_REVIEWS_ENTRY = { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] };

/**
 * Legacy (unaggregated) discovery documents. Requests for aggregated discovery or Table output still get these
 * plain `application/json` bodies; kubectl falls back to them (stack-notes E.3).
 */
export function discoveryDocument(path: string, serverAddress: string): object | undefined {
  switch (path) {
    case '/version':
      return FAKE_SERVER_VERSION;
    case '/api':
      return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
    case '/api/v1':
      return { kind: 'APIResourceList', groupVersion: 'v1', resources: [NAMESPACES_ENTRY, ...resourceEntries('')] };
    case '/apis':
      return {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [
          { name: 'authentication.k8s.io', versions: [AUTHENTICATION_VERSION], preferredVersion: AUTHENTICATION_VERSION },
          { name: 'coordination.k8s.io', versions: [COORDINATION_VERSION], preferredVersion: COORDINATION_VERSION },
        ],
      };
    case '/apis/authentication.k8s.io':
      return { kind: 'APIGroup', apiVersion: 'v1', name: 'authentication.k8s.io', versions: [AUTHENTICATION_VERSION], preferredVersion: AUTHENTICATION_VERSION };
    case '/apis/authentication.k8s.io/v1':
      return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'authentication.k8s.io/v1', resources: [SELF_SUBJECT_REVIEWS_ENTRY] };
    case '/apis/coordination.k8s.io':
      return { kind: 'APIGroup', apiVersion: 'v1', name: 'coordination.k8s.io', versions: [COORDINATION_VERSION], preferredVersion: COORDINATION_VERSION };
    case '/apis/coordination.k8s.io/v1':
      return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'coordination.k8s.io/v1', resources: resourceEntries('coordination.k8s.io') };
    default:
      return undefined;
  }
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

import type { FieldGetter } from './field-selector.js';
import type { ResourceRef } from './status.js';

/** Static description of a served resource: names, kinds, discovery data and indexed fields. */
export interface ResourceDefinition extends ResourceRef {
  plural: 'pods' | 'secrets' | 'leases';
  singular: string;
  listKind: string;
  version: 'v1';
  /** `v1` or `coordination.k8s.io/v1`. */
  apiVersion: string;
  shortNames: string[];
  verbs: string[];
  /** Whether the `/status` subresource exists. */
  hasStatus: boolean;
  /** Whether a successful DELETE answers with the object (pods) instead of a Success Status. */
  returnsDeletedObject: boolean;
  /** Field selectors the real server indexes for this resource; anything else → 400. */
  fields: Readonly<Record<string, FieldGetter>>;
}

function path(object: Record<string, unknown>, ...keys: string[]): string {
  let current: unknown = object;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return '';
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' ? current : current === undefined || current === null ? '' : String(current);
}

const metaFields: Record<string, FieldGetter> = {
  'metadata.name': (o) => path(o, 'metadata', 'name'),
  'metadata.namespace': (o) => path(o, 'metadata', 'namespace'),
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const PODS: ResourceDefinition = {
  plural: 'pods',
  singular: 'pod',
  kind: 'Pod',
  listKind: 'PodList',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  shortNames: ['po'],
  verbs: VERBS,
  hasStatus: true,
  returnsDeletedObject: true,
  fields: {
    ...metaFields,
    'spec.nodeName': (o) => path(o, 'spec', 'nodeName'),
    'spec.restartPolicy': (o) => path(o, 'spec', 'restartPolicy'),
    'spec.schedulerName': (o) => path(o, 'spec', 'schedulerName'),
    'spec.serviceAccountName': (o) => path(o, 'spec', 'serviceAccountName'),
    'spec.hostNetwork': (o) => (path(o, 'spec', 'hostNetwork') === 'true' ? 'true' : 'false'),
    'status.phase': (o) => path(o, 'status', 'phase'),
    'status.podIP': (o) => path(o, 'status', 'podIP'),
    'status.nominatedNodeName': (o) => path(o, 'status', 'nominatedNodeName'),
  },
};

export const SECRETS: ResourceDefinition = {
  plural: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  listKind: 'SecretList',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  shortNames: [],
  verbs: VERBS,
  hasStatus: false,
  returnsDeletedObject: false,
  fields: { ...metaFields, type: (o) => path(o, 'type') },
};

export const LEASES: ResourceDefinition = {
  plural: 'leases',
  singular: 'lease',
  kind: 'Lease',
  listKind: 'LeaseList',
  group: 'coordination.k8s.io',
  version: 'v1',
  apiVersion: 'coordination.k8s.io/v1',
  shortNames: [],
  verbs: VERBS,
  hasStatus: false,
  returnsDeletedObject: false,
  fields: { ...metaFields },
};

/** Every served resource, by plural. */
export const RESOURCES: Readonly<Record<ResourceDefinition['plural'], ResourceDefinition>> = {
  pods: PODS,
  secrets: SECRETS,
  leases: LEASES,
};

/** Looks a resource up by API group and plural (`''` + `pods`, `coordination.k8s.io` + `leases`). */
export function findResource(group: string, plural: string): ResourceDefinition | undefined {
  return Object.values(RESOURCES).find((r) => r.group === group && r.plural === plural);
}

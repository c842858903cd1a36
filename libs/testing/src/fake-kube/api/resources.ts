import type { FieldGetter } from './field-selector.js';
import { leaseRules } from './rules/lease-rules.js';
import { podRules } from './rules/pod-rules.js';
import type { ResourceRules } from './rules/resource-rules.js';
import { secretRules } from './rules/secret-rules.js';
import type { ResourceRef } from './status.js';

/** One column of server-side printing (a CRD's additionalPrinterColumns): Table output for `kubectl get`. */
export interface PrinterColumn {
  name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  format?: string;
  description?: string;
  /** 0: shown by `kubectl get`; > 0: only with `-o wide`. */
  priority: number;
  /** A JSONPath into the object, e.g. `.status.conditions[?(@.type=="Ready")].status`. */
  jsonPath: string;
}

/** Static description of a served resource: names, kinds, discovery data, indexed fields and its rules. */
export interface ResourceDefinition extends ResourceRef {
  plural: string;
  singular: string;
  listKind: string;
  version: string;
  /** `v1`, `coordination.k8s.io/v1`, `cli-mcp.redhat.com/v1alpha1`. */
  apiVersion: string;
  /**
   * Key of its objects in the ObjectStore (and `StoreEvent.resource`): the plural for built-ins (`pods`), the
   * CRD name `plural.group` for custom resources. Two versions of one CRD share it (no conversion: strategy None).
   */
  storage: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Whether the `/status` subresource exists (writes to the main resource then keep `status`). */
  hasStatus: boolean;
  /** Whether a successful DELETE answers with the object (pods, custom resources) instead of a Success Status. */
  returnsDeletedObject: boolean;
  /** Whether writes keep `metadata.generation` (1 on create, +1 on each change outside metadata and status). */
  tracksGeneration: boolean;
  /** Whether strategic merge patches are served: built-ins only; custom resources answer 415 as a real server does. */
  strategicMerge: boolean;
  /** Field selectors the real server indexes for this resource; anything else → 400. */
  fields: Readonly<Record<string, FieldGetter>>;
  /** Defaulting, validation and update rules ("strategy"). */
  rules: ResourceRules;
  /** Server-side printing columns after NAME (custom resources); undefined → plain lists, kubectl prints NAME AGE. */
  printerColumns?: PrinterColumn[];
}

/** Reads a dotted path of an object as a field selector value (missing → ''). */
export function fieldPath(object: Record<string, unknown>, ...keys: string[]): string {
  let current: unknown = object;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return '';
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' ? current : current === undefined || current === null ? '' : String(current);
}

/** `metadata.name` and `metadata.namespace`: the field selectors every resource supports. */
export const META_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': (o) => fieldPath(o, 'metadata', 'name'),
  'metadata.namespace': (o) => fieldPath(o, 'metadata', 'namespace'),
};

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A built-in resource with the common defaults filled in. */
export function builtinResource(
  spec: Pick<ResourceDefinition, 'plural' | 'singular' | 'kind' | 'group' | 'rules'> &
    Partial<Omit<ResourceDefinition, 'plural' | 'singular' | 'kind' | 'group' | 'rules'>>,
): ResourceDefinition {
  const version = spec.version ?? 'v1';
  return {
    listKind: `${spec.kind}List`,
    version,
    apiVersion: spec.group ? `${spec.group}/${version}` : version,
    storage: spec.plural,
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    hasStatus: false,
    returnsDeletedObject: false,
    tracksGeneration: false,
    strategicMerge: true,
    fields: META_FIELDS,
    ...spec,
  };
}

export const PODS: ResourceDefinition = builtinResource({
  plural: 'pods',
  singular: 'pod',
  kind: 'Pod',
  group: '',
  shortNames: ['po'],
  categories: ['all'],
  hasStatus: true,
  returnsDeletedObject: true,
  rules: podRules,
  fields: {
    ...META_FIELDS,
    'spec.nodeName': (o) => fieldPath(o, 'spec', 'nodeName'),
    'spec.restartPolicy': (o) => fieldPath(o, 'spec', 'restartPolicy'),
    'spec.schedulerName': (o) => fieldPath(o, 'spec', 'schedulerName'),
    'spec.serviceAccountName': (o) => fieldPath(o, 'spec', 'serviceAccountName'),
    'spec.hostNetwork': (o) => (fieldPath(o, 'spec', 'hostNetwork') === 'true' ? 'true' : 'false'),
    'status.phase': (o) => fieldPath(o, 'status', 'phase'),
    'status.podIP': (o) => fieldPath(o, 'status', 'podIP'),
    'status.nominatedNodeName': (o) => fieldPath(o, 'status', 'nominatedNodeName'),
  },
});

export const SECRETS: ResourceDefinition = builtinResource({
  plural: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  group: '',
  rules: secretRules,
  fields: { ...META_FIELDS, type: (o) => fieldPath(o, 'type') },
});

export const LEASES: ResourceDefinition = builtinResource({
  plural: 'leases',
  singular: 'lease',
  kind: 'Lease',
  group: 'coordination.k8s.io',
  rules: leaseRules,
});

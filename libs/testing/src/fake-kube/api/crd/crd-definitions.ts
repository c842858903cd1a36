import { ALL_VERBS, builtinResource, META_FIELDS, type PrinterColumn, type ResourceDefinition } from '../resources.js';
import type { ResourceRules } from '../rules/resource-rules.js';
import type { FieldError } from '../status.js';
import { isJsonObject, type KubeObject } from '../types.js';
import { compileRulesOf } from './cel-rules.js';
import { customResourceRules } from './custom-resource-rules.js';
import type { JsonSchema } from './schema.js';

/** The finalizer the real server adds when a CRD is deleted: it deletes every custom resource first. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The parts of a CRD the fake reads (apiextensions.k8s.io/v1). */
export interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions: CrdVersion[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: JsonSchema };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: Partial<PrinterColumn>[];
}

const LOWER = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const VERSION = /^v[0-9]+((alpha|beta)[0-9]+)?$/;
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];

function crdSpec(crd: KubeObject): CrdSpec {
  return (crd['spec'] ?? {}) as CrdSpec;
}

/** Field errors of a CRD (the parts that decide how its resources are served), with the real server's paths. */
function validateCrd(crd: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crdSpec(crd);
  const names = spec.names ?? ({} as CrdSpec['names']);
  if (!spec.group) errors.push({ type: 'Required', field: 'spec.group' });
  else if (!spec.group.includes('.')) errors.push({ type: 'Invalid', field: 'spec.group', value: spec.group, detail: 'should be a domain with at least one dot' });
  if (!names.plural) errors.push({ type: 'Required', field: 'spec.names.plural' });
  else if (!LOWER.test(names.plural)) errors.push({ type: 'Invalid', field: 'spec.names.plural', value: names.plural, detail: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\'' });
  if (!names.kind) errors.push({ type: 'Required', field: 'spec.names.kind' });
  else if (!KIND.test(names.kind)) errors.push({ type: 'Invalid', field: 'spec.names.kind', value: names.kind, detail: 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?' });
  if (names.plural && spec.group && crd.metadata.name !== `${names.plural}.${spec.group}`) {
    errors.push({ type: 'Invalid', field: 'metadata.name', value: crd.metadata.name, detail: 'must be spec.names.plural+"."+spec.group' });
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errors.push({ type: 'NotSupported', field: 'spec.scope', value: spec.scope ?? '', detail: 'supported values: "Cluster", "Namespaced"' });
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errors.push({ type: 'Required', field: 'spec.versions', detail: 'must have exactly one version marked as storage version' });
  else if (versions.filter((v) => v.storage).length !== 1) {
    errors.push({ type: 'Invalid', field: 'spec.versions', value: versions.map((v) => v.name), detail: 'must have exactly one version marked as storage version' });
  }
  versions.forEach((version, i) => {
    const at = `spec.versions[${i}]`;
    if (!VERSION.test(version.name ?? '')) errors.push({ type: 'Invalid', field: `${at}.name`, value: version.name, detail: 'a DNS-1035 label' });
    const schema = version.schema?.openAPIV3Schema;
    if (!isJsonObject(schema)) errors.push({ type: 'Required', field: `${at}.schema.openAPIV3Schema`, detail: 'schemas are required' });
    else {
      if (schema.type !== 'object') errors.push({ type: 'Invalid', field: `${at}.schema.openAPIV3Schema.type`, value: schema.type ?? '', detail: 'must be object at the root' });
      errors.push(...compileRulesOf(schema, `${at}.schema.openAPIV3Schema`));
    }
    (version.additionalPrinterColumns ?? []).forEach((column, j) => {
      const cat = `${at}.additionalPrinterColumns[${j}]`;
      if (!column.name) errors.push({ type: 'Required', field: `${cat}.name` });
      if (!column.jsonPath) errors.push({ type: 'Required', field: `${cat}.jsonPath` });
      if (!COLUMN_TYPES.includes(column.type ?? '')) errors.push({ type: 'NotSupported', field: `${cat}.type`, value: column.type ?? '', detail: `supported values: ${COLUMN_TYPES.map((t) => `"${t}"`).join(', ')}` });
    });
  });
  return errors;
}

/** CustomResourceDefinition rules: names defaulted, the spec validated, cleanup finalizer on delete. */
const crdRules: ResourceRules = {
  applyDefaults(crd) {
    const spec = crdSpec(crd);
    if (!isJsonObject(spec.names)) return;
    spec.names.singular ??= spec.names.kind?.toLowerCase();
    spec.names.listKind ??= `${spec.names.kind}List`;
    for (const version of Array.isArray(spec.versions) ? spec.versions : []) {
      for (const column of version.additionalPrinterColumns ?? []) column.priority ??= 0;
    }
    crd['spec'] = { ...spec, conversion: (crd['spec'] as Record<string, unknown>)['conversion'] ?? { strategy: 'None' } };
  },
  validate: validateCrd,
  validateUpdate(next, old) {
    const errors: FieldError[] = [];
    const [a, b] = [crdSpec(next), crdSpec(old)];
    if (a.scope !== b.scope) errors.push({ type: 'Invalid', field: 'spec.scope', value: a.scope, detail: 'field is immutable' });
    if (a.group !== b.group) errors.push({ type: 'Invalid', field: 'spec.group', value: a.group, detail: 'field is immutable' });
    return errors;
  },
  deleteFinalizers: [CRD_CLEANUP_FINALIZER],
};

export const CUSTOM_RESOURCE_DEFINITIONS: ResourceDefinition = builtinResource({
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  group: 'apiextensions.k8s.io',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  hasStatus: true,
  tracksGeneration: true,
  rules: crdRules,
});

/** `Age` is what a CRD without additionalPrinterColumns prints after NAME. */
const DEFAULT_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 0 }];

/**
 * The resources a CRD serves: one definition per served version, the storage version first, all on one storage
 * key (conversion strategy None: only `apiVersion` differs between versions). `terminating()` tells whether the
 * CRD is being deleted (creates are then refused).
 */
export function servedDefinitions(crd: KubeObject, terminating: () => boolean): ResourceDefinition[] {
  const spec = crdSpec(crd);
  const versions = [...(spec.versions ?? [])].filter((v) => v.served).sort((a, b) => Number(b.storage) - Number(a.storage));
  return versions.map((version) => {
    const hasStatus = version.subresources?.status !== undefined;
    const columns = version.additionalPrinterColumns?.length ? version.additionalPrinterColumns.map((c) => ({ priority: 0, type: 'string', ...c }) as PrinterColumn) : DEFAULT_COLUMNS;
    return {
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      group: spec.group,
      version: version.name,
      apiVersion: `${spec.group}/${version.name}`,
      storage: crd.metadata.name as string,
      namespaced: spec.scope === 'Namespaced',
      shortNames: spec.names.shortNames ?? [],
      categories: spec.names.categories ?? [],
      verbs: ALL_VERBS,
      hasStatus,
      returnsDeletedObject: false,
      tracksGeneration: true,
      strategicMerge: false,
      fields: META_FIELDS,
      rules: customResourceRules(version.schema?.openAPIV3Schema ?? { type: 'object' }, { hasStatus, terminating, kind: spec.names.kind }),
      printerColumns: columns,
    };
  });
}

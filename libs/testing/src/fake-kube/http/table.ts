import { evaluateJsonPath } from '../api/jsonpath.js';
import type { PrinterColumn, ResourceDefinition } from '../api/resources.js';
import type { KubeObject } from '../api/types.js';

/** `includeObject` of a Table request: what each row carries besides its cells. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Whether an Accept header asks for server-side printing (`application/json;as=Table;v=v1;g=meta.k8s.io`). */
export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((type) => /;\s*as=Table/.test(type) && /;\s*g=meta\.k8s\.io/.test(type));
}

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
  priority: 0,
};

function humanDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60 > 0 ? `${seconds % 60}s` : ''}`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

/** One cell as the apiextensions table convertor renders it (dates become ages, strings as printed). */
function cell(column: PrinterColumn, object: KubeObject, now: number): unknown {
  let results: unknown[];
  try {
    results = evaluateJsonPath(object, column.jsonPath);
  } catch {
    return null;
  }
  const value = results[0];
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const time = Date.parse(value);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now - time);
    }
    default:
      return null;
  }
}

function rowObject(def: ResourceDefinition, object: KubeObject, include: IncludeObject): Record<string, unknown> {
  if (include === 'None') return {};
  if (include === 'Object') return { object: { kind: def.kind, apiVersion: def.apiVersion, ...object } };
  return { object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata } };
}

/**
 * A `meta.k8s.io/v1` Table of objects with the resource's printer columns (NAME first), as `kubectl get` asks for
 * it; kubectl hides columns of priority > 0 unless `-o wide`.
 */
export function toTable(def: ResourceDefinition, objects: KubeObject[], metadata: Record<string, unknown>, include: IncludeObject, now = Date.now()): Record<string, unknown> {
  const columns = def.printerColumns ?? [];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: [NAME_COLUMN, ...columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority }))],
    rows: objects.map((object) => ({ cells: [object.metadata.name, ...columns.map((c) => cell(c, object, now))], ...rowObject(def, object, include) })),
  };
}

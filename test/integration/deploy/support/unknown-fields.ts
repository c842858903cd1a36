import * as k8s from '@kubernetes/client-node';

/**
 * Fields the Kubernetes API does not know, found with the type tables of @kubernetes/client-node's generated
 * models (`getAttributeTypeMap`: every field's JSON name and type, generated from the OpenAPI spec of the
 * Kubernetes release that client-node targets). kubernetes-models checks types and required fields but lets an
 * unknown field through, and the API server would silently drop it (`imagePullPolcy: Always` is no error to
 * `kubectl apply` without `--validate=strict`): a typo in a manifest would ship a setting nobody has.
 */
interface Model {
  getAttributeTypeMap(): Array<{ baseName: string; type: string }>;
}

const models = k8s as unknown as Record<string, Model | undefined>;
const SCALARS = new Set(['string', 'number', 'boolean', 'Date', 'IntOrString', 'any', 'object']);

/** The model of a built-in kind (`apps/v1` Deployment → V1Deployment); undefined for kinds client-node lacks (CRDs). */
export function modelName(apiVersion: string, kind: string): string | undefined {
  const version = apiVersion.split('/').pop() ?? '';
  const name = `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
  return typeof models[name]?.getAttributeTypeMap === 'function' ? name : undefined;
}

/** The JSON paths of `value` (of client-node type `type`) that its schema does not have. */
export function unknownFields(value: unknown, type: string, path = ''): string[] {
  if (value === null || value === undefined || SCALARS.has(type)) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return Array.isArray(value) ? value.flatMap((item, i) => unknownFields(item, array[1]!, `${path}[${i}]`)) : [];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return Object.entries(value as object).flatMap(([key, item]) => unknownFields(item, map[1]!, `${path}.${key}`));
  const model = models[type];
  if (typeof model?.getAttributeTypeMap !== 'function') throw new Error(`${path || '.'}: no client-node model ${type}`);
  const fields = new Map(model.getAttributeTypeMap().map((field) => [field.baseName, field.type]));
  return Object.entries(value as object).flatMap(([key, item]) => {
    const fieldType = fields.get(key);
    return fieldType === undefined ? [`${path}.${key}`] : unknownFields(item, fieldType, `${path}.${key}`);
  });
}

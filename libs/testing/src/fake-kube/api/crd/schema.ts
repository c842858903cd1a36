import { cloneJson, isJsonObject } from '../types.js';

/** A `x-kubernetes-validations` rule (CEL). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: string;
  /** A JSON path below the rule's node the error is reported at (`.spec.x`, `['key']`, `[0]`). */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The structural-schema subset of `JSONSchemaProps` the fake enforces (apiextensions.k8s.io/v1). */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
}

/** `spec`, `spec.targets[0].type`: the field paths of real error messages. */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

const OBJECT_META_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/** The schema of `key` inside an object node (a declared property, or additionalProperties). */
function propertySchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const declared = schema.properties?.[key];
  if (declared) return declared;
  return isJsonObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined;
}

/**
 * Structural pruning: removes every field the schema does not declare (unless under
 * `x-kubernetes-preserve-unknown-fields` or `additionalProperties`) and returns the removed paths. At the root
 * (and in embedded resources) apiVersion, kind and metadata are always kept.
 */
export function prune(value: unknown, schema: JsonSchema, path = '', root = true): string[] {
  const removed: string[] = [];
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => removed.push(...prune(item, schema.items as JsonSchema, `${path}[${i}]`, false)));
    return removed;
  }
  if (!isJsonObject(value)) return removed;
  const keepMeta = root || schema['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(value)) {
    if (keepMeta && OBJECT_META_KEYS.has(key)) continue;
    const child = propertySchema(schema, key);
    if (child) removed.push(...prune(value[key], child, childPath(path, key), false));
    else if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties !== true) {
      delete value[key];
      removed.push(childPath(path, key));
    }
  }
  return removed;
}

/**
 * Structural defaulting, as the real decoder applies it: an absent property with a `default` gets it (and is then
 * defaulted itself); a `null` in a non-nullable property becomes its default, or is dropped.
 */
export function applyDefaults(value: unknown, schema: JsonSchema, root = true): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(item, schema.items, false);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (value[key] === null && !child.nullable) {
      if (child.default !== undefined) value[key] = cloneJson(child.default);
      else delete value[key];
    } else if (value[key] === undefined && child.default !== undefined) value[key] = cloneJson(child.default);
  }
  for (const key of Object.keys(value)) {
    if (root && OBJECT_META_KEYS.has(key)) continue;
    const child = propertySchema(schema, key);
    if (child) applyDefaults(value[key], child, false);
  }
}

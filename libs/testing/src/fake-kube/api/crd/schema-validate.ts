import { jsonEqual } from '../json-patch.js';
import type { FieldError } from '../status.js';
import { isJsonObject } from '../types.js';
import { childPath, type JsonSchema } from './schema.js';

/** The JSON type name kube-openapi reports for a value (`"string"`, `"integer"`, `"object"`, …). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

function typeMatches(schema: JsonSchema, value: unknown): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  switch (schema.type) {
    case undefined:
      return true;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'object':
      return isJsonObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return typeof value === schema.type;
  }
}

/** `"a", "b"`: enum values as `field.NotSupported` lists them (strings bare, others as JSON). */
function supportedValues(values: unknown[]): string {
  return `supported values: ${values.map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
}

const IN = 'in body';

function validateString(value: string, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) errors.push({ type: 'TooLong', field: path, value, detail: `may not be longer than ${schema.maxLength}` });
  if (schema.minLength !== undefined && length < schema.minLength) errors.push({ type: 'Invalid', field: path, value, detail: `${path} ${IN} should be at least ${schema.minLength} chars long` });
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) errors.push({ type: 'Invalid', field: path, value, detail: `${path} ${IN} should match '${schema.pattern}'` });
}

function validateNumber(value: number, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (minimum !== undefined && (exclusiveMinimum ? value <= minimum : value < minimum)) {
    errors.push({ type: 'Invalid', field: path, value, detail: `${path} ${IN} should be greater than ${exclusiveMinimum ? '' : 'or equal to '}${minimum}` });
  }
  if (maximum !== undefined && (exclusiveMaximum ? value >= maximum : value > maximum)) {
    errors.push({ type: 'Invalid', field: path, value, detail: `${path} ${IN} should be less than ${exclusiveMaximum ? '' : 'or equal to '}${maximum}` });
  }
  if (multipleOf !== undefined && multipleOf > 0 && !Number.isInteger(value / multipleOf)) {
    errors.push({ type: 'Invalid', field: path, value, detail: `${path} ${IN} should be a multiple of ${multipleOf}` });
  }
}

function validateArray(value: unknown[], schema: JsonSchema, path: string, errors: FieldError[]): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push({ type: 'TooMany', field: path, value: value.length, detail: `must have at most ${schema.maxItems} items` });
  if (schema.minItems !== undefined && value.length < schema.minItems) errors.push({ type: 'Invalid', field: path, value: value.length, detail: `${path} ${IN} should have at least ${schema.minItems} items` });
  const listType = schema['x-kubernetes-list-type'];
  if (schema.uniqueItems || listType === 'set' || listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (item: unknown): unknown => (listType === 'map' && isJsonObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k]])) : item);
    value.forEach((item, i) => {
      if (value.slice(0, i).some((earlier) => jsonEqual(keyOf(earlier), keyOf(item)))) errors.push({ type: 'Duplicate', field: `${path}[${i}]`, value: keyOf(item) });
    });
  }
  if (schema.items) value.forEach((item, i) => errors.push(...validateSchema(item, schema.items as JsonSchema, `${path}[${i}]`)));
}

function validateObject(value: Record<string, unknown>, schema: JsonSchema, path: string, errors: FieldError[]): void {
  for (const key of schema.required ?? []) if (value[key] === undefined) errors.push({ type: 'Required', field: childPath(path, key) });
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) errors.push({ type: 'TooMany', field: path, value: count, detail: `must have at most ${schema.maxProperties} items` });
  if (schema.minProperties !== undefined && count < schema.minProperties) errors.push({ type: 'Invalid', field: path, value: count, detail: `${path} ${IN} should have at least ${schema.minProperties} properties` });
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties?.[key] ?? (isJsonObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
    if (childSchema && !(path === '' && (key === 'metadata' || key === 'apiVersion' || key === 'kind'))) errors.push(...validateSchema(child, childSchema, childPath(path, key)));
  }
}

/**
 * Structural validation with the wording of kube-openapi's validator as the apiextensions server turns it into
 * field errors (`kubeOpenAPIResultToFieldErrors`): types, nullable, enum, bounds, lengths, patterns, item and
 * property counts, required, list-type set/map uniqueness, allOf/anyOf/oneOf/not. `format` is not checked.
 */
export function validateSchema(value: unknown, schema: JsonSchema, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (value === null && schema.nullable) return errors;
  if (!typeMatches(schema, value) || (value === null && schema.type !== undefined)) {
    const typeName = schema['x-kubernetes-int-or-string'] ? 'integer,string' : (schema.type as string);
    errors.push({ type: 'TypeInvalid', field: path, value: jsonTypeName(value), detail: `${path} ${IN} must be of type ${typeName}: ${JSON.stringify(jsonTypeName(value))}` });
    return errors;
  }
  if (schema.enum && !schema.enum.some((allowed) => jsonEqual(allowed, value))) errors.push({ type: 'NotSupported', field: path, value, detail: supportedValues(schema.enum) });
  if (typeof value === 'string') validateString(value, schema, path, errors);
  else if (typeof value === 'number') validateNumber(value, schema, path, errors);
  else if (Array.isArray(value)) validateArray(value, schema, path, errors);
  else if (isJsonObject(value)) validateObject(value, schema, path, errors);
  for (const sub of schema.allOf ?? []) errors.push(...validateSchema(value, sub, path));
  if (schema.anyOf && !schema.anyOf.some((sub) => validateSchema(value, sub, path).length === 0)) {
    errors.push({ type: 'Invalid', field: path, value: jsonTypeName(value), detail: `${path} ${IN} must validate at least one schema (anyOf)` });
  }
  if (schema.oneOf && schema.oneOf.filter((sub) => validateSchema(value, sub, path).length === 0).length !== 1) {
    errors.push({ type: 'Invalid', field: path, value: jsonTypeName(value), detail: `${path} ${IN} must validate one and only one schema (oneOf)` });
  }
  if (schema.not && validateSchema(value, schema.not, path).length === 0) {
    errors.push({ type: 'Invalid', field: path, value: jsonTypeName(value), detail: `${path} ${IN} must not validate the schema (not)` });
  }
  return errors;
}

import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { FieldError } from '../status.js';
import { isJsonObject } from '../types.js';
import { childPath, type JsonSchema, type ValidationRule } from './schema.js';

type Program = ReturnType<typeof plan>;

const ENV = celEnv({ funcs: strings });
const programs = new Map<string, Program | Error>();

/** Parses and plans a CEL expression once (cached by its text); an Error when it does not compile. */
function compile(expression: string): Program | Error {
  let program = programs.get(expression);
  if (program === undefined) {
    try {
      program = plan(ENV, parse(expression));
    } catch (error) {
      program = error instanceof Error ? error : new Error(String(error));
    }
    programs.set(expression, program);
  }
  return program;
}

const OLD_SELF = /\boldSelf\b/;

/** A transition rule (it reads `oldSelf`): evaluated on updates only, as on a real server. */
function isTransition(rule: ValidationRule): boolean {
  return OLD_SELF.test(rule.rule);
}

/** Every `x-kubernetes-validations` rule of a schema that does not parse: a CRD with one is invalid (422). */
export function compileRulesOf(schema: JsonSchema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const program = typeof rule.rule === 'string' ? compile(rule.rule) : new Error('rule is required');
    if (program instanceof Error) errors.push({ type: 'Invalid', field: `${path}.x-kubernetes-validations[${i}].rule`, value: rule.rule, detail: `compilation failed: ${program.message}` });
  });
  for (const [key, child] of Object.entries(schema.properties ?? {})) errors.push(...compileRulesOf(child, `${path}.properties[${key}]`));
  if (schema.items) errors.push(...compileRulesOf(schema.items, `${path}.items`));
  if (isJsonObject(schema.additionalProperties)) errors.push(...compileRulesOf(schema.additionalProperties as JsonSchema, `${path}.additionalProperties`));
  return errors;
}

function childSchema(schema: JsonSchema, key: string): JsonSchema {
  return schema.properties?.[key] ?? (isJsonObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : {});
}

/** A JSON value as CEL sees it under `schema`: objects are maps, integers `int` (bigint), numbers `double`. */
function toCel(value: unknown, schema: JsonSchema): CelInput {
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema.items ?? {}));
  if (isJsonObject(value)) return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v, childSchema(schema, k))]));
  if (typeof value === 'number') return schema.type !== 'number' && Number.isInteger(value) ? BigInt(value) : value;
  return (value ?? null) as CelInput;
}

/** At the root, CEL sees only `metadata.name` and `metadata.generateName` (as on a real server). */
function rootSelf(object: Record<string, unknown>): Record<string, unknown> {
  const meta = isJsonObject(object['metadata']) ? object['metadata'] : {};
  const visible = Object.fromEntries(['name', 'generateName'].filter((k) => meta[k] !== undefined).map((k) => [k, meta[k]]));
  return { ...object, metadata: visible };
}

/** Appends a rule's `fieldPath` (`.a.b`, `['k']`, `[0]`) to the node's path. */
function withFieldPath(path: string, fieldPath: string | undefined): string {
  if (!fieldPath) return path;
  const relative = fieldPath.replace(/\['([^']*)'\]/g, '.$1');
  return path === '' ? relative.replace(/^\./, '') : `${path}${relative.startsWith('.') || relative.startsWith('[') ? '' : '.'}${relative}`;
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() || rule.rule.trim();
}

/** `field.Invalid/Forbidden/Required/Duplicate` as `fieldErrorForReason` picks it; the value is the schema type. */
function ruleError(path: string, schema: JsonSchema, rule: ValidationRule, detail: string): FieldError {
  const field = path === '' ? '<nil>' : path;
  const value = schema.type ?? 'object';
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { type: 'Forbidden', field, detail };
    case 'FieldValueRequired':
      return { type: 'Required', field, detail };
    case 'FieldValueDuplicate':
      return { type: 'Duplicate', field, value };
    default:
      return { type: 'Invalid', field, value, detail };
  }
}

function evaluateRule(rule: ValidationRule, schema: JsonSchema, self: CelInput, oldSelf: CelInput | undefined, path: string): FieldError | undefined {
  const program = compile(rule.rule);
  if (program instanceof Error) return ruleError(path, schema, rule, `compilation failed: ${program.message}`);
  const bindings: Record<string, CelInput> = oldSelf === undefined ? { self } : { self, oldSelf };
  const result = program(bindings);
  const at = withFieldPath(path, rule.fieldPath);
  if (isCelError(result)) return ruleError(at, schema, { ...rule, reason: undefined }, `${result.message} evaluating rule: ${ruleText(rule)}`);
  if (result === true) return undefined;
  let message = rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
  if (rule.messageExpression) {
    const custom = compile(rule.messageExpression);
    const text = custom instanceof Error ? undefined : custom(bindings);
    if (typeof text === 'string' && text.trim() !== '') message = text;
  }
  return ruleError(at, schema, rule, message);
}

/**
 * Evaluates the CEL rules of `schema` on `value` and below (depth first). `old` present (an update) → only the
 * transition rules (those reading `oldSelf`), on nodes that existed before; absent (a create, or the non-transition
 * pass of an update) → only the others. Objects are correlated with their old value by key; list items are not.
 */
export function evaluateRules(value: unknown, schema: JsonSchema, old?: { value: unknown }, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (value === undefined || value === null) return errors;
  const rules = (schema['x-kubernetes-validations'] ?? []).filter((rule) => (old === undefined ? !isTransition(rule) : isTransition(rule)));
  if (rules.length > 0) {
    const self = toCel(path === '' && isJsonObject(value) ? rootSelf(value) : value, schema);
    const oldSelf = old && old.value !== undefined ? toCel(path === '' && isJsonObject(old.value) ? rootSelf(old.value) : old.value, schema) : undefined;
    for (const rule of rules) {
      if (old !== undefined && oldSelf === undefined) continue;
      const error = evaluateRule(rule, schema, self, oldSelf, path);
      if (error) errors.push(error);
    }
  }
  if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (path === '' && key === 'metadata') continue;
      const sub = schema.properties?.[key] ?? (isJsonObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
      if (!sub) continue;
      const oldChild = old === undefined ? undefined : isJsonObject(old.value) && old.value[key] !== undefined ? { value: old.value[key] } : { value: undefined };
      errors.push(...evaluateRules(child, sub, oldChild, childPath(path, key)));
    }
  } else if (Array.isArray(value) && schema.items) {
    // Items are correlated with nothing: their transition rules do not run (atomic lists on a real server).
    value.forEach((item, i) => errors.push(...evaluateRules(item, schema.items as JsonSchema, old === undefined ? undefined : { value: undefined }, `${path}[${i}]`)));
  }
  return errors;
}

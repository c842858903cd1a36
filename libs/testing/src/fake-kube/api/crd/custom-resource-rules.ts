import type { ResourceRules } from '../rules/resource-rules.js';
import { Statuses, type FieldError } from '../status.js';
import { evaluateRules } from './cel-rules.js';
import { applyDefaults, prune, type JsonSchema } from './schema.js';
import { validateSchema } from './schema-validate.js';

const CEL_SKIPPED: FieldError = {
  type: 'Invalid',
  field: '<nil>',
  value: null,
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/** What the rules of a custom resource need besides its schema. */
export interface CustomResourceContext {
  kind: string;
  /** Whether the version has the status subresource. */
  hasStatus: boolean;
  /** Whether the CRD is being deleted (creates are refused then). */
  terminating: () => boolean;
}

/**
 * The "strategy" of a custom resource: pruning, defaulting, structural validation and CEL from its version's
 * schema; `status` behind the status subresource (or an ordinary field without it).
 */
export function customResourceRules(schema: JsonSchema, context: CustomResourceContext): ResourceRules {
  const validate = (object: Record<string, unknown>, old?: Record<string, unknown>): FieldError[] => {
    const errors = validateSchema(object, schema);
    // As the real strategy: a value of the wrong type (or outside its enum) blocks every CEL rule.
    if (errors.some((e) => e.type === 'TypeInvalid' || e.type === 'NotSupported')) return [...errors, CEL_SKIPPED];
    return [...errors, ...evaluateRules(object, schema), ...(old ? evaluateRules(object, schema, { value: old }) : [])];
  };
  return {
    prune: (object) => prune(object, schema),
    applyDefaults: (object) => applyDefaults(object, schema),
    prepareForCreate() {
      if (context.terminating()) throw Statuses.methodNotAllowed(`create not allowed while custom resource definition is terminating`);
    },
    validate: (object) => validate(object),
    validateUpdate: (next, old) => (validateSchema(next, schema).some((e) => e.type === 'TypeInvalid' || e.type === 'NotSupported') ? [] : evaluateRules(next, schema, { value: old })),
    validateStatus: (next, old) => validate(next, old),
    prepareForUpdate(next, old) {
      if (!context.hasStatus) return;
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = structuredClone(old['status']);
    },
    statusIsOrdinaryField: !context.hasStatus,
  };
}

import { describe, expect, it } from 'vitest';
import { evaluateRules } from './cel-rules.js';
import { applyDefaults, prune, type JsonSchema } from './schema.js';
import { validateSchema } from './schema-validate.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string', default: 'x' },
        nested: { type: 'object', default: {}, properties: { b: { type: 'integer', default: 3 } } },
        keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { c: { type: 'string', default: 'c' } } } },
        nullable: { type: 'string', nullable: true },
        notNull: { type: 'string' },
        list: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
        count: { type: 'number', minimum: 0, exclusiveMinimum: true, multipleOf: 0.5 },
        either: { 'x-kubernetes-int-or-string': true },
      },
    },
  },
};

describe('structural schema', () => {
  it('prunes undeclared fields outside preserve-unknown-fields and additionalProperties, and reports their paths', () => {
    const object = { apiVersion: 'v', kind: 'K', metadata: { name: 'n' }, spec: { a: 'y', zz: 1, keep: { any: { thing: 1 } }, map: { k: { c: 'd', extra: 1 } }, list: [{ name: 'n', junk: 1 }] }, top: 1 };
    expect(prune(object, schema)).toEqual(['spec.zz', 'spec.map.k.extra', 'spec.list[0].junk', 'top']);
    expect(object).toEqual({ apiVersion: 'v', kind: 'K', metadata: { name: 'n' }, spec: { a: 'y', keep: { any: { thing: 1 } }, map: { k: { c: 'd' } }, list: [{ name: 'n' }] } });
  });

  it('defaults absent properties (defaulting inside a defaulted object too), keeps nullable nulls, drops other nulls', () => {
    const object: Record<string, unknown> = { spec: { map: { k: {} }, nullable: null, notNull: null } };
    applyDefaults(object, schema);
    expect(object).toEqual({ spec: { a: 'x', nested: { b: 3 }, map: { k: { c: 'c' } }, nullable: null } });
  });

  it('validates numbers, int-or-string and list-map keys with the real wording', () => {
    const errors = validateSchema({ spec: { count: 0.75, either: 1.5, list: [{ name: 'a' }, { name: 'a' }] } }, schema);
    expect(errors.map((e) => `${e.field} ${e.type} ${e.detail ?? JSON.stringify(e.value)}`)).toEqual([
      'spec.count Invalid spec.count in body should be a multiple of 0.5',
      'spec.either TypeInvalid spec.either in body must be of type integer,string: "number"',
      'spec.list[1] Duplicate {"name":"a"}',
    ]);
    expect(validateSchema({ spec: { count: 0 } }, schema)[0]?.detail).toBe('spec.count in body should be greater than 0');
  });

  it('CEL: reasons, fieldPath, a runtime error, and transition rules only with an old value', () => {
    const rules: JsonSchema = {
      type: 'object',
      properties: {
        x: {
          type: 'object',
          properties: { y: { type: 'integer' } },
          'x-kubernetes-validations': [
            { rule: 'self.y > 1', reason: 'FieldValueForbidden', fieldPath: '.y', message: 'y too small' },
            { rule: 'self.z == 1' },
            { rule: 'self.y >= oldSelf.y', message: 'y may not shrink' },
          ],
        },
      },
    };
    const created = evaluateRules({ x: { y: 1 } }, rules);
    expect(created).toEqual([
      { type: 'Forbidden', field: 'x.y', detail: 'y too small' },
      { type: 'Invalid', field: 'x', value: 'object', detail: expect.stringMatching(/ evaluating rule: self\.z == 1$/) },
    ]);
    expect(evaluateRules({ x: { y: 1 } }, rules, { value: { x: { y: 2 } } })).toEqual([{ type: 'Invalid', field: 'x', value: 'object', detail: 'y may not shrink' }]);
    expect(evaluateRules({ x: { y: 1 } }, rules, { value: {} })).toEqual([]);
  });
});

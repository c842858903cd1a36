import { jsonEqual } from '../json-patch.js';
import { labelSelectorOf } from '../label-selector.js';
import type { FieldError } from '../status.js';
import { isJsonObject, type KubeObject } from '../types.js';
import { podRules } from './pod-rules.js';
import type { ResourceRules } from './resource-rules.js';

type Json = Record<string, unknown>;

function specOf(object: KubeObject): Json {
  if (!isJsonObject(object['spec'])) object['spec'] = {};
  return object['spec'] as Json;
}

/** The pod template's spec, defaulted and validated by the pod rules, with paths under `spec.template`. */
function templateErrors(template: unknown): FieldError[] {
  if (!isJsonObject(template)) return [{ type: 'Required', field: 'spec.template' }];
  const pod = { metadata: isJsonObject(template['metadata']) ? template['metadata'] : {}, spec: template['spec'] } as KubeObject;
  return (podRules.validate?.(pod) ?? []).map((e) => ({ ...e, field: `spec.template.${e.field}` }));
}

function defaultTemplate(template: unknown): void {
  if (!isJsonObject(template)) return;
  const pod = { metadata: {}, spec: template['spec'] } as KubeObject;
  podRules.applyDefaults?.(pod);
  template['spec'] = pod['spec'];
}

/** Go's `%#v` of a label map, as the selector/labels mismatch message prints it. */
function goLabelMap(labels: Record<string, string>): string {
  return `map[string]string{${Object.entries(labels).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

/** Deployments (apps/v1): defaults, selector required and matching the template, selector immutable. */
export const deploymentRules: ResourceRules = {
  applyDefaults(deployment) {
    const spec = specOf(deployment);
    spec['replicas'] ??= 1;
    spec['strategy'] ??= { type: 'RollingUpdate' };
    const strategy = spec['strategy'] as Json;
    if (strategy['type'] === 'RollingUpdate') strategy['rollingUpdate'] ??= { maxUnavailable: '25%', maxSurge: '25%' };
    spec['revisionHistoryLimit'] ??= 10;
    spec['progressDeadlineSeconds'] ??= 600;
    defaultTemplate(spec['template']);
  },
  validate(deployment) {
    const spec = specOf(deployment);
    const errors: FieldError[] = [];
    const selector = spec['selector'];
    if (!isJsonObject(selector)) errors.push({ type: 'Required', field: 'spec.selector' });
    else if (labelSelectorOf(selector).empty) errors.push({ type: 'Invalid', field: 'spec.selector', value: selector, detail: 'empty selector is invalid for deployment' });
    const replicas = spec['replicas'];
    if (typeof replicas === 'number' && replicas < 0) errors.push({ type: 'Invalid', field: 'spec.replicas', value: replicas, detail: 'must be greater than or equal to 0' });
    errors.push(...templateErrors(spec['template']));
    const template = spec['template'];
    const labels = (isJsonObject(template) && isJsonObject(template['metadata']) ? (template['metadata']['labels'] ?? {}) : {}) as Record<string, string>;
    if (isJsonObject(selector) && !labelSelectorOf(selector).empty && !labelSelectorOf(selector).matches(labels)) {
      errors.push({ type: 'Invalid', field: 'spec.template.metadata.labels', value: goLabelMap(labels), detail: '`selector` does not match template `labels`' });
    }
    return errors;
  },
  validateUpdate(next, old) {
    return jsonEqual(specOf(next)['selector'], specOf(old)['selector']) ? [] : [{ type: 'Invalid', field: 'spec.selector', value: specOf(next)['selector'], detail: 'field is immutable' }];
  },
};

const PERCENT_OR_INT = /^(\d+)%$/;

function intOrPercentErrors(value: unknown, field: string): FieldError[] {
  if (value === undefined) return [];
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? [] : [{ type: 'Invalid', field, value, detail: 'must be greater than or equal to 0' }];
  if (typeof value === 'string' && PERCENT_OR_INT.test(value)) return Number(value.slice(0, -1)) <= 100 ? [] : [{ type: 'Invalid', field, value, detail: 'must not be greater than 100%' }];
  return [{ type: 'Invalid', field, value, detail: 'a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')' }];
}

/** PodDisruptionBudgets (policy/v1): minAvailable xor maxUnavailable, each an int or a percentage. */
export const pdbRules: ResourceRules = {
  validate(pdb) {
    const spec = specOf(pdb);
    const errors = [...intOrPercentErrors(spec['minAvailable'], 'spec.minAvailable'), ...intOrPercentErrors(spec['maxUnavailable'], 'spec.maxUnavailable')];
    if (spec['minAvailable'] !== undefined && spec['maxUnavailable'] !== undefined) {
      errors.push({ type: 'Invalid', field: 'spec', value: spec, detail: 'minAvailable and maxUnavailable cannot be both set' });
    }
    return errors;
  },
};

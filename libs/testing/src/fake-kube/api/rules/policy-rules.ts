import { configKeyErrors } from '../names.js';
import { jsonEqual } from '../json-patch.js';
import type { FieldError } from '../status.js';
import { isJsonObject, type KubeObject } from '../types.js';
import type { ResourceRules } from './resource-rules.js';

type Json = Record<string, unknown>;

const MAX_CONFIG_BYTES = 1024 * 1024;

/** The `immutable: true` rule shared by Secrets and ConfigMaps: data fields and the flag itself stay as they were. */
export function immutableDataErrors(next: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const detail = 'field is immutable when `immutable` is set';
  const errors: FieldError[] = fields.filter((f) => !jsonEqual(next[f] ?? {}, old[f] ?? {})).map((field) => ({ type: 'Forbidden', field, detail }));
  if (next['immutable'] !== true) errors.push({ type: 'Forbidden', field: 'immutable', detail });
  return errors;
}

/** ConfigMaps (v1): data/binaryData keys, 1 MiB in all, `immutable`. */
export const configMapRules: ResourceRules = {
  validate(configMap) {
    const errors: FieldError[] = [];
    let total = 0;
    for (const field of ['data', 'binaryData']) {
      for (const [key, value] of Object.entries((configMap[field] as Record<string, string> | undefined) ?? {})) {
        for (const detail of configKeyErrors(key)) errors.push({ type: 'Invalid', field: `${field}[${key}]`, value: key, detail });
        if (field === 'data' && isJsonObject(configMap['binaryData']) && key in configMap['binaryData']) errors.push({ type: 'Invalid', field: `data[${key}]`, value: key, detail: 'duplicate of key present in binaryData' });
        total += key.length + (field === 'data' ? Buffer.byteLength(String(value)) : Buffer.from(String(value), 'base64').length);
      }
    }
    if (total > MAX_CONFIG_BYTES) errors.push({ type: 'TooLong', field: '', detail: `must have at most ${MAX_CONFIG_BYTES} bytes` });
    return errors;
  },
  validateUpdate: (next, old) => immutableDataErrors(next, old, ['data', 'binaryData']),
};

const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

/** Roles (rbac/v1): each rule names verbs, and API groups when it names resources. */
export const roleRules: ResourceRules = {
  validate(role) {
    const errors: FieldError[] = [];
    (Array.isArray(role['rules']) ? role['rules'] : []).forEach((rule, i) => {
      const r = (isJsonObject(rule) ? rule : {}) as Json;
      if (!Array.isArray(r['verbs']) || r['verbs'].length === 0) errors.push({ type: 'Required', field: `rules[${i}].verbs`, detail: 'verbs must contain at least one value' });
      if (Array.isArray(r['resources']) && r['resources'].length > 0 && !Array.isArray(r['apiGroups'])) {
        errors.push({ type: 'Required', field: `rules[${i}].apiGroups`, detail: 'resource rules must supply at least one api group' });
      }
    });
    return errors;
  },
};

/** RoleBindings (rbac/v1): a roleRef to a Role or ClusterRole that never changes, typed subjects. */
export const roleBindingRules: ResourceRules = {
  validate(binding) {
    const errors: FieldError[] = [];
    const ref = (isJsonObject(binding['roleRef']) ? binding['roleRef'] : {}) as Json;
    if (ref['apiGroup'] !== 'rbac.authorization.k8s.io') errors.push({ type: 'NotSupported', field: 'roleRef.apiGroup', value: ref['apiGroup'] ?? '', detail: 'supported values: "rbac.authorization.k8s.io"' });
    if (ref['kind'] !== 'Role' && ref['kind'] !== 'ClusterRole') errors.push({ type: 'NotSupported', field: 'roleRef.kind', value: ref['kind'] ?? '', detail: 'supported values: "Role", "ClusterRole"' });
    if (!ref['name']) errors.push({ type: 'Required', field: 'roleRef.name' });
    (Array.isArray(binding['subjects']) ? binding['subjects'] : []).forEach((subject, i) => {
      const s = (isJsonObject(subject) ? subject : {}) as Json;
      if (!SUBJECT_KINDS.includes(s['kind'] as string)) errors.push({ type: 'NotSupported', field: `subjects[${i}].kind`, value: s['kind'] ?? '', detail: 'supported values: "ServiceAccount", "User", "Group"' });
      if (!s['name']) errors.push({ type: 'Required', field: `subjects[${i}].name` });
    });
    return errors;
  },
  validateUpdate(next, old) {
    return jsonEqual(next['roleRef'], old['roleRef']) ? [] : [{ type: 'Invalid', field: 'roleRef', value: next['roleRef'], detail: 'cannot change roleRef' }];
  },
};

const POLICY_TYPES = ['Ingress', 'Egress'];

/** NetworkPolicies (networking/v1): `policyTypes` defaulted as the real server does (Egress only when egress rules exist). */
export const networkPolicyRules: ResourceRules = {
  applyDefaults(policy) {
    if (!isJsonObject(policy['spec'])) policy['spec'] = {};
    const spec = policy['spec'] as Json;
    spec['podSelector'] ??= {};
    if (!Array.isArray(spec['policyTypes']) || spec['policyTypes'].length === 0) {
      spec['policyTypes'] = Array.isArray(spec['egress']) && spec['egress'].length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    }
    for (const direction of ['ingress', 'egress']) {
      for (const rule of Array.isArray(spec[direction]) ? (spec[direction] as unknown[]) : []) {
        for (const port of isJsonObject(rule) && Array.isArray(rule['ports']) ? rule['ports'] : []) if (isJsonObject(port)) port['protocol'] ??= 'TCP';
      }
    }
  },
  validate(policy) {
    const types = ((policy['spec'] as Json)['policyTypes'] as unknown[]) ?? [];
    return types.flatMap((type, i) => (POLICY_TYPES.includes(type as string) ? [] : [{ type: 'NotSupported' as const, field: `spec.policyTypes[${i}]`, value: type, detail: 'supported values: "Ingress", "Egress"' }]));
  },
};

/** Events (core v1): the involved object of a namespaced event lives in the event's namespace. */
export const eventRules: ResourceRules = {
  validate(event) {
    const involved = (isJsonObject(event['involvedObject']) ? event['involvedObject'] : {}) as Json;
    const namespace = involved['namespace'];
    if (typeof namespace === 'string' && namespace !== '' && namespace !== event.metadata.namespace) {
      return [{ type: 'Invalid', field: 'involvedObject.namespace', value: namespace, detail: 'does not match event.namespace' }];
    }
    return [];
  },
};

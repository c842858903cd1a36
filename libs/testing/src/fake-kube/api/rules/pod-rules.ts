import { jsonEqual } from '../json-patch.js';
import { dnsLabelErrors } from '../names.js';
import type { FieldError } from '../status.js';
import { cloneJson, isJsonObject, type KubeObject } from '../types.js';
import type { ResourceRules } from './resource-rules.js';

type Json = Record<string, unknown>;

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const SPEC_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

function defaultProbe(probe: unknown): void {
  if (!isJsonObject(probe)) return;
  probe['timeoutSeconds'] ??= 1;
  probe['periodSeconds'] ??= 10;
  probe['successThreshold'] ??= 1;
  probe['failureThreshold'] ??= 3;
  if (isJsonObject(probe['httpGet'])) probe['httpGet']['scheme'] ??= 'HTTP';
}

function defaultContainer(container: Json): void {
  const image = typeof container['image'] === 'string' ? container['image'] : '';
  const lastSegment = image.split('/').pop() ?? '';
  const tagged = lastSegment.includes(':') && !lastSegment.endsWith(':latest');
  container['imagePullPolicy'] ??= image.includes('@') || tagged ? 'IfNotPresent' : 'Always';
  container['terminationMessagePath'] ??= '/dev/termination-log';
  container['terminationMessagePolicy'] ??= 'File';
  const resources = isJsonObject(container['resources']) ? container['resources'] : {};
  // Defaulting copies limits into missing requests, as the real server does.
  if (isJsonObject(resources['limits'])) {
    const requests = isJsonObject(resources['requests']) ? resources['requests'] : {};
    for (const [name, quantity] of Object.entries(resources['limits'])) requests[name] ??= quantity;
    resources['requests'] = requests;
  }
  container['resources'] = resources;
  for (const port of Array.isArray(container['ports']) ? container['ports'] : []) {
    if (isJsonObject(port)) port['protocol'] ??= 'TCP';
  }
  defaultProbe(container['readinessProbe']);
  defaultProbe(container['livenessProbe']);
  defaultProbe(container['startupProbe']);
}

function containersOf(spec: Json): Json[] {
  return (Array.isArray(spec['containers']) ? spec['containers'] : []).filter(isJsonObject);
}

/** `status.qosClass` from requests/limits (string comparison of quantities: good enough for a fake). */
export function qosClassOf(spec: Json): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = containersOf(spec);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const resources = isJsonObject(c['resources']) ? c['resources'] : {};
    const requests = isJsonObject(resources['requests']) ? resources['requests'] : {};
    const limits = isJsonObject(resources['limits']) ? resources['limits'] : {};
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) any = true;
    for (const name of ['cpu', 'memory']) {
      if (limits[name] === undefined || requests[name] !== limits[name]) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function validateContainers(spec: Json): FieldError[] {
  const errors: FieldError[] = [];
  const raw = spec['containers'];
  if (!Array.isArray(raw) || raw.length === 0) return [{ type: 'Required', field: 'spec.containers' }];
  const seen = new Set<string>();
  raw.forEach((c, i) => {
    const at = `spec.containers[${i}]`;
    if (!isJsonObject(c)) {
      errors.push({ type: 'Invalid', field: at, value: c, detail: 'must be an object' });
      return;
    }
    const name = c['name'];
    if (typeof name !== 'string' || name === '') errors.push({ type: 'Required', field: `${at}.name` });
    else {
      for (const detail of dnsLabelErrors(name)) errors.push({ type: 'Invalid', field: `${at}.name`, value: name, detail });
      if (seen.has(name)) errors.push({ type: 'Duplicate', field: `${at}.name`, value: name });
      seen.add(name);
    }
    if (typeof c['image'] !== 'string' || c['image'] === '') errors.push({ type: 'Required', field: `${at}.image` });
    (Array.isArray(c['env']) ? c['env'] : []).forEach((e, j) => {
      const envAt = `${at}.env[${j}]`;
      const envName = isJsonObject(e) ? e['name'] : undefined;
      if (typeof envName !== 'string' || envName === '') errors.push({ type: 'Required', field: `${envAt}.name` });
      else if (!/^[\x20-\x7e]+$/.test(envName) || envName.includes('=')) {
        errors.push({
          type: 'Invalid',
          field: `${envAt}.name`,
          value: envName,
          detail: "a valid environment variable name must consist only of printable ASCII characters other than '='",
        });
      }
      const ref = isJsonObject(e) && isJsonObject(e['valueFrom']) ? e['valueFrom']['secretKeyRef'] : undefined;
      if (isJsonObject(ref)) {
        if (typeof ref['key'] !== 'string' || ref['key'] === '') errors.push({ type: 'Required', field: `${envAt}.valueFrom.secretKeyRef.key` });
        if (typeof ref['name'] !== 'string' || ref['name'] === '') errors.push({ type: 'Required', field: `${envAt}.valueFrom.secretKeyRef.name` });
      }
    });
  });
  return errors;
}

/** Pods: defaulting, spec validation, spec immutability on update, initial `status.phase: Pending`. */
export const podRules: ResourceRules = {
  applyDefaults(pod) {
    const spec = isJsonObject(pod['spec']) ? (pod['spec'] as Json) : {};
    pod['spec'] = spec;
    spec['restartPolicy'] ??= 'Always';
    spec['terminationGracePeriodSeconds'] ??= 30;
    spec['dnsPolicy'] ??= 'ClusterFirst';
    spec['securityContext'] ??= {};
    spec['schedulerName'] ??= 'default-scheduler';
    spec['enableServiceLinks'] ??= true;
    spec['priority'] ??= 0;
    spec['preemptionPolicy'] ??= 'PreemptLowerPriority';
    // The ServiceAccount admission plugin fills both fields.
    spec['serviceAccountName'] ??= typeof spec['serviceAccount'] === 'string' ? spec['serviceAccount'] : 'default';
    spec['serviceAccount'] ??= spec['serviceAccountName'];
    for (const c of containersOf(spec)) defaultContainer(c);
  },
  prepareForCreate(pod) {
    const spec = pod['spec'] as Json;
    // DefaultTolerationSeconds admission adds these on create.
    const tolerations = Array.isArray(spec['tolerations']) ? spec['tolerations'] : [];
    for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
      if (!tolerations.some((t) => isJsonObject(t) && t['key'] === key)) {
        tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
      }
    }
    spec['tolerations'] = tolerations;
    pod['status'] = { phase: 'Pending', qosClass: qosClassOf(spec) };
  },
  prepareForUpdate(next, old) {
    next['status'] = cloneJson(old['status']);
  },
  validate(pod) {
    const spec = pod['spec'];
    if (!isJsonObject(spec)) return [{ type: 'Required', field: 'spec' }];
    const errors = validateContainers(spec);
    const policy = spec['restartPolicy'];
    if (typeof policy === 'string' && !RESTART_POLICIES.includes(policy)) {
      errors.push({ type: 'NotSupported', field: 'spec.restartPolicy', value: policy, detail: `supported values: "Always", "OnFailure", "Never"` });
    }
    return errors;
  },
  validateUpdate(next, old) {
    const a = cloneJson((next['spec'] ?? {}) as Json);
    const b = cloneJson((old['spec'] ?? {}) as Json);
    // Mask the fields a pod update may change, then require the rest to be identical.
    for (const key of ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds']) {
      if (a[key] === undefined) delete b[key];
      else b[key] = a[key];
    }
    for (const list of ['containers', 'initContainers']) {
      const newer = Array.isArray(a[list]) ? (a[list] as unknown[]) : [];
      const older = Array.isArray(b[list]) ? (b[list] as unknown[]) : [];
      if (newer.length === older.length) {
        older.forEach((c, i) => {
          if (isJsonObject(c) && isJsonObject(newer[i])) c['image'] = (newer[i] as Json)['image'];
        });
      }
    }
    return jsonEqual(a, b) ? [] : [{ type: 'Forbidden', field: 'spec', detail: SPEC_UPDATE_FORBIDDEN }];
  },
};

/** Whether the kubelet has bound the pod (`spec.nodeName`). */
export function nodeNameOf(pod: KubeObject): string {
  const spec = pod['spec'];
  return isJsonObject(spec) && typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
}

import { isJsonObject, type KubeObject } from '../api/types.js';

type Json = Record<string, unknown>;

/** Pod condition types the kubelet maintains. */
export type ConditionType = 'PodScheduled' | 'Initialized' | 'ContainersReady' | 'Ready';

/** Container state as reported in `containerStatuses[].state`. */
export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; startedAt?: string; finishedAt: string; signal?: number } };

/** Returns `pod.status`, creating it when missing. */
export function statusOf(pod: KubeObject): Json {
  if (!isJsonObject(pod['status'])) pod['status'] = {};
  return pod['status'] as Json;
}

/**
 * Sets a condition, keeping `lastTransitionTime` when the status value did not change (as the kubelet does, so
 * repeated probes do not produce writes).
 */
export function setCondition(status: Json, type: ConditionType, value: boolean, now: string, reason?: string, message?: string): void {
  const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter(isJsonObject);
  const wanted = value ? 'True' : 'False';
  const existing = conditions.find((c) => c['type'] === type);
  const condition: Json = { type, status: wanted, lastProbeTime: null, lastTransitionTime: now };
  if (existing && existing['status'] === wanted) condition['lastTransitionTime'] = existing['lastTransitionTime'];
  if (reason) condition['reason'] = reason;
  if (message) condition['message'] = message;
  const order: ConditionType[] = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'];
  const merged = conditions.filter((c) => c['type'] !== type).concat(condition);
  merged.sort((a, b) => order.indexOf(a['type'] as ConditionType) - order.indexOf(b['type'] as ConditionType));
  status['conditions'] = merged;
}

/** Condition status (`'True'`, `'False'`, undefined). */
export function conditionOf(pod: KubeObject, type: ConditionType): string | undefined {
  const conditions = (Array.isArray(statusOf(pod)['conditions']) ? (statusOf(pod)['conditions'] as unknown[]) : []).filter(isJsonObject);
  return conditions.find((c) => c['type'] === type)?.['status'] as string | undefined;
}

/** Readiness of the whole pod: sets ContainersReady and Ready together. */
export function setReady(status: Json, ready: boolean, now: string): void {
  const reason = ready ? undefined : 'ContainersNotReady';
  setCondition(status, 'ContainersReady', ready, now, reason, ready ? undefined : 'containers with unready status: [sandbox]');
  setCondition(status, 'Ready', ready, now, reason, ready ? undefined : 'containers with unready status: [sandbox]');
}

/** Writes `containerStatuses` for the pod's containers; the first one is the simulated agent. */
export function setContainerStatus(
  pod: KubeObject,
  fields: { ready: boolean; restartCount: number; state: ContainerState; lastState?: ContainerState; containerId?: string },
): void {
  const status = statusOf(pod);
  const spec = isJsonObject(pod['spec']) ? pod['spec'] : {};
  const containers = (Array.isArray(spec['containers']) ? spec['containers'] : []).filter(isJsonObject);
  status['containerStatuses'] = containers.map((c, i) => {
    const base: Json = {
      name: c['name'],
      image: c['image'],
      imageID: `fake://${String(c['image'])}`,
      ready: i === 0 ? fields.ready : false,
      restartCount: i === 0 ? fields.restartCount : 0,
      started: i === 0 ? 'running' in fields.state : false,
      state: i === 0 ? fields.state : { waiting: { reason: 'ContainerCreating', message: 'only the first container is simulated' } },
      lastState: i === 0 && fields.lastState ? fields.lastState : {},
    };
    if (i === 0 && fields.containerId) base['containerID'] = fields.containerId;
    return base;
  });
}

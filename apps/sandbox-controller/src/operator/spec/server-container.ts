import { compareQuantities, parseResourceQuantity, type Quantity, type ResourceQuantityRules } from '@cli-mcp/podspec';
import type { PullPolicy, QuantityValue, ServerContainerSpec } from '../api/climcpinstance.js';

/** The MCP server container as the operator renders it. */
export interface ServerContainerSettings {
  /** Always the operator's RELATED_IMAGE_SERVER (not a spec field, as in the Go operator). */
  readonly image: string;
  readonly imagePullPolicy: PullPolicy | undefined;
  readonly resources: {
    readonly requests: { readonly cpu: string; readonly memory: string };
    readonly limits: { readonly cpu: string; readonly memory: string };
  };
}

/** The kustomize path's server resources (deploy/base/server-deployment.yaml): the defaults of missing fields. */
export const DEFAULT_SERVER_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } } as const;

const RULES: Record<'cpu' | 'memory', ResourceQuantityRules> = { cpu: { unit: 'cpu', positive: false }, memory: { unit: 'bytes', positive: false } };
const POLICIES: readonly PullPolicy[] = ['Always', 'Never', 'IfNotPresent'];

/**
 * `spec.serverContainer` → the server container's resources and pull policy: each missing quantity takes the
 * default, every quantity is checked like a sandbox's (C-K8S-3: never negative, whole millicores and bytes,
 * requests ≤ limits), problems named by CR field. Undefined when something is wrong (see `errors`).
 */
export function resolveServerContainer(spec: ServerContainerSpec | undefined, image: string, errors: string[]): ServerContainerSettings | undefined {
  const before = errors.length;
  const field = (kind: 'requests' | 'limits', resource: 'cpu' | 'memory'): { text: string; value?: Quantity } => {
    const given: QuantityValue | undefined = spec?.resources?.[kind]?.[resource];
    const text = given === undefined || given === null ? DEFAULT_SERVER_RESOURCES[kind][resource] : String(given);
    const parsed = parseResourceQuantity(text, `spec.serverContainer.resources.${kind}.${resource}`, { ...RULES[resource], positive: kind === 'limits' });
    if (!parsed.ok) errors.push(parsed.error);
    return parsed.ok ? { text, value: parsed.value } : { text };
  };
  const requests = { cpu: field('requests', 'cpu'), memory: field('requests', 'memory') };
  const limits = { cpu: field('limits', 'cpu'), memory: field('limits', 'memory') };
  for (const resource of ['cpu', 'memory'] as const) {
    const request = requests[resource].value;
    const limit = limits[resource].value;
    if (request && limit && compareQuantities(request, limit) > 0) {
      errors.push(`spec.serverContainer.resources.requests.${resource} ${JSON.stringify(request.text)} must be less than or equal to spec.serverContainer.resources.limits.${resource} ${JSON.stringify(limit.text)}`);
    }
  }
  const policy = spec?.imagePullPolicy;
  if (policy !== undefined && !POLICIES.includes(policy)) errors.push('spec.serverContainer.imagePullPolicy must be Always, Never, or IfNotPresent');
  if (errors.length > before) return undefined;
  return {
    image,
    imagePullPolicy: policy,
    resources: {
      requests: { cpu: requests.cpu.text, memory: requests.memory.text },
      limits: { cpu: limits.cpu.text, memory: limits.memory.text },
    },
  };
}

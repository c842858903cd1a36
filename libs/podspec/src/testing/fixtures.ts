import type { V1Pod } from '@kubernetes/client-node';
import type { RandomBytes } from '../names.js';
import type { RawSandboxPodConfig, SandboxPodConfig } from '../sandbox-config.js';
import { validateSandboxPodConfig } from '../validate-sandbox-config.js';

/**
 * Shared fixtures of the podspec tests (test support only). Identity values are the Go Phase 3 test
 * constants (Go §17.2).
 */

export const NAMESPACE = 'cli-mcp';
export const INSTANCE = 'oc';
export const SERVICE_ACCOUNT = 'cli-mcp-oc-sandbox';
export const KUBECONFIG_SECRET = 'cli-mcp-oc-kubeconfig';
export const IMAGE = 'quay.io/codeready-toolchain/cli-mcp-sandbox:test';
export const SESSION_ID = 'inv-abc-123';
export const TOKEN = 'a'.repeat(64);

/** A fixed build time with milliseconds, to prove annotations truncate to seconds. */
export const NOW = new Date('2026-07-29T17:38:22.789Z');
export const NOW_STAMP = '2026-07-29T17:38:22Z';

/** Raw settings with every required identity flag set (the minimal valid command line). */
export function rawConfig(overrides: RawSandboxPodConfig = {}): RawSandboxPodConfig {
  return {
    namespace: NAMESPACE,
    instanceName: INSTANCE,
    image: IMAGE,
    serviceAccountName: SERVICE_ACCOUNT,
    kubeconfigSecret: KUBECONFIG_SECRET,
    ...overrides,
  };
}

/** A validated config from {@link rawConfig}; fails loudly if the fixture itself is invalid. */
export function sandboxConfig(overrides: RawSandboxPodConfig = {}): SandboxPodConfig {
  const result = validateSandboxPodConfig(rawConfig(overrides));
  if (!result.ok) throw new Error(`fixture config invalid: ${result.errors.join('; ')}`);
  return result.config;
}

/** The Go §17.2 overlay flags: `200m`, `1`, `256Mi`, `1Gi`, `IfNotPresent` and an env list with reserved names. */
export const OVERLAY: RawSandboxPodConfig = {
  cpuRequest: '200m',
  cpuLimit: '1',
  memoryRequest: '256Mi',
  memoryLimit: '1Gi',
  imagePullPolicy: 'IfNotPresent',
};

/** Deterministic "random" bytes: 0, 1, 2, … continuing across calls. */
export function countingRandom(): RandomBytes {
  let next = 0;
  return (size) => Uint8Array.from({ length: size }, () => next++ % 256);
}

/** A pod as observed from the API, for the status predicates. */
export function observedPod(fields: {
  name?: string;
  phase?: string;
  ready?: 'True' | 'False';
  annotations?: Record<string, string>;
  creationTimestamp?: Date | string;
  deletionTimestamp?: Date;
}): V1Pod {
  return {
    metadata: {
      name: fields.name ?? 'pod',
      annotations: fields.annotations,
      creationTimestamp: fields.creationTimestamp as Date | undefined,
      deletionTimestamp: fields.deletionTimestamp,
    },
    status: {
      phase: fields.phase,
      conditions: fields.ready === undefined ? undefined : [{ type: 'Ready', status: fields.ready }],
    },
  };
}

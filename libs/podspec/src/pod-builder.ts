import type { V1EnvVar, V1Pod } from '@kubernetes/client-node';
import { CREATED_AT_ANNOTATION, EGRESS_PROXY_ADDRESS_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SPEC_HASH_ANNOTATION, sandboxLabels } from './labels.js';
import { authSecretName, sessionPodName } from './names.js';
import { buildSandboxPodSpec } from './pod-spec.js';
import type { SandboxPodConfig } from './sandbox-config.js';
import { AUTH_TOKEN_ENV, AUTH_TOKEN_KEY } from './secret-builder.js';
import { sandboxSpecHash } from './spec-hash.js';
import { formatTimestamp } from './timestamp.js';

/**
 * Sandbox pods (Go §6.1/§6.2, C-K8S-1/3): one base shape, a session variant (created on demand, token from
 * the session Secret) and a warm variant (unassigned pool pod, token delivered later by `POST /assign`).
 * The builders never throw on user input — the config was validated — and are deterministic for a given
 * (cfg, name, now).
 */

/**
 * The pod every sandbox starts from: instance + component labels, created-at and last-activity = `now`
 * (RFC 3339 UTC seconds), the spec hash, and the hardened spec of `buildSandboxPodSpec`.
 */
export function buildBasePod(name: string, cfg: SandboxPodConfig, now: Date): V1Pod {
  return sandboxPod(name, cfg, now, undefined);
}

/**
 * The pod created on demand for one session (Go §6.2): deterministic name per (instance, session), the
 * session label, and `SANDBOX_AUTH_TOKEN` from the session Secret appended last, so the agent starts
 * assigned. Names and labels derive from `instance`, which replaces `cfg.instanceName` (normally equal).
 */
export function buildSessionPod(cfg: SandboxPodConfig, instance: string, sessionId: string, now: Date): V1Pod {
  const scoped: SandboxPodConfig = instance === cfg.instanceName ? cfg : { ...cfg, instanceName: instance };
  return sandboxPod(sessionPodName(instance, sessionId), scoped, now, sessionId);
}

/**
 * An unassigned warm-pool pod named `name` (see `warmPodName`): no session label and no token; claiming it
 * adds the label and delivers the token via `POST /assign` (C-K8S-4).
 */
export function buildWarmPod(cfg: SandboxPodConfig, name: string, now: Date): V1Pod {
  return sandboxPod(name, cfg, now, undefined);
}

function sandboxPod(name: string, cfg: SandboxPodConfig, now: Date, sessionId: string | undefined): V1Pod {
  const stamp = formatTimestamp(now);
  const tokenEnv: V1EnvVar[] =
    sessionId === undefined
      ? []
      : [{ name: AUTH_TOKEN_ENV, valueFrom: { secretKeyRef: { name: authSecretName(cfg.instanceName, sessionId), key: AUTH_TOKEN_KEY } } }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: cfg.namespace,
      labels: sandboxLabels(cfg.instanceName, sessionId),
      annotations: {
        [CREATED_AT_ANNOTATION]: stamp,
        [LAST_ACTIVITY_ANNOTATION]: stamp,
        [SPEC_HASH_ANNOTATION]: sandboxSpecHash(cfg),
        ...(cfg.egressProxyAddress === undefined ? {} : { [EGRESS_PROXY_ADDRESS_ANNOTATION]: cfg.egressProxyAddress }),
      },
    },
    spec: buildSandboxPodSpec(cfg, tokenEnv),
  };
}

import type { V1Secret } from '@kubernetes/client-node';
import { sandboxLabels } from './labels.js';
import { authSecretName } from './names.js';
import type { SandboxPodConfig } from './sandbox-config.js';

/** Data key of the session token in the auth Secret (Go §3.2, C-K8S-2). */
export const AUTH_TOKEN_KEY = 'token';
/** Env var through which an on-demand pod's agent receives its token (C-AG-10). */
export const AUTH_TOKEN_ENV = 'SANDBOX_AUTH_TOKEN';

/**
 * The per-session Secret holding the agent token (Go §3.2): deterministic name per (instance, session),
 * instance + component + session labels (so deletion can check ownership, C-K8S-8), `type: Opaque`,
 * `stringData.token`. The token is only ever placed here, never in logs or errors (C-AUTH-2).
 */
export function buildAuthSecret(cfg: SandboxPodConfig, sessionId: string, token: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: authSecretName(cfg.instanceName, sessionId),
      namespace: cfg.namespace,
      labels: sandboxLabels(cfg.instanceName, sessionId),
    },
    type: 'Opaque',
    stringData: { [AUTH_TOKEN_KEY]: token },
  };
}

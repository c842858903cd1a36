import { describe, expect, it } from 'vitest';
import { assignedSelector, COMPONENT_LABEL, INSTANCE_LABEL, SESSION_ID_LABEL } from './labels.js';
import { authSecretName } from './names.js';
import { AUTH_TOKEN_KEY, buildAuthSecret } from './secret-builder.js';
import { INSTANCE, NAMESPACE, SESSION_ID, TOKEN, sandboxConfig } from './testing/fixtures.js';

// Go TestBuildAuthSecret (§17.1/§17.2), with instance-scoped names (C-K8S-2).
describe(buildAuthSecret.name, () => {
  const secret = buildAuthSecret(sandboxConfig(), SESSION_ID, TOKEN);

  it('is the exact Secret', () => {
    expect(secret).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: authSecretName(INSTANCE, SESSION_ID),
        namespace: NAMESPACE,
        labels: { [INSTANCE_LABEL]: INSTANCE, [COMPONENT_LABEL]: 'sandbox', [SESSION_ID_LABEL]: SESSION_ID },
      },
      type: 'Opaque',
      stringData: { token: TOKEN },
    });
  });

  it('stores the token under data key "token"', () => {
    expect(AUTH_TOKEN_KEY).toBe('token');
    expect(secret.stringData).toEqual({ token: TOKEN });
    expect(secret).not.toHaveProperty('data');
  });

  it('is found by the session selector (its labels match assignedSelector)', () => {
    const selector = assignedSelector(INSTANCE, SESSION_ID);
    for (const [key, value] of Object.entries(secret.metadata?.labels ?? {})) expect(selector).toContain(`${key}=${value}`);
  });

  it('is named per instance, so another instance cannot take or delete it', () => {
    expect(buildAuthSecret(sandboxConfig({ instanceName: 'aws' }), SESSION_ID, TOKEN).metadata?.name).not.toBe(secret.metadata?.name);
  });
});

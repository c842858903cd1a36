import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types.js';
import { expandEnvReferences, resolveContainerEnv } from './env-resolver.js';

const pod: KubeObject = { metadata: { name: 'p', namespace: 'ns', uid: 'u', labels: { app: 'a' } }, spec: {} };
const secrets: Record<string, KubeObject> = {
  'ns/auth': { metadata: { name: 'auth', namespace: 'ns' }, data: { token: Buffer.from('t0k').toString('base64') } },
};
const lookup = (namespace: string, name: string): KubeObject | undefined => secrets[`${namespace}/${name}`];
const context = { podIp: '127.0.0.9', nodeName: 'node' };

describe(resolveContainerEnv.name, () => {
  it('resolves values, secretKeyRef, fieldRef and $(VAR) references', () => {
    const result = resolveContainerEnv(
      pod,
      {
        env: [
          { name: 'HOME', value: '/workspace' },
          { name: 'SANDBOX_AUTH_TOKEN', valueFrom: { secretKeyRef: { name: 'auth', key: 'token' } } },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'DIR', value: '$(HOME)/x $$(HOME) $(NOPE)' },
        ],
      },
      lookup,
      context,
    );
    expect(result).toEqual({
      ok: true,
      env: { HOME: '/workspace', SANDBOX_AUTH_TOKEN: 't0k', POD_IP: '127.0.0.9', APP: 'a', DIR: '/workspace/x $(HOME) $(NOPE)' },
    });
  });

  it('blocks the start on a missing secret or key, with the kubelet wording', () => {
    const missingSecret = resolveContainerEnv(pod, { env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'nope', key: 'token' } } }] }, lookup, context);
    expect(missingSecret).toEqual({ ok: false, error: { reason: 'CreateContainerConfigError', message: 'secret "nope" not found' } });
    const missingKey = resolveContainerEnv(pod, { env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'auth', key: 'x' } } }] }, lookup, context);
    expect(missingKey).toMatchObject({ ok: false, error: { message: "couldn't find key x in Secret ns/auth" } });
  });

  it('skips optional references and expands envFrom', () => {
    const result = resolveContainerEnv(
      pod,
      {
        envFrom: [{ secretRef: { name: 'auth' }, prefix: 'S_' }, { secretRef: { name: 'nope', optional: true } }],
        env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } }],
      },
      lookup,
      context,
    );
    expect(result).toEqual({ ok: true, env: { S_token: 't0k' } });
  });
});

describe(expandEnvReferences.name, () => {
  it('expands only known names', () => {
    expect(expandEnvReferences('$(A)-$(B)-$$(A)', { A: '1' })).toBe('1-$(B)-$(A)');
  });
});

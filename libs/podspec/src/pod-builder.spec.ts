import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { COMPONENT_LABEL, CREATED_AT_ANNOTATION, INSTANCE_LABEL, LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, SPEC_HASH_ANNOTATION } from './labels.js';
import { authSecretName, sessionPodName } from './names.js';
import { buildBasePod, buildSessionPod, buildWarmPod } from './pod-builder.js';
import type { SandboxPodConfig } from './sandbox-config.js';
import { sandboxSpecHash } from './spec-hash.js';
import { IMAGE, INSTANCE, KUBECONFIG_SECRET, NAMESPACE, NOW, NOW_STAMP, OVERLAY, SERVICE_ACCOUNT, SESSION_ID, sandboxConfig } from './testing/fixtures.js';

const container = (pod: V1Pod): V1Container => pod.spec!.containers[0]!;
const envNames = (pod: V1Pod): string[] => (container(pod).env ?? []).map((e) => e.name);

/** The whole session pod for the default config: the contract of this library in one picture. */
function expectedSessionPod(cfg: SandboxPodConfig): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: sessionPodName(INSTANCE, SESSION_ID),
      namespace: NAMESPACE,
      labels: { [INSTANCE_LABEL]: INSTANCE, [COMPONENT_LABEL]: 'sandbox', [SESSION_ID_LABEL]: SESSION_ID },
      annotations: { [CREATED_AT_ANNOTATION]: NOW_STAMP, [LAST_ACTIVITY_ANNOTATION]: NOW_STAMP, [SPEC_HASH_ANNOTATION]: sandboxSpecHash(cfg) },
    },
    spec: {
      serviceAccountName: SERVICE_ACCOUNT,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 310,
      containers: [
        {
          name: 'sandbox',
          image: IMAGE,
          ports: [{ name: 'agent', containerPort: 8090, protocol: 'TCP' }],
          env: [
            { name: 'KUBECONFIG', value: '/config/kubeconfig' },
            { name: 'HOME', value: '/workspace' },
            { name: 'SANDBOX_WORKDIR', value: '/workspace' },
            { name: 'SANDBOX_OUTPUT_DIR', value: '/workspace/.cli-mcp' },
            { name: 'SANDBOX_AGENT_PORT', value: '8090' },
            { name: 'SANDBOX_MAX_TIMEOUT_SECONDS', value: '300' },
            { name: 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', value: '60' },
            { name: 'SANDBOX_AUTH_TOKEN', valueFrom: { secretKeyRef: { name: authSecretName(INSTANCE, SESSION_ID), key: 'token' } } },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
          readinessProbe: {
            exec: { command: ['curl', '-fsS', '--max-time', '1', 'http://127.0.0.1:8090/health'] },
            initialDelaySeconds: 1,
            periodSeconds: 2,
            timeoutSeconds: 2,
            successThreshold: 1,
            failureThreshold: 3,
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'] },
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          volumeMounts: [
            { name: 'kubeconfig', mountPath: '/config', readOnly: true },
            { name: 'workspace', mountPath: '/workspace' },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [
        { name: 'kubeconfig', secret: { secretName: KUBECONFIG_SECRET } },
        { name: 'workspace', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
      ],
    },
  };
}

describe(buildSessionPod.name, () => {
  const cfg = sandboxConfig();
  const pod = buildSessionPod(cfg, INSTANCE, SESSION_ID, NOW);

  it('is exactly the documented pod (strict: no stray undefined fields)', () => {
    expect(pod).toStrictEqual(expectedSessionPod(cfg));
  });

  // Go TestBuildPodSpec (§17.1/§17.2), adapted to our names and hardening.
  it('has the deterministic per-(instance, session) name, namespace and all three labels', () => {
    expect(pod.metadata?.name).toBe(sessionPodName(INSTANCE, SESSION_ID));
    expect(pod.metadata?.namespace).toBe(NAMESPACE);
    expect(pod.metadata?.labels).toEqual({ [INSTANCE_LABEL]: 'oc', [COMPONENT_LABEL]: 'sandbox', [SESSION_ID_LABEL]: SESSION_ID });
  });

  it('stamps created-at and last-activity with the build time in RFC 3339 UTC seconds', () => {
    expect(pod.metadata?.annotations?.[CREATED_AT_ANNOTATION]).toBe('2026-07-29T17:38:22Z');
    expect(pod.metadata?.annotations?.[LAST_ACTIVITY_ANNOTATION]).toBe('2026-07-29T17:38:22Z');
  });

  it('runs as non-root without a fixed UID (OpenShift assigns one)', () => {
    expect(pod.spec?.securityContext?.runAsNonRoot).toBe(true);
    expect(pod.spec?.securityContext).not.toHaveProperty('runAsUser');
    expect(pod.spec?.securityContext).not.toHaveProperty('runAsGroup');
    expect(pod.spec?.securityContext).not.toHaveProperty('fsGroup');
  });

  it('uses an exec readiness probe on loopback, never httpGet', () => {
    expect(container(pod).readinessProbe?.exec?.command).toEqual(['curl', '-fsS', '--max-time', '1', 'http://127.0.0.1:8090/health']);
    expect(container(pod).readinessProbe).not.toHaveProperty('httpGet');
    expect(container(pod)).not.toHaveProperty('livenessProbe');
  });

  it('uses the SA and kubeconfig Secret from the config and does not mount the SA token', () => {
    expect(pod.spec?.serviceAccountName).toBe(SERVICE_ACCOUNT);
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.volumes?.find((v) => v.name === 'kubeconfig')?.secret?.secretName).toBe(KUBECONFIG_SECRET);
  });

  it('appends SANDBOX_AUTH_TOKEN last, from the session Secret key "token" (Go §6.2)', () => {
    const env = container(pod).env!;
    expect(env.at(-1)).toEqual({
      name: 'SANDBOX_AUTH_TOKEN',
      valueFrom: { secretKeyRef: { name: authSecretName(INSTANCE, SESSION_ID), key: 'token' } },
    });
    expect(env.filter((e) => e.name === 'SANDBOX_AUTH_TOKEN')).toHaveLength(1);
  });

  it('keeps the token last after an overlay, and an overlay cannot replace it', () => {
    const withOverlay = { ...cfg, env: [{ name: 'A', value: '1' }, { name: 'SANDBOX_AUTH_TOKEN', value: 'forged' }] };
    const env = container(buildSessionPod(withOverlay, INSTANCE, SESSION_ID, NOW)).env!;
    expect(env.map((e) => e.name).slice(-2)).toEqual(['A', 'SANDBOX_AUTH_TOKEN']);
    expect(env.some((e) => e.value === 'forged')).toBe(false);
  });

  it('derives names and labels from the given instance', () => {
    const other = buildSessionPod(cfg, 'aws', SESSION_ID, NOW);
    expect(other.metadata?.name).toBe(sessionPodName('aws', SESSION_ID));
    expect(other.metadata?.labels?.[INSTANCE_LABEL]).toBe('aws');
    expect(container(other).env!.at(-1)?.valueFrom?.secretKeyRef?.name).toBe(authSecretName('aws', SESSION_ID));
    expect(other.metadata?.annotations?.[SPEC_HASH_ANNOTATION]).toBe(sandboxSpecHash(cfg));
  });
});

// Go TestBuildBasePodSpecOverlay (§17.2).
describe(buildBasePod.name, () => {
  it('(a) merges the overlay: env after the base, reserved names skipped, valueFrom kept; resources and pull policy applied', () => {
    const cfg: SandboxPodConfig = {
      ...sandboxConfig(OVERLAY),
      // Built by hand (not validated) to prove the builder itself skips reserved names (Go §6.3).
      env: [
        { name: 'AWS_REGION', value: 'us-east-1' },
        { name: 'KUBECONFIG', value: '/evil' },
        { name: 'HOME', value: '/root' },
        { name: 'SANDBOX_AUTH_TOKEN', value: 'forged' },
        { name: 'SANDBOX_AGENT_PORT', value: '1' },
        { name: 'AWS_SECRET', valueFrom: { secretKeyRef: { name: 'aws', key: 'secret' } } },
      ],
    };
    const pod = buildBasePod('p', cfg, NOW);
    expect(container(pod).env).toEqual([
      { name: 'KUBECONFIG', value: '/config/kubeconfig' },
      { name: 'HOME', value: '/workspace' },
      { name: 'SANDBOX_WORKDIR', value: '/workspace' },
      { name: 'SANDBOX_OUTPUT_DIR', value: '/workspace/.cli-mcp' },
      { name: 'SANDBOX_AGENT_PORT', value: '8090' },
      { name: 'SANDBOX_MAX_TIMEOUT_SECONDS', value: '300' },
      { name: 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', value: '60' },
      { name: 'AWS_REGION', value: 'us-east-1' },
      { name: 'AWS_SECRET', valueFrom: { secretKeyRef: { name: 'aws', key: 'secret' } } },
    ]);
    expect(pod.metadata?.labels).toEqual({ [INSTANCE_LABEL]: INSTANCE, [COMPONENT_LABEL]: 'sandbox' });
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(container(pod).imagePullPolicy).toBe('IfNotPresent');
    expect(container(pod).resources).toEqual({ requests: { cpu: '200m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } });
  });

  it('(b) empty quantity flags give the Go defaults', () => {
    const pod = buildBasePod('p', sandboxConfig({ cpuRequest: '', cpuLimit: '', memoryRequest: '', memoryLimit: '' }), NOW);
    expect(container(pod).resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } });
  });

  it('leaves imagePullPolicy and runtimeClassName unset unless configured', () => {
    const plain = buildBasePod('p', sandboxConfig(), NOW);
    expect(container(plain)).not.toHaveProperty('imagePullPolicy');
    expect(plain.spec).not.toHaveProperty('runtimeClassName');
    expect(buildBasePod('p', sandboxConfig({ runtimeClassName: 'gvisor' }), NOW).spec?.runtimeClassName).toBe('gvisor');
  });

  it('uses the configured agent port, grace period and size limits everywhere', () => {
    const pod = buildBasePod('p', sandboxConfig({ agentPort: 9000, terminationGracePeriodSeconds: 30, workspaceSizeLimit: '5Gi', tmpSizeLimit: '64Mi' }), NOW);
    expect(container(pod).ports).toEqual([{ name: 'agent', containerPort: 9000, protocol: 'TCP' }]);
    expect(container(pod).readinessProbe?.exec?.command?.at(-1)).toBe('http://127.0.0.1:9000/health');
    expect(container(pod).env).toContainEqual({ name: 'SANDBOX_AGENT_PORT', value: '9000' });
    expect(pod.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(pod.spec?.volumes?.map((v) => v.emptyDir?.sizeLimit)).toEqual([undefined, '5Gi', '64Mi']);
  });

  it('delivers the server\'s timeouts to the agent (C-AG-14): a 600 s max is the agent\'s max', () => {
    const env = container(buildBasePod('p', sandboxConfig({ maxTimeoutSeconds: 600, defaultTimeoutSeconds: 45 }), NOW)).env;
    expect(env).toContainEqual({ name: 'SANDBOX_MAX_TIMEOUT_SECONDS', value: '600' });
    expect(env).toContainEqual({ name: 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', value: '45' });
  });

  it('is deterministic for (cfg, name, now) and only the timestamps follow now', () => {
    const cfg = sandboxConfig({ env: '[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]' });
    expect(buildBasePod('p', cfg, NOW)).toStrictEqual(buildBasePod('p', cfg, NOW));
    const later = buildBasePod('p', cfg, new Date(NOW.getTime() + 60_000));
    expect(later.spec).toStrictEqual(buildBasePod('p', cfg, NOW).spec);
    expect(later.metadata?.annotations?.[CREATED_AT_ANNOTATION]).toBe('2026-07-29T17:39:22Z');
  });

  it('shares nothing mutable with the config or with other pods', () => {
    const cfg = sandboxConfig({ env: '[{"name":"A","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]' });
    const first = buildBasePod('p', cfg, NOW);
    container(first).env!.at(-1)!.valueFrom!.secretKeyRef!.name = 'mutated';
    container(first).env!.push({ name: 'X' });
    first.metadata!.labels![INSTANCE_LABEL] = 'mutated';
    expect(cfg.env[0]?.valueFrom?.secretKeyRef?.name).toBe('s');
    expect(buildBasePod('p', cfg, NOW)).toStrictEqual(buildBasePod('p', sandboxConfig({ env: cfg.env }), NOW));
    expect(envNames(buildBasePod('p', cfg, NOW))).not.toContain('X');
  });

  it('is plain JSON (what is sent is what was built)', () => {
    const pod = buildSessionPod(sandboxConfig(OVERLAY), INSTANCE, SESSION_ID, NOW);
    expect(JSON.parse(JSON.stringify(pod))).toStrictEqual(pod);
  });
});

describe(buildWarmPod.name, () => {
  const cfg = sandboxConfig(OVERLAY);
  const warm = buildWarmPod(cfg, 'cli-mcp-oc-pool-0001020304', NOW);

  it('uses the given name and has no session label (Go TestBuildWarmPodSpec)', () => {
    expect(warm.metadata?.name).toBe('cli-mcp-oc-pool-0001020304');
    expect(warm.metadata?.labels).toEqual({ [INSTANCE_LABEL]: INSTANCE, [COMPONENT_LABEL]: 'sandbox' });
    expect(warm.metadata?.labels).not.toHaveProperty(SESSION_ID_LABEL);
  });

  it('has no SANDBOX_AUTH_TOKEN: the token arrives by POST /assign', () => {
    expect(envNames(warm)).not.toContain('SANDBOX_AUTH_TOKEN');
  });

  it('has the same spec, annotations and spec hash as a session pod apart from the token', () => {
    const session = buildSessionPod(cfg, INSTANCE, SESSION_ID, NOW);
    expect(warm.metadata?.annotations).toEqual(session.metadata?.annotations);
    const withoutToken = { ...session.spec, containers: [{ ...container(session), env: container(session).env!.slice(0, -1) }] };
    expect(warm.spec).toStrictEqual(withoutToken);
  });

  it('equals the base pod of the same name', () => {
    expect(warm).toStrictEqual(buildBasePod('cli-mcp-oc-pool-0001020304', cfg, NOW));
  });
});

/**
 * The controller's pool with `--egress-gateway` (C-EGR-6, issue 20 item 3), against the fake API server: while the
 * fail-closed gate is shut it creates no pool pod and /health (the runtime's status) says why; once the gateway
 * Service has a ready endpoint and the sandbox NetworkPolicy exists, the pool fills with pods that mount the
 * gateway's dummy kubeconfig, never the real kubeconfig Secret. Without DNS (`--sandbox-dns none`, the default) the
 * pods reach the gateway by the Service's ClusterIP; a re-created Service (a new ClusterIP) makes them stale, and the
 * pool is rebuilt with the new address.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SESSION_ID_LABEL, buildSandboxEgressPolicy } from '@cli-mcp/podspec';
import { EGRESS_GATE_MAX_TTL_MS } from '@cli-mcp/kube';
import { ENDPOINT_SLICES, NETWORK_POLICIES, PODS, type KubeObject } from '@cli-mcp/testing';
import { createEgressService, deleteEgressService, publishEgressSandboxConfig } from '../../support/egress-service.js';
import { INSTANCE, KUBECONFIG_SECRET, NAMESPACE, isReadyPod, podConfig, skipReason } from '../kubernetes/support/kube-stack.js';
import { startControllerStack, untilCluster, type ControllerStack } from './support/controller-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

let stack: ControllerStack;

describeWhenReady('warm pool behind the egress gate (C-EGR-6)', skipReason, () => {
  beforeAll(async () => {
    stack = await startControllerStack();
    publishEgressSandboxConfig(stack.cluster, NAMESPACE, INSTANCE);
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('pauses the refill while the gate is shut, says why, and fills the pool once it opens', async () => {
    const pool = () => stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata.deletionTimestamp);
    const controller = stack.controller({ identity: 'egress-a', poolSize: 2, podConfig: podConfig({ egressGateway: true }) });
    await controller.logger.until('pool refill paused', 30_000);
    expect(pool()).toEqual([]);
    expect(controller.runtime.status().refillPaused).toBe(
      'egress gateway not enforced: Service oc-egress is missing; Service oc-egress has no ready endpoints; NetworkPolicy oc-egress-sandbox is missing',
    );
    const firstIp = createEgressService(stack.cluster, NAMESPACE, INSTANCE);

    stack.cluster.api.create(ENDPOINT_SLICES, NAMESPACE, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${INSTANCE}-egress-x1`, labels: { 'kubernetes.io/service-name': `${INSTANCE}-egress` } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.96.7.7'] }],
    });
    stack.cluster.api.create(NETWORK_POLICIES, NAMESPACE, buildSandboxEgressPolicy({ namespace: NAMESPACE, instanceName: INSTANCE }) as unknown as KubeObject);
    await controller.logger.until('egress gate open; pool refill resumes', 30_000);
    await untilCluster(stack, () => pool().filter(isReadyPod).length === 2, 'the pool fills');
    expect(controller.runtime.status().refillPaused).toBeUndefined();
    const aliases = (pod: KubeObject): unknown => (pod['spec'] as { hostAliases?: unknown }).hostAliases;
    for (const pod of pool()) {
      const volumes = JSON.stringify((pod['spec'] as { volumes: unknown[] }).volumes);
      expect(volumes).not.toContain(KUBECONFIG_SECRET);
      expect(volumes).toContain(`${INSTANCE}-egress-sandbox`);
      expect(pod['spec']).toMatchObject({ dnsPolicy: 'None' });
      expect(aliases(pod)).toEqual([{ ip: firstIp, hostnames: [`${INSTANCE}-egress.${NAMESPACE}.svc`] }]);
    }

    // The Service re-created: a new ClusterIP, which the pool's pods must carry. The pool learns it at its next pass
    // (no polling at rest) once the gate's verdict, reused ≤ 5 s, is read again: here the clock moves past that and
    // ONE pool pod is deleted, as a claim would take one; the other pod of the old address is then stale and replaced.
    const firstPods = pool().map((p) => p.metadata.name as string);
    deleteEgressService(stack.cluster, NAMESPACE, INSTANCE);
    const secondIp = createEgressService(stack.cluster, NAMESPACE, INSTANCE);
    expect(secondIp).not.toBe(firstIp);
    stack.clock.jump(EGRESS_GATE_MAX_TTL_MS);
    stack.cluster.api.delete(PODS, NAMESPACE, firstPods[0]!);
    await untilCluster(stack, () => {
      const ready = pool().filter(isReadyPod);
      return ready.length === 2 && ready.every((p) => !firstPods.includes(p.metadata.name as string) && JSON.stringify(aliases(p)).includes(`"${secondIp}"`));
    }, 'the pool is rebuilt with the new address', 60_000);
    await controller.stop({ release: true });
  }, 90_000);
});

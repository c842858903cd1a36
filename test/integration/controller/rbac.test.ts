/**
 * RBAC discipline of the controller: a full workload — lease create/acquire/renew/release, the informer, pool
 * creates, a surplus trim, claimed-at stamping, idle GC with the session Secret, the orphan sweep — and every
 * request the fake API server saw must be namespaced and allowed by deploy/base/controller-role.yaml, and the
 * workload must have used every permission the Role grants (no unused grant). The server's part is done
 * straight in the store, so the request log holds the controllers' requests only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, buildSessionPod, formatTimestamp, sandboxLabels,
} from '@cli-mcp/podspec';
import { PODS, SECRETS } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INSTANCE, NAMESPACE, isReadyPod, podConfig, skipReason } from '../kubernetes/support/kube-stack.js';
import { startControllerStack, untilCluster, type ControllerStack } from './support/controller-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const MIN = 60_000;
const role = (): Rule[] =>
  (parse(readFileSync(fileURLToPath(new URL('../../../deploy/base/controller-role.yaml', import.meta.url)), 'utf8')) as { rules: Rule[] }).rules;

let stack: ControllerStack;

describeWhenReady('RBAC discipline of the controller (deploy/base/controller-role.yaml)', skipReason, () => {
  beforeAll(async () => {
    stack = await startControllerStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('uses exactly the Role: pods get/list/watch/create/delete/patch, secrets list/delete, leases get/create/update, endpointslices and networkpolicies list, the gateway Service get (egress gate)', async () => {
    stack.cluster.requests.clear();
    const pool = () => stack.pods().filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && !p.metadata.deletionTimestamp);

    // Leader A: creates the Lease, lists and watches pods, fills a pool of 2, stamps claimed-at on a claim.
    const a = stack.controller({ identity: 'rbac-a', poolSize: 2, maxSessionAgeMs: 8 * 60 * MIN });
    await untilCluster(stack, () => pool().filter(isReadyPod).length === 2, 'the pool');
    const claimed = pool()[0]!.metadata.name as string;
    stack.cluster.api.patch(PODS, NAMESPACE, claimed, 'merge', {
      metadata: { labels: { [SESSION_ID_LABEL]: 'rbac-claim' }, annotations: { [LAST_ACTIVITY_ANNOTATION]: formatTimestamp(stack.clock.wall()) } },
    });
    await untilCluster(stack, () => pool().length === 2 && stack.cluster.requests.count({ verb: 'patch', resource: 'pods' }) === 1, 'refill and stamp');
    await a.stop({ release: true }); // update: release

    // Leader B: acquires (get + update), trims the surplus (get + delete), GCs an idle session and an orphan Secret.
    const idle = buildSessionPod(stack.cfg, INSTANCE, 'rbac-idle', new Date(stack.clock.wall().getTime() - 60 * MIN));
    stack.cluster.api.create(PODS, NAMESPACE, idle);
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-auth-oc-rbac-idle-x', labels: sandboxLabels(INSTANCE, 'rbac-idle') }, stringData: { token: 't' } });
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-auth-oc-rbac-orphan-x', labels: sandboxLabels(INSTANCE, 'rbac-orphan') }, stringData: { token: 't' } });
    const b = stack.controller({ identity: 'rbac-b', poolSize: 1, orphanSecretGraceMs: MIN });
    await b.logger.until('removed idle session');
    await untilCluster(stack, () => pool().length === 1, 'the trim');
    stack.clock.jump(6 * MIN); // the next orphan sweep is due and the orphan is past its grace
    await b.logger.until('removed orphan session secret');
    await b.stop({ release: true });

    // Leader C, with --egress-gateway: the fail-closed gate lists EndpointSlices and NetworkPolicies (C-EGR-6), and
    // without DNS (the default) gets the gateway Service by name (C-EGR-1).
    const c = stack.controller({ identity: 'rbac-c', poolSize: 2, podConfig: podConfig({ egressGateway: true }) });
    await c.logger.until('pool refill paused');
    await c.stop({ release: true });

    const records = stack.cluster.requests.entries();
    const rules = role();
    const seen = new Set<string>();
    for (const record of records) {
      const what = `${record.method} ${record.path}?${new URLSearchParams(record.query).toString()}`;
      expect(record.path, what).toMatch(
        new RegExp(`^/(api/v1|apis/coordination\\.k8s\\.io/v1|apis/discovery\\.k8s\\.io/v1|apis/networking\\.k8s\\.io/v1)/namespaces/${NAMESPACE}/(pods|secrets|leases|endpointslices|networkpolicies|services)(/[^/]+)?$`),
      );
      const group = /^\/apis\/([^/]+)\//.exec(record.path)?.[1] ?? '';
      const name = /^\/(?:api\/v1|apis\/[^/]+\/v1)\/namespaces\/[^/]+\/[^/]+\/([^/]+)$/.exec(record.path)?.[1];
      const allowed = rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(record.resource as string) && r.verbs.includes(record.verb as string)
        && (r.resourceNames === undefined || (name !== undefined && r.resourceNames.includes(name))));
      expect(allowed, what).toBe(true);
      seen.add(`${record.verb} ${record.resource}`);
    }
    const granted = rules.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}`))).sort();
    expect([...seen].sort()).toEqual(granted);
  });
});

/**
 * RBAC discipline (C-K8S-10): a realistic workload — create, claim, exec, touch, container restart (reassign),
 * rollback after a lost claim, cancel routing, release, health — and every request the fake API server saw must be
 * a namespaced pods get/list/watch/create/patch/delete, secrets create/delete or leases get (/health), and allowed
 * by the deployed Role.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { probeControllerLease } from '@cli-mcp/kube';
import { ClientNodeLeaseApi } from '@cli-mcp/kube/client-node';
import { INSTANCE, NAMESPACE, noAbort, skipReason, isReadyPod, readyAfterRestarts, startKubeStack, type KubeStack } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const CONTRACT: Record<string, string[]> = {
  pods: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  secrets: ['create', 'delete'],
  // /health's "is a controller running" (issue 9).
  leases: ['get'],
};

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

function deployedRole(): Rule[] {
  const text = readFileSync(fileURLToPath(new URL('../../../deploy/base/server-role.yaml', import.meta.url)), 'utf8');
  return (parse(text) as { rules: Rule[] }).rules;
}

describeWhenReady('RBAC discipline of the Kubernetes backend (C-K8S-10)', skipReason, () => {
  let stack: KubeStack;
  beforeAll(async () => {
    stack = await startKubeStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('uses only namespaced pods get/list/watch/create/patch/delete, secrets create/delete and leases get', async () => {
    stack.cluster.requests.clear();
    const a = stack.replica({ activityIntervalMs: 1 });
    const b = stack.replica({ activityIntervalMs: 1 });

    // create + exec + touch
    await a.manager.execute('rbac-create', { command: 'echo one' }, noAbort());
    await a.manager.execute('rbac-create', { command: 'echo two' }, noAbort());
    // claim (two replicas race for one session over two warm pods: one loses, rolls back or rediscovers)
    const warm = stack.warmPods(2);
    await Promise.all(warm.map((name) => stack.cluster.waitFor('pods', NAMESPACE, name, isReadyPod)));
    await Promise.all([a.manager.execute('rbac-claim', { command: 'true' }, noAbort()), b.manager.execute('rbac-claim', { command: 'true' }, noAbort())]);
    // container restart of a claimed pod → reassign (re-reads the pod)
    const claimed = stack.pods().find((p) => (p.metadata.labels as Record<string, string>)['cli-mcp.redhat.com/session-id'] === 'rbac-claim');
    await stack.cluster.kubelet?.crashContainer(NAMESPACE, claimed?.metadata.name as string);
    await stack.cluster.waitFor('pods', NAMESPACE, claimed?.metadata.name as string, readyAfterRestarts(1));
    await a.manager.execute('rbac-claim', { command: 'true' }, noAbort());
    // cancel routing through discovery on the other replica
    await b.manager.cancel('rbac-create', 'nothing-running');
    // release + health
    await b.manager.end('rbac-create', noAbort());
    await b.manager.end('rbac-claim', noAbort());
    await a.manager.checkHealth(noAbort());
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(stack.cluster.kubeconfigPath);
    await probeControllerLease(new ClientNodeLeaseApi({ kubeConfig, namespace: NAMESPACE }), INSTANCE, () => new Date(), noAbort());

    const records = stack.cluster.requests.entries();
    expect(records.length).toBeGreaterThan(10);
    const role = deployedRole();
    const seen = new Set<string>();
    for (const record of records) {
      const what = `${record.method} ${record.path}?${new URLSearchParams(record.query).toString()}`;
      expect(record.path, what).toMatch(new RegExp(`^/(api/v1|apis/coordination\\.k8s\\.io/v1)/namespaces/${NAMESPACE}/(pods|secrets|leases)(/[^/]+)?$`));
      expect(record.namespace, what).toBe(NAMESPACE);
      const resource = record.resource as string;
      const verb = record.verb as string;
      expect(CONTRACT[resource], what).toBeDefined();
      expect(CONTRACT[resource], what).toContain(verb);
      const group = resource === 'leases' ? 'coordination.k8s.io' : '';
      expect(role.some((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource) && rule.verbs.includes(verb)), what).toBe(true);
      seen.add(`${verb} ${resource}`);
    }
    // The workload exercised the whole permitted surface.
    expect([...seen].sort()).toEqual(['create pods', 'create secrets', 'delete pods', 'delete secrets', 'get leases', 'get pods', 'list pods', 'patch pods', 'watch pods']);
  });
});

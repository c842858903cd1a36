/**
 * issue 21 item 5 / C-OP-6: two BUILT operator replicas elect a leader on the Lease cli-mcp-operator; the leader is
 * killed (SIGKILL) in the middle of a reconcile — its Deployment create held open by the fake API server after
 * the Secrets and other children were written — and the other replica finishes the instance: one of each child,
 * one HMAC key, the pool at its size, Ready=True.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NAMESPACE, operatorSkipReason, startOperatorStack, type OperatorStack } from './support/operator-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

let stack: OperatorStack;

describeWhenReady('a leader killed mid-reconcile', operatorSkipReason, () => {
  beforeAll(async () => {
    stack = await startOperatorStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('leaves nothing the next leader cannot finish', async () => {
    const a = await stack.operator('op-a');
    await a.untilLog('became leader');
    const b = await stack.operator('op-b');
    await b.untilLog('lease holder observed');

    let arrived!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    stack.cluster.faults.add({ method: 'POST', pathPattern: new RegExp(`^/apis/apps/v1/namespaces/${NAMESPACE}/deployments$`), times: 1, hold: () => (arrived(), released) });

    stack.seedKubeconfig('fo');
    await stack.apply('fo', { sandbox: { warmPoolSize: 2 } });
    await held;
    // Mid-reconcile: the generated Secrets and the first children exist, the server Deployment does not.
    expect(stack.cluster.store.get('secrets', NAMESPACE, 'cli-mcp-fo-hmac')).toBeDefined();
    expect(stack.cluster.store.get('deployments', NAMESPACE, 'cli-mcp-fo-server')).toBeUndefined();
    const hmacUid = stack.cluster.store.get('secrets', NAMESPACE, 'cli-mcp-fo-hmac')!.metadata.uid;
    expect(await a.stop('SIGKILL')).toBe(null);
    release();

    await b.untilLog('became leader', 30_000);
    await stack.untilCondition('fo', 'Ready', 'True', undefined, 30_000);
    const named = (resource: string) => stack.cluster.store.list(resource, NAMESPACE).filter((o) => o.metadata.labels?.['cli-mcp.redhat.com/instance'] === 'fo').map((o) => o.metadata.name).sort();
    expect(named('deployments')).toEqual(['cli-mcp-fo-server']);
    expect(named('serviceaccounts')).toEqual(['cli-mcp-fo-sandbox', 'cli-mcp-fo-server']);
    expect(named('secrets')).toEqual(['cli-mcp-fo-auth', 'cli-mcp-fo-hmac']);
    // The key the dead leader made is the key: never made twice, never overwritten.
    expect(stack.cluster.store.get('secrets', NAMESPACE, 'cli-mcp-fo-hmac')!.metadata.uid).toBe(hmacUid);
    await stack.until(() => stack.pods('fo', 'sandbox').length === 2, 'a pool of exactly 2');
    expect(stack.instance('fo')?.['status']).toMatchObject({ warmPoolReady: 2, warmPoolDesired: 2 });
  }, 90_000);
});

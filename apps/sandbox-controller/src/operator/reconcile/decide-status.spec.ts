import { describe, expect, it } from 'vitest';
import { mergeConditions } from '../api/conditions.js';
import { decideConditions, deploymentProblem, type StatusInputs } from './decide-status.js';

const HEALTHY: StatusInputs = { childProblems: [], pool: { desired: 2, ready: 2, unhealthy: [], filled: true, shortfallPastGrace: false } };
const ready = (inputs: Partial<StatusInputs>) => decideConditions({ ...HEALTHY, ...inputs })[0]!;
const pool = (p: Partial<StatusInputs['pool']>) => decideConditions({ ...HEALTHY, pool: { ...HEALTHY.pool, ...p } })[1]!;

describe(decideConditions.name, () => {
  it('is Ready when every gate passes', () => {
    expect(decideConditions(HEALTHY).map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', true, 'Ready'], ['WarmPoolReady', true, 'Ready']]);
  });

  it('reports the first failing gate in the Go operator\'s order', () => {
    const all: Partial<StatusInputs> = {
      reconciling: 'r', egressRefused: 'e', secretProblem: { reason: 'SecretsNotFound', message: 's' }, childProblems: ['c'], deploymentProblem: 'd',
      pool: { desired: 2, ready: 0, unhealthy: [], filled: false, shortfallPastGrace: false },
    };
    const order = ['Reconciling', 'EgressNotEnforced', 'SecretsNotFound', 'ChildrenNotReady', 'DeploymentUnavailable', 'WarmPoolNotReady'];
    const keys: Array<keyof StatusInputs> = ['reconciling', 'egressRefused', 'secretProblem', 'childProblems', 'deploymentProblem'];
    let inputs = { ...HEALTHY, ...all };
    for (const [i, reason] of order.entries()) {
      expect(ready(inputs).reason).toBe(reason);
      if (i < keys.length) inputs = { ...inputs, [keys[i]!]: keys[i] === 'childProblems' ? [] : undefined };
    }
  });

  it('does not flap the pool on claims once it filled; a long shortfall or an unhealthy pod does', () => {
    expect(pool({ ready: 1, filled: false })).toMatchObject({ status: false, reason: 'WarmPoolNotReady', message: '1 of 2 pool pods Ready (filling)' });
    expect(pool({ ready: 1, filled: true })).toMatchObject({ status: true, message: '1 of 2 pool pods Ready (refilling after claims)' });
    expect(pool({ ready: 1, filled: true, shortfallPastGrace: true })).toMatchObject({ status: false, reason: 'WarmPoolNotReady' });
    expect(pool({ unhealthy: ['pod p: ImagePullBackOff'] })).toMatchObject({ status: false, reason: 'WarmPoolUnhealthy', message: '2 of 2 pool pods Ready; unhealthy: pod p: ImagePullBackOff' });
    expect(pool({ desired: 0, ready: 0, filled: false })).toMatchObject({ status: true });
    expect(ready({ pool: { ...HEALTHY.pool, unhealthy: ['x'] } })).toMatchObject({ status: false, reason: 'WarmPoolUnhealthy' });
  });
});

describe(deploymentProblem.name, () => {
  it('wants the new generation observed, every replica ready and Available', () => {
    const available = { type: 'Available', status: 'True' };
    expect(deploymentProblem(undefined, 1)).toBe('the server Deployment does not exist yet');
    expect(deploymentProblem({ metadata: { generation: 2 }, status: { observedGeneration: 1, readyReplicas: 1, conditions: [available] } }, 1)).toMatch(/not rolled out/);
    expect(deploymentProblem({ metadata: { generation: 1 }, status: { observedGeneration: 1, readyReplicas: 1, conditions: [available] } }, 2)).toBe('1 of 2 server replicas ready');
    expect(deploymentProblem({ metadata: { generation: 1 }, status: { observedGeneration: 1, readyReplicas: 2, conditions: [{ type: 'Available', status: 'False', message: 'min' }] } }, 2)).toBe('the server Deployment is not Available: min');
    expect(deploymentProblem({ metadata: { generation: 1 }, status: { observedGeneration: 1, readyReplicas: 2, conditions: [available] } }, 2)).toBeUndefined();
  });
});

describe(mergeConditions.name, () => {
  it('keeps lastTransitionTime while the status stays, reports status and reason changes, keeps other writers\' types', () => {
    const t0 = new Date('2026-12-01T10:00:00.123Z');
    const first = mergeConditions(undefined, [{ type: 'Ready', status: false, reason: 'ChildrenNotReady', message: 'a' }], 1, t0);
    expect(first.conditions).toEqual([{ type: 'Ready', status: 'False', observedGeneration: 1, lastTransitionTime: '2026-12-01T10:00:00Z', reason: 'ChildrenNotReady', message: 'a' }]);
    expect(first.changes).toHaveLength(1);
    const t1 = new Date('2026-12-01T10:05:00Z');
    const other = { type: 'Custom', status: 'True' as const, lastTransitionTime: 'x', reason: 'Y', message: '' };
    const second = mergeConditions([...first.conditions, other], [{ type: 'Ready', status: false, reason: 'DeploymentUnavailable', message: 'b' }], 2, t1);
    expect(second.conditions[0]).toMatchObject({ lastTransitionTime: '2026-12-01T10:00:00Z', reason: 'DeploymentUnavailable', observedGeneration: 2 });
    expect(second.conditions[1]).toEqual(other);
    expect(second.changes.map((c) => c.reason)).toEqual(['DeploymentUnavailable']);
    const third = mergeConditions(second.conditions, [{ type: 'Ready', status: false, reason: 'DeploymentUnavailable', message: 'c' }], 2, t1);
    expect(third.changes).toEqual([]);
  });
});

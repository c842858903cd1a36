import { FakeClock } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { CandidateLeaseApi, LeaseStore } from '../test/fake-lease-api.js';
import { FakeControllerCluster } from '../test/fake-controller-cluster.js';
import { claim, countingBytes, metrics, podConfig, recordingLogger, settle, WALL_START } from '../test/fixtures.js';
import type { ControllerConfig } from './config/controller-config.js';
import { ControllerRuntime } from './controller-runtime.js';

function setup() {
  const clock = new FakeClock();
  const wall = (): Date => new Date(WALL_START + clock.now());
  const cluster = new FakeControllerCluster(wall);
  const store = new LeaseStore(clock);
  const leases = new CandidateLeaseApi(store, 'ctl-a');
  const { metrics: m, registry } = metrics();
  const config: ControllerConfig = {
    version: 'test', http: { address: '', host: '', port: 0 }, identity: 'ctl-a', kubeconfig: undefined, podConfig: podConfig(),
    pool: { size: 2, shortfallGraceMs: 60_000 }, gc: { idleTimeoutMs: 30 * 60_000, maxSessionAgeMs: undefined, orphanSecretGraceMs: 600_000 },
    leaseDurationMs: 3000, logLevel: 'info',
  };
  const runtime = new ControllerRuntime(config, {
    api: cluster, leases, informer: cluster.informer, clock, wallClock: wall, random: () => 0.5, randomBytes: countingBytes(), metrics: m, logger: recordingLogger(),
  });
  const run = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 50) {
      clock.advance(50);
      await settle();
    }
  };
  return { clock, cluster, leases, runtime, registry, run };
}

describe(ControllerRuntime.name, () => {
  it('writes only while it leads: the pool fills after the Lease is won, and stops when it is lost', async () => {
    const { cluster, leases, runtime, run, registry } = setup();
    leases.mode = 'failing';
    runtime.start();
    await run(5000);
    expect(cluster.callsOf('createPod')).toEqual([]);
    expect(runtime.status()).toMatchObject({ role: 'follower', apiProblem: expect.stringMatching(/^lease cli-mcp-oc-controller: connect ECONNREFUSED/) });
    leases.mode = 'ok';
    await run(2000);
    expect(runtime.status()).toMatchObject({ role: 'leader', holder: 'ctl-a', apiProblem: undefined });
    expect(cluster.callsOf('createPod')).toHaveLength(2);
    expect(await registry.getSingleMetricAsString('cli_mcp_controller_leader')).toContain('cli_mcp_controller_leader 1');

    leases.mode = 'partitioned';
    await run(3000);
    expect(runtime.status().role).toBe('follower');
    const name = [...cluster.pods.keys()][0]!;
    cluster.mutatePod(name, (pod) => claim(pod, 'inv-1', new Date(WALL_START)));
    await run(500);
    expect(cluster.callsOf('createPod')).toHaveLength(2); // a follower does not refill
    expect(await registry.getSingleMetricAsString('cli_mcp_controller_claims_observed_total')).toContain(' 0');
    await runtime.stop({ release: false });
  });

  it('counts claims it sees as leader, and reports the pool in its status', async () => {
    const { cluster, runtime, run, registry } = setup();
    runtime.start();
    await run(500);
    for (const pod of cluster.pods.values()) pod.status = { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };
    const name = [...cluster.pods.keys()][0]!;
    cluster.mutatePod(name, (pod) => claim(pod, 'inv-2', new Date(WALL_START)));
    await run(200);
    expect(await registry.getSingleMetricAsString('cli_mcp_controller_claims_observed_total')).toContain(' 1');
    expect(cluster.callsOf('createPod')).toHaveLength(3);
    expect(runtime.status().pool).toMatchObject({ desired: 2 });
    await runtime.stop();
    expect(runtime.status().role).toBe('stopped');
  });
});

/**
 * `--local-network proxy` over a session's life, with real sandboxes, agents and kubectl against the fake API
 * server (issue 20 items 2 and 5, C-EGR-6, C-EGR-7): a DELETE cuts the session's traffic within 1 s even while its
 * command still runs, a gateway socket that is gone makes kubectl fail fast and say why, a warm sandbox speaks for
 * the session that claims it, a restarted server's adopted session gets egress again, every decision is an audit
 * line with the session id and a metric.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PromEgressMetrics } from '@cli-mcp/egress';
import type { LocalBackendOptions } from '@cli-mcp/session';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { LocalEgress } from '../../../libs/session/src/local/egress/local-egress.port.js';
import { NodeProcessLauncher } from '../../../libs/session/src/local/node-process-launcher.js';
import type { AgentProcess, ProcessLauncher } from '../../../libs/session/src/local/process-launcher.js';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { egressToolsProblem, INVESTIGATION, startEgressCluster, type EgressCluster } from './support/egress-cluster.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem ?? egressToolsProblem;

const WHOAMI = 'kubectl auth whoami -o jsonpath={.status.userInfo.username}';

/** Real sandboxes that ignore SIGTERM (only the SIGKILL after the stop grace ends them). */
function slowToStop(): ProcessLauncher {
  const real = new NodeProcessLauncher();
  return {
    launch(spec): AgentProcess {
      const child = real.launch(spec);
      return {
        pid: child.pid, readyLine: child.readyLine, exited: child.exited, sandboxPid: child.sandboxPid,
        get hasExited() {
          return child.hasExited;
        },
        kill: (signal) => {
          if (signal === 'SIGKILL') child.kill(signal);
        },
        stderrTail: () => child.stderrTail(),
      };
    },
  };
}

describeWhenReady('--local-network proxy over a session\'s life', problem, () => {
  let api: EgressCluster;
  let stack: SessionStack | undefined;
  const proxyStack = (options: Partial<LocalBackendOptions> = {}): Promise<SessionStack> =>
    createSessionStack('bwrap', { network: 'proxy', egress: api.egress, ...options });

  beforeAll(async () => {
    api = await startEgressCluster();
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('DELETE cuts a running command\'s watch within 1 s, even from a sandbox slow to stop; audit lines and metrics name the session', async () => {
    const registry = new Registry();
    // A sandbox that ignores SIGTERM lives out the 3 s stop grace: only the revocation can cut its watch in time.
    stack = await proxyStack({ stopGraceMs: 3_000, launcher: slowToStop(), egressMetrics: new PromEgressMetrics(registry) });
    expect((await stack.run('s-del', WHOAMI)).response.stdout).toBe(INVESTIGATION.user);
    const watching = api.cluster.server.whenWatching({ resource: 'pods' }, 30_000);
    const command = stack.run('s-del', 'kubectl get pods --watch').catch((error: unknown) => error);
    await watching;
    const started = Date.now();
    const ended = stack.manager.end('s-del', new AbortController().signal);
    await expect.poll(() => api.cluster.server.openWatches, { timeout: 10_000, interval: 20 }).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
    await ended;
    await command;
    const lines = api.audit().filter((line) => line.session === 's-del');
    expect(lines.some((line) => line.method === 'GET' && line.path === '/api/v1/namespaces/default/pods' && line.decision === 'allow' && line.credentialInjected === true)).toBe(true);
    expect(lines.every((line) => line.instance === 'local' && !JSON.stringify(line).includes(INVESTIGATION.token))).toBe(true);
    expect(await registry.metrics()).toMatch(/cli_mcp_egress_requests_total\{decision="allow",route="kubernetes"\} [1-9]/);
  });

  it('a session whose gateway socket is gone fails kubectl within 5 s, saying the gateway is unreachable', async () => {
    stack = await proxyStack();
    expect((await stack.run('s-gone', WHOAMI)).response.stdout).toBe(INVESTIGATION.user);
    // The gateway side of this session ends while its sandbox still runs (what a DELETE or a server stop does
    // first, before the agent is stopped).
    await (stack.backend as unknown as { running: { egress: LocalEgress } }).running.egress.revoke('s-gone');
    const started = Date.now();
    const result = await stack.run('s-gone', `${WHOAMI} 2>&1; echo " exit=$?"`);
    expect(Date.now() - started).toBeLessThan(5000);
    // The relay answers 502 with a reason phrase Go prints as the error (apps/sandbox-agent egress-relay.ts).
    expect(result.response.stdout).toBe('Unable to connect to the server: cli-mcp egress gateway unreachable\n exit=1');
  });

  it('a warm sandbox speaks for the session that claims it', async () => {
    stack = await proxyStack({ warmPoolSize: 1 });
    await stack.backend.start();
    await expect.poll(() => stack!.backend.warmReady, { timeout: 30_000 }).toBe(1);
    const claimed = await stack.run('s-warm', WHOAMI);
    expect(claimed).toMatchObject({ acquirePath: 'claim', response: { stdout: INVESTIGATION.user } });
    expect(api.audit().filter((line) => line.session === 's-warm' && line.decision === 'allow').length).toBeGreaterThan(0);
  });

  it('a session adopted by a restarted server reaches the API again, through the new server\'s gateway', async () => {
    const stateDir = await mkdtemp(join('/var/tmp', 'cli-mcp-egress-restart-'));
    try {
      const first = await proxyStack({ stateDir });
      expect((await first.run('s-adopt', `echo kept > /workspace/file; ${WHOAMI}`)).response.stdout).toBe(INVESTIGATION.user);
      await first.close();
      stack = await proxyStack({ stateDir });
      const again = await stack.run('s-adopt', `cat /workspace/file; ${WHOAMI}`);
      expect(again.response.stdout).toBe(`kept\n${INVESTIGATION.user}`);
    } finally {
      await stack?.close();
      stack = undefined;
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { ControllerStatus } from '../controller-runtime.js';
import { controllerRoutes } from './controller-routes.js';

const registry = { contentType: 'text/plain', metrics: () => Promise.resolve('m 1\n') };
const healthy: ControllerStatus = { role: 'leader', identity: 'ctl-1', holder: 'ctl-1', apiProblem: undefined, pool: { desired: 2, ready: 1, shortfall: false } };

async function health(status: ControllerStatus) {
  return controllerRoutes({ status: () => status }, registry)['/health']!();
}

describe('controllerRoutes /health (C-CTL-8)', () => {
  it('is 200 with every indicator up, in the Terminus shape probes and dashboards read', async () => {
    expect(await health(healthy)).toEqual({
      status: 200,
      json: {
        status: 'ok',
        info: {
          kubernetes: { status: 'up' },
          election: { status: 'up', role: 'leader', identity: 'ctl-1', holder: 'ctl-1' },
          pool: { status: 'up', desired: 2, ready: 1, shortfall: false },
        },
        error: {},
        details: {
          kubernetes: { status: 'up' },
          election: { status: 'up', role: 'leader', identity: 'ctl-1', holder: 'ctl-1' },
          pool: { status: 'up', desired: 2, ready: 1, shortfall: false },
        },
      },
    });
  });

  it('is 503 with the reason only when the API cannot be used; the rest stays info', async () => {
    const answer = await health({ ...healthy, apiProblem: 'pod list/watch failing: forbidden' });
    expect(answer.status).toBe(503);
    const json = (answer as { json: { status: string; error: object; info: object } }).json;
    expect(json.status).toBe('error');
    expect(json.error).toEqual({ kubernetes: { status: 'down', message: 'pod list/watch failing: forbidden' } });
    expect(Object.keys(json.info)).toEqual(['election', 'pool']);
  });

  it('names a released and an unread Lease holder, the operator instance count and a paused refill', async () => {
    const released = (await health({ ...healthy, holder: '' })) as { json: { info: { election: { holder: string } } } };
    expect(released.json.info.election.holder).toBe('(released)');
    const unread = (await health({ ...healthy, holder: undefined })) as { json: { info: { election: { holder: string } } } };
    expect(unread.json.info.election.holder).toBe('(unknown)');
    const operator = (await health({ ...healthy, instances: 3, refillPaused: 'egress gate closed' })) as { status: number; json: { info: { pool: object } } };
    expect(operator.status).toBe(200);
    expect(operator.json.info.pool).toMatchObject({ instances: 3, refill_paused: 'egress gate closed' });
  });

  it('serves /live and the registry’s /metrics', async () => {
    const routes = controllerRoutes({ status: () => healthy }, registry);
    expect(await routes['/live']!()).toEqual({ status: 200, json: { status: 'alive' } });
    expect(await routes['/metrics']!()).toEqual({ status: 200, text: 'm 1\n', contentType: 'text/plain' });
  });
});

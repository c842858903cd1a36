import { HealthIndicatorService } from '@nestjs/terminus';
import { KubeError } from '@cli-mcp/kube';
import { describe, expect, it } from 'vitest';
import { ControllerHealthIndicator } from './controller-health.indicator.js';

const indicator = (probe?: ConstructorParameters<typeof ControllerHealthIndicator>[1]) => new ControllerHealthIndicator(new HealthIndicatorService(), probe);

describe(ControllerHealthIndicator.name, () => {
  it('says which controller holds the lease', async () => {
    const result = await indicator(async () => ({ state: 'running', holder: 'ctl-7', renewedSecondsAgo: 2 })).check('controller');
    expect(result).toEqual({
      controller: { status: 'up', state: 'running', holder: 'ctl-7', renewedSecondsAgo: 2, running: true, message: 'controller ctl-7 holds the lease (renewed 2s ago)' },
    });
  });

  it('stays up but says "no controller running" when none holds or renews the lease, or it cannot be read', async () => {
    const absent = await indicator(async () => ({ state: 'absent' })).check('controller');
    expect(absent.controller).toMatchObject({ status: 'up', running: false, message: expect.stringMatching(/^no controller running: no controller lease exists/) });
    const stale = await indicator(async () => ({ state: 'stale', holder: 'ctl-1', renewedSecondsAgo: 40 })).check('controller');
    expect(stale.controller).toMatchObject({ status: 'up', running: false, message: expect.stringContaining('has not renewed it for 40s') });
    const forbidden = await indicator(async () => {
      throw new KubeError('leases.coordination.k8s.io "cli-mcp-oc-controller" is forbidden', 403, 'Forbidden');
    }).check('controller');
    expect(forbidden.controller).toMatchObject({ status: 'up', state: 'unknown', running: false, message: expect.stringContaining('cannot read the controller lease: leases') });
  });

  it('is disabled without the Kubernetes backend', () => {
    expect(indicator(undefined).enabled).toBe(false);
  });
});

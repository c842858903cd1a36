import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { describeControllerStatus } from '@cli-mcp/kube';
import { errorText } from '@cli-mcp/common';
import { CONTROLLER_PROBE, type ControllerProbe } from '../sessions/controller-probe.js';
import { HEALTH_TIMEOUT_MS } from './sessions-health.indicator.js';

/**
 * `/health` detail for `--backend kubernetes` (issue 9): does a sandbox controller hold the instance's Lease and
 * renew it? Always `up` — the server serves sessions without a controller (on-demand creates); only the warm pool
 * and idle GC are missing — but an operator reads "no controller running" here. A Lease that cannot be read
 * (API down, an old Role without `leases get`) is reported the same way, with the reason.
 */
@Injectable()
export class ControllerHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(CONTROLLER_PROBE) private readonly probe: ControllerProbe | undefined,
  ) {}

  get enabled(): boolean {
    return this.probe !== undefined;
  }

  async check<const Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.indicators.check(key);
    if (!this.probe) return indicator.up({ state: 'not-applicable' });
    try {
      const status = await this.probe(AbortSignal.timeout(HEALTH_TIMEOUT_MS));
      return indicator.up({ ...status, running: status.state === 'running', message: describeControllerStatus(status) });
    } catch (error) {
      return indicator.up({ state: 'unknown', running: false, message: `cannot read the controller lease: ${errorText(error)}` });
    }
  }
}

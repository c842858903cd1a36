import { describe, expect, it } from 'vitest';
import { planReadinessProbe } from './probe.js';

describe(planReadinessProbe.name, () => {
  it('maps the sandbox exec curl probe onto the pod address, with speed-up', () => {
    const plan = planReadinessProbe(
      { readinessProbe: { exec: { command: ['curl', '-fsS', '--max-time', '1', 'http://127.0.0.1:8090/health'] }, initialDelaySeconds: 2, timeoutSeconds: 2, periodSeconds: 10 } },
      '127.0.0.7',
      20,
    );
    expect(plan).toEqual({
      action: { kind: 'http', url: 'http://127.0.0.7:8090/health' },
      timing: { initialDelayMs: 100, periodMs: 500, timeoutMs: 2000, successThreshold: 1, failureThreshold: 3 },
    });
  });

  it('takes a kubelet-wide delay/period override in real milliseconds, keeping the rest of the probe', () => {
    const container = { readinessProbe: { httpGet: { port: 8090, path: '/health' }, initialDelaySeconds: 1, periodSeconds: 2, failureThreshold: 5 } };
    expect(planReadinessProbe(container, '127.0.0.4', 20, { initialDelayMs: 0, periodMs: 60_000 }).timing).toEqual({
      initialDelayMs: 0, periodMs: 60_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 5,
    });
    expect(planReadinessProbe(container, '127.0.0.4', 20, { periodMs: 10_000 }).timing).toMatchObject({ initialDelayMs: 50, periodMs: 10_000 });
  });

  it('supports httpGet with a named port and tcpSocket', () => {
    const container = { ports: [{ name: 'http', containerPort: 9000 }] };
    expect(planReadinessProbe({ ...container, readinessProbe: { httpGet: { port: 'http', path: 'ready' } } }, '127.0.0.3', 1).action).toEqual({
      kind: 'http',
      url: 'http://127.0.0.3:9000/ready',
    });
    expect(planReadinessProbe({ readinessProbe: { tcpSocket: { port: 8090 } } }, '127.0.0.3', 1).action).toEqual({ kind: 'tcp', host: '127.0.0.3', port: 8090 });
  });

  it('falls back to "process alive" without a probe or for commands it cannot map', () => {
    expect(planReadinessProbe({}, '127.0.0.3', 1).action).toEqual({ kind: 'process' });
    expect(planReadinessProbe({ readinessProbe: { exec: { command: ['cat', '/tmp/ready'] } } }, '127.0.0.3', 1).action).toEqual({ kind: 'process' });
  });
});

import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { agentHealthProbe, isProbeable, probeUntilAnswered, PROBE_ATTEMPT_TIMEOUT_MS } from './agent-probe.js';
import { FakeClock, StrictAssignAgent, flush, pod } from './testing/strict-kube-api.js';

describe(isProbeable.name, () => {
  it('is true once the pod runs with an IP and its containers run, Ready or not', () => {
    expect(isProbeable(pod({ name: 'p', ready: false, started: true }))).toBe(true);
    expect(isProbeable(pod({ name: 'p', ready: true, started: true }))).toBe(true);
  });

  it.each([
    ['Pending, no IP', pod({ name: 'p', ready: false })],
    ['Running with an IP but no container status yet', pod({ name: 'p', ready: false, phase: 'Running', ip: '10.0.0.9' })],
    ['being deleted', pod({ name: 'p', ready: false, started: true, deleting: true })],
    ['finished', pod({ name: 'p', ready: false, started: true, phase: 'Failed' })],
  ])('is false when %s', (_case, candidate) => {
    expect(isProbeable(candidate)).toBe(false);
  });

  it('is false while a container waits (crash-loop back-off, config error)', () => {
    const waiting: V1Pod = pod({ name: 'p', ready: false, started: true });
    waiting.status!.containerStatuses!.push({ name: 'side', image: 'x', imageID: '', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } });
    expect(isProbeable(waiting)).toBe(false);
  });
});

describe(probeUntilAnswered.name, () => {
  const started = pod({ name: 'p', ready: false, started: true });

  it('asks at once, then paces the retries 5, 10, 20, 25 ms apart until the agent answers', async () => {
    const clock = new FakeClock();
    const attempts: number[] = [];
    const answerAt = 4;
    const probe = async (): Promise<boolean> => {
      attempts.push(clock.now());
      return attempts.length >= answerAt;
    };
    const result = probeUntilAnswered(clock, probe, started, new AbortController().signal);
    for (let i = 0; i < 8; i++) {
      await flush();
      clock.advance(5);
    }
    await expect(result).resolves.toBe(true);
    expect(attempts.map((at) => at - attempts[0]!)).toEqual([0, 5, 15, 35]);
  });

  it('slows to one attempt per 500 ms after the first 3 s, and stops when its signal aborts', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const stop = new AbortController();
    const result = probeUntilAnswered(clock, async () => (attempts++, false), started, stop.signal);
    for (let elapsed = 0; elapsed < 3_000; elapsed += 5) {
      await flush(2);
      clock.advance(5);
    }
    await flush();
    const fast = attempts;
    expect(fast).toBeGreaterThan(100);
    expect(fast).toBeLessThan(140);
    for (let i = 0; i < 4; i++) {
      clock.advance(500);
      await flush();
    }
    expect(attempts - fast).toBeLessThanOrEqual(5);
    stop.abort();
    await expect(result).resolves.toBe(false);
  });

  it('bounds each attempt: a probe that never settles counts as "not yet" after the attempt timeout', async () => {
    const clock = new FakeClock();
    const signals: AbortSignal[] = [];
    let calls = 0;
    const probe = (_pod: V1Pod, signal: AbortSignal): Promise<boolean> => {
      signals.push(signal);
      calls++;
      return calls === 1 ? new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))) : Promise.resolve(true);
    };
    const result = probeUntilAnswered(clock, probe, started, new AbortController().signal);
    await flush();
    expect(calls).toBe(1);
    clock.advance(PROBE_ATTEMPT_TIMEOUT_MS);
    await flush();
    expect(signals[0]!.aborted).toBe(true);
    clock.advance(5);
    await expect(result).resolves.toBe(true);
    expect(calls).toBe(2);
  });
});

describe(agentHealthProbe.name, () => {
  it('asks the pod address on the agent port; a failing /health is "not yet", never an error', async () => {
    const agent = new StrictAssignAgent();
    let healthy = false;
    agent.onHealth(async () => {
      if (!healthy) throw new Error('connect ECONNREFUSED');
      return { status: 'ok', assigned: false, busy: false };
    });
    const probe = agentHealthProbe(agent, 9000);
    await expect(probe(pod({ name: 'p', ready: false, started: true, ip: '10.1.2.3' }), new AbortController().signal)).resolves.toBe(false);
    healthy = true;
    await expect(probe(pod({ name: 'p', ready: false, started: true, ip: 'fd00::7' }), new AbortController().signal)).resolves.toBe(true);
    expect(agent.healthCalls).toEqual(['http://10.1.2.3:9000', 'http://[fd00::7]:9000']);
  });
});

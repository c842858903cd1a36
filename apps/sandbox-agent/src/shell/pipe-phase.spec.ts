import { describe, expect, it } from 'vitest';
import { IllegalPhaseTransition, PipePhases } from './pipe-phase.js';

describe(PipePhases.name, () => {
  it('starts running and follows a yield to a detached job', () => {
    const phases = new PipePhases();
    expect(phases.phase).toBe('running');
    phases.move('preparing');
    phases.move('detaching');
    phases.move('ended');
    expect(phases.passedThrough('detaching')).toBe(true);
    expect(phases.stopReason).toBeUndefined();
  });

  it('lets a stop overtake a yield in progress and keeps its reason', () => {
    const phases = new PipePhases();
    phases.move('preparing');
    phases.stop('cancel');
    expect(phases.is('stopping')).toBe(true);
    expect(phases.stopReason).toBe('cancel');
    expect(phases.can('detaching')).toBe(false);
  });

  it('remembers an interrupted wait after a later stop', () => {
    const phases = new PipePhases();
    phases.move('interrupted');
    phases.stop('timeout');
    phases.move('ended');
    expect(phases.passedThrough('interrupted')).toBe(true);
  });

  it.each([
    ['stopping', 'stopping'],
    ['held', 'detaching'],
    ['ended', 'running'],
  ] as const)('refuses %s → %s', (from, to) => {
    const phases = new PipePhases();
    if (from === 'stopping') phases.stop('timeout');
    else if (from === 'ended') phases.move('ended');
    else phases.move(from);
    expect(() => phases.move(to)).toThrow(IllegalPhaseTransition);
  });
});

import { describe, expect, it } from 'vitest';
import { AssignmentState } from './assignment-state.js';

describe(AssignmentState.name, () => {
  it('takes the first token, accepts the same one again without change, refuses another (C-AG-2, C-AG-13)', () => {
    const state = new AssignmentState(undefined);
    expect(state.assigned).toBe(false);
    expect(state.assign('tok-a')).toBe('assigned');
    expect(state.assign('tok-a')).toBe('already-held');
    expect(state.assign('tok-b')).toBe('conflict');
    expect(state.assign('tok-a-longer')).toBe('conflict');
    expect(state.accepts('tok-a')).toBe(true);
    expect(state.accepts('tok-b')).toBe(false);
  });

  it('treats a token from the environment like an assigned one', () => {
    const state = new AssignmentState('env-token');
    expect(state.assign('env-token')).toBe('already-held');
    expect(state.assign('other')).toBe('conflict');
    expect(new AssignmentState('').assigned).toBe(false);
  });
});

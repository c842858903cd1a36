import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { afterEach, describe, expect, it } from 'vitest';
import { StrictAssignAgent, agentErrors } from './kubernetes/testing/strict-kube-api.js';
import { SessionError, SessionErrorCode } from './session-error.js';
import { deliverToken, deliverTokenOrFail } from './token-delivery.js';

const URL = 'http://10.0.0.1:8090';
const OURS = 'a'.repeat(64);
const networkError = (errno: string | undefined): AgentError => new AgentError(AgentErrorCode.Network, 'socket hang up', { op: 'assign', url: `${URL}/assign`, errno });

describe(deliverToken.name, () => {
  let agent: StrictAssignAgent;
  afterEach(() => expect(agent.unexpected).toBe(0));

  /** An agent that holds `held` (or nothing) and answers /output as the real one does. */
  function holding(held: string | undefined): void {
    agent.onOutput(async (_url, token) => {
      if (held === undefined) throw agentErrors.status(AgentErrorCode.NotAssigned);
      if (token !== held) throw agentErrors.unauthorized();
      return { running: false };
    });
  }

  it('200 → assigned, without asking the agent anything else', async () => {
    agent = new StrictAssignAgent().onAssign(async () => undefined);
    expect(await deliverToken(agent, URL, OURS, new AbortController().signal)).toBe('assigned');
    expect(agent.outputCalls).toEqual([]);
  });

  it('409 settles on which token the agent holds: ours → assigned, another → foreign (C-AG-13 and older agents)', async () => {
    agent = new StrictAssignAgent().onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    holding(OURS);
    expect(await deliverToken(agent, URL, OURS, new AbortController().signal)).toBe('assigned');
    holding('b'.repeat(64));
    expect(await deliverToken(agent, URL, OURS, new AbortController().signal)).toBe('foreign');
    expect(agent.outputCalls.map((c) => c.token)).toEqual([OURS, OURS]);
  });

  it.each([
    ['a timeout', agentErrors.timeout()],
    ['a reset connection', networkError('ECONNRESET')],
    ['a 500', agentErrors.status(AgentErrorCode.Internal, 'boom')],
  ])('after %s the assign may have landed: our token there → assigned', async (_case, failure) => {
    agent = new StrictAssignAgent().onAssign(async () => {
      throw failure;
    });
    holding(OURS);
    expect(await deliverToken(agent, URL, OURS, new AbortController().signal)).toBe('assigned');
  });

  it('rethrows the assign failure when the agent holds no token or cannot be asked', async () => {
    const failure = agentErrors.timeout();
    agent = new StrictAssignAgent().onAssign(async () => {
      throw failure;
    });
    holding(undefined);
    await expect(deliverToken(agent, URL, OURS, new AbortController().signal)).rejects.toBe(failure);
    agent.onOutput(async () => {
      throw networkError('ECONNREFUSED');
    });
    await expect(deliverToken(agent, URL, OURS, new AbortController().signal)).rejects.toBe(failure);
  });

  it.each([
    ['a refused connection', networkError('ECONNREFUSED')],
    ['a 400', agentErrors.status(AgentErrorCode.TokenRequired)],
    ['an abort', agentErrors.aborted()],
  ])('never asks after %s: the assign certainly did not land', async (_case, failure) => {
    agent = new StrictAssignAgent().onAssign(async () => {
      throw failure;
    });
    await expect(deliverToken(agent, URL, OURS, new AbortController().signal)).rejects.toBe(failure);
    expect(agent.outputCalls).toEqual([]);
  });
});

describe(deliverTokenOrFail.name, () => {
  it('the local backend\'s use of the one delivery: foreign is an agent failure; a 409 over our own token is success', async () => {
    const agent = new StrictAssignAgent().onAssign(async () => {
      throw agentErrors.status(AgentErrorCode.AlreadyAssigned);
    });
    agent.onOutput(async (_url, token) => {
      if (token !== OURS) throw agentErrors.unauthorized();
      return { running: false };
    });
    await expect(deliverTokenOrFail(agent, URL, OURS, new AbortController().signal)).resolves.toBeUndefined();
    const refused = deliverTokenOrFail(agent, URL, 'b'.repeat(64), new AbortController().signal);
    await expect(refused).rejects.toBeInstanceOf(SessionError);
    await expect(refused).rejects.toMatchObject({ code: SessionErrorCode.AgentFailure, message: 'the sandbox agent is assigned to another session' });
    expect(agent.unexpected).toBe(0);
  });
});

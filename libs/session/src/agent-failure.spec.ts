import { AGENT_ERROR_WIRE, AgentError, AgentErrorCode, type AgentWireCode } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { classifyAgentFailure, describeAgentFailure } from './agent-failure.js';

const url = 'http://127.0.0.1:41000/exec';
const network = (errno?: string): AgentError => new AgentError(AgentErrorCode.Network, `failure ${errno ?? ''}`, { op: 'execute', url, errno });
const status = (code: AgentWireCode, message: string = AGENT_ERROR_WIRE[code].message): AgentError =>
  new AgentError(code, `unexpected status ${AGENT_ERROR_WIRE[code].status}`, { op: 'execute', url, status: AGENT_ERROR_WIRE[code].status, agentMessage: message });

describe(classifyAgentFailure.name, () => {
  it.each(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOENT'])('treats connect-time %s as not delivered', (errno) => {
    expect(classifyAgentFailure(network(errno))).toBe('not-delivered');
  });

  it.each(['ECONNRESET', 'EPIPE', undefined])('treats %s after connecting as a network failure (the command may have run)', (errno) => {
    expect(classifyAgentFailure(network(errno))).toBe('network');
  });

  it('tells an unassigned agent (re-deliver the token) from a draining one (not delivered) from other 503s', () => {
    expect(classifyAgentFailure(status(AgentErrorCode.NotAssigned))).toBe('not-assigned');
    expect(classifyAgentFailure(status(AgentErrorCode.ShuttingDown))).toBe('not-delivered');
    // The code decides, never the text (C-AG-15): an agent's own words for a code change nothing.
    expect(classifyAgentFailure(status(AgentErrorCode.NotAssigned, 'something else'))).toBe('not-assigned');
    expect(classifyAgentFailure(status(AgentErrorCode.Internal, 'agent not assigned'))).toBe('status');
    const codeless = new AgentError(AgentErrorCode.UnexpectedStatus, 'unexpected status 503', { op: 'execute', url, status: 503, agentMessage: 'agent not assigned' });
    expect(classifyAgentFailure(codeless)).toBe('status');
  });

  it('classifies 401, other statuses, decode, abort and foreign errors', () => {
    expect(classifyAgentFailure(status(AgentErrorCode.Unauthorized))).toBe('not-delivered');
    expect(classifyAgentFailure(status(AgentErrorCode.Internal, 'boom'))).toBe('status');
    expect(classifyAgentFailure(new AgentError(AgentErrorCode.BadResponse, 'bad json', { op: 'execute', url, status: 200 }))).toBe('decode');
    expect(classifyAgentFailure(new AgentError(AgentErrorCode.Aborted, 'request aborted', { op: 'execute', url }))).toBe('aborted');
    expect(classifyAgentFailure(new Error('x'))).toBe('unknown');
  });
});

describe(describeAgentFailure.name, () => {
  it('keeps the Go catalogue shape and adds the agent message', () => {
    expect(describeAgentFailure(status(AgentErrorCode.Internal, 'boom'))).toBe(`agent request: execute ${url}: unexpected status 500: boom`);
  });
});

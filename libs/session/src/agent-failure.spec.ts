import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { classifyAgentFailure, describeAgentFailure } from './agent-failure.js';

const url = 'http://127.0.0.1:41000/exec';
const network = (errno?: string): AgentError => new AgentError(AgentErrorCode.Network, 'execute', url, `failure ${errno ?? ''}`, undefined, undefined, errno);
const status = (code: number, message: string): AgentError =>
  new AgentError(AgentErrorCode.Status, 'execute', url, `unexpected status ${code}`, code, message);

describe(classifyAgentFailure.name, () => {
  it.each(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOENT'])('treats connect-time %s as not delivered', (errno) => {
    expect(classifyAgentFailure(network(errno))).toBe('not-delivered');
  });

  it.each(['ECONNRESET', 'EPIPE', undefined])('treats %s after connecting as a network failure (the command may have run)', (errno) => {
    expect(classifyAgentFailure(network(errno))).toBe('network');
  });

  it('tells an unassigned agent (re-deliver the token) from a draining one (not delivered) from other 503s', () => {
    expect(classifyAgentFailure(status(503, 'agent not assigned'))).toBe('not-assigned');
    expect(classifyAgentFailure(status(503, 'agent shutting down'))).toBe('not-delivered');
    expect(classifyAgentFailure(status(503, 'something else'))).toBe('status');
  });

  it('classifies 401, other statuses, decode, abort and foreign errors', () => {
    expect(classifyAgentFailure(status(401, 'unauthorized'))).toBe('not-delivered');
    expect(classifyAgentFailure(status(500, 'boom'))).toBe('status');
    expect(classifyAgentFailure(new AgentError(AgentErrorCode.Decode, 'execute', url, 'bad json', 200))).toBe('decode');
    expect(classifyAgentFailure(new AgentError(AgentErrorCode.Aborted, 'execute', url, 'request aborted'))).toBe('aborted');
    expect(classifyAgentFailure(new Error('x'))).toBe('unknown');
  });
});

describe(describeAgentFailure.name, () => {
  it('keeps the Go catalogue shape and adds the agent message', () => {
    expect(describeAgentFailure(status(500, 'boom'))).toBe(`agent request: execute ${url}: unexpected status 500: boom`);
  });
});

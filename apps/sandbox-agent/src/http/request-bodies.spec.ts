import { describe, expect, it } from 'vitest';
import { AgentError } from '@cli-mcp/agent-client';
import { parseAssignToken, parseTargetRequestId, parseExecInput } from './request-bodies.js';

const body = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

function errorOf(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentError) return { status: err.status ?? 0, message: err.message };
    throw err;
  }
  throw new Error('expected an AgentError');
}

describe(parseExecInput.name, () => {
  it('reads the fields and ignores unknown ones', () => {
    expect(parseExecInput(body({ command: 'ls', timeout: 5, request_id: 'a.b:c-1_2', tty: true, extra: 1 })))
      .toEqual({ command: 'ls', timeout: 5, requestId: 'a.b:c-1_2', tty: true });
    expect(parseExecInput(body({ command: 'ls', timeout: null, request_id: '' })))
      .toEqual({ command: 'ls', timeout: undefined, requestId: undefined, tty: false });
  });

  it.each([
    ['not json'],
    ['{"command":"ls"} {}'],
    ['[]'],
    ['null'],
    ['"ls"'],
    [''],
    ['{"command":5}'],
    ['{"command":"ls","timeout":"5"}'],
    ['{"command":"ls","tty":"yes"}'],
    ['{"command":"ls","request_id":"has space"}'],
    [`{"command":"ls","request_id":"${'x'.repeat(129)}"}`],
  ])('rejects %j with 400 invalid request body', (raw) => {
    expect(errorOf(() => parseExecInput(body(raw)))).toEqual({ status: 400, message: 'invalid request body' });
  });

  it('type errors come before the empty command', () => {
    expect(errorOf(() => parseExecInput(body({ command: '', timeout: 'x' })))).toEqual({ status: 400, message: 'invalid request body' });
    expect(errorOf(() => parseExecInput(body({ command: '' })))).toEqual({ status: 400, message: 'command is required' });
    expect(errorOf(() => parseExecInput(body({})))).toEqual({ status: 400, message: 'command is required' });
  });

  it('rejects NUL bytes, which a bash string cannot carry', () => {
    expect(errorOf(() => parseExecInput(body({ command: 'a\u0000b' })))).toEqual({ status: 400, message: 'command must not contain NUL bytes' });
  });
});

describe(parseAssignToken.name, () => {
  it('returns the token, or 400 token is required / invalid request body', () => {
    expect(parseAssignToken(body({ token: 't' }))).toBe('t');
    expect(errorOf(() => parseAssignToken(body({ token: '' })))).toEqual({ status: 400, message: 'token is required' });
    expect(errorOf(() => parseAssignToken(body({ token: 1 })))).toEqual({ status: 400, message: 'invalid request body' });
    expect(errorOf(() => parseAssignToken(body('{')))).toEqual({ status: 400, message: 'invalid request body' });
  });
});

describe(parseTargetRequestId.name, () => {
  it('accepts an empty body and an optional id', () => {
    expect(parseTargetRequestId(undefined)).toBeUndefined();
    expect(parseTargetRequestId(Buffer.alloc(0))).toBeUndefined();
    expect(parseTargetRequestId(body({ request_id: 'r1' }))).toBe('r1');
    expect(errorOf(() => parseTargetRequestId(body({ request_id: 3 })))).toEqual({ status: 400, message: 'invalid request body' });
  });
});

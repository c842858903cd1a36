import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseBashArguments } from './bash-arguments.js';
import { ProtocolError } from './protocol-error.js';

function rejection(args: unknown): ProtocolError {
  try {
    parseBashArguments(args);
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe(parseBashArguments.name, () => {
  it('accepts a command with an optional integer or null timeout', () => {
    expect(parseBashArguments({ command: 'ls' })).toEqual({ command: 'ls', timeout: undefined });
    expect(parseBashArguments({ command: 'ls', timeout: 30 })).toEqual({ command: 'ls', timeout: 30 });
    expect(parseBashArguments({ command: 'ls', timeout: null })).toEqual({ command: 'ls', timeout: null });
    expect(parseBashArguments({ command: 'ls', timeout: -5 })).toEqual({ command: 'ls', timeout: -5 });
  });

  it('accepts an optional tty boolean (C-MCP-14); false and null mean the pipe protocol', () => {
    expect(parseBashArguments({ command: 'top -bn1', tty: true })).toEqual({ command: 'top -bn1', timeout: undefined, tty: true });
    expect(parseBashArguments({ command: 'ls', tty: false })).toEqual({ command: 'ls', timeout: undefined });
    expect(parseBashArguments({ command: 'ls', tty: null })).toEqual({ command: 'ls', timeout: undefined });
  });

  it('lets an empty command through (the handler answers "command is required")', () => {
    expect(parseBashArguments({ command: '' })).toEqual({ command: '', timeout: undefined });
  });

  it.each([
    [undefined, 'invalid params: missing required argument "command"'],
    [{}, 'invalid params: missing required argument "command"'],
    [{ command: 42 }, 'invalid params: argument "command" must be a string, got number'],
    [{ command: null }, 'invalid params: argument "command" must be a string, got null'],
    [{ command: ['ls'] }, 'invalid params: argument "command" must be a string, got array'],
    [{ command: 'ls', timeout: '30' }, 'invalid params: argument "timeout" must be an integer number of seconds or null, got string'],
    [{ command: 'ls', timeout: 1.5 }, 'invalid params: argument "timeout" must be an integer number of seconds or null, got number 1.5'],
    [{ command: 'ls', cwd: '/tmp' }, 'invalid params: unknown argument "cwd" (bash accepts "command", "timeout" and "tty")'],
    [{ command: 'ls', tty: 'yes' }, 'invalid params: argument "tty" must be a boolean or null, got string'],
    ['ls', 'invalid params: "arguments" must be an object, got string'],
  ])('rejects %j as a JSON-RPC invalid-params error naming the field', (args, message) => {
    const error = rejection(args);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe(message);
  });
});

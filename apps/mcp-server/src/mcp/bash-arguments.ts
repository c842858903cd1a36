import { ProtocolError } from './protocol-error.js';

export interface BashArguments {
  readonly command: string;
  readonly timeout: number | null | undefined;
  /** Run in the agent's terminal mode (C-MCP-14); absent/null = the pipe protocol. */
  readonly tty?: boolean;
}

const ACCEPTED = ['command', 'timeout', 'tty'];

/**
 * Checks `tools/call` arguments against the input schema (C-MCP-2/4): wrong types, extra keys and a missing
 * `command` are JSON-RPC errors (-32602) naming the field, as Go's schema validation made them (Go §2.2). An
 * empty `command` passes here: it is a tool error (`command is required`), decided by the handler.
 */
export function parseBashArguments(args: unknown): BashArguments {
  if (args === undefined || args === null) throw invalid('missing required argument "command"');
  if (typeof args !== 'object' || Array.isArray(args)) throw invalid(`"arguments" must be an object, got ${typeName(args)}`);
  const record = args as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !ACCEPTED.includes(key));
  if (extra.length > 0) {
    throw invalid(`unknown argument ${extra.map((key) => JSON.stringify(key)).join(', ')} (bash accepts "command", "timeout" and "tty")`);
  }
  const { command, timeout, tty } = record;
  if (command === undefined) throw invalid('missing required argument "command"');
  if (typeof command !== 'string') throw invalid(`argument "command" must be a string, got ${typeName(command)}`);
  if (timeout !== undefined && timeout !== null && !(typeof timeout === 'number' && Number.isInteger(timeout))) {
    throw invalid(`argument "timeout" must be an integer number of seconds or null, got ${typeName(timeout)}`);
  }
  if (tty !== undefined && tty !== null && typeof tty !== 'boolean') throw invalid(`argument "tty" must be a boolean or null, got ${typeName(tty)}`);
  return { command, timeout: timeout as number | null | undefined, ...(tty === true ? { tty: true } : {}) };
}

function invalid(detail: string): ProtocolError {
  return ProtocolError.invalidParams(`invalid params: ${detail}`);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `number ${value}`;
  return typeof value;
}

import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';

/**
 * Strict decoding of request bodies. The agent accepts any Content-Type and parses the raw bytes itself (as the Go
 * agent did), so the JSON rules live here: one JSON object, no trailing data, known fields of the right type,
 * unknown fields ignored. Anything else → 400 `invalid request body`.
 */
export interface ExecInput {
  command: string;
  /** Seconds as sent; clamping to default/max happens in ExecService (C-MCP-3 rules). */
  timeout: number | undefined;
  requestId: string | undefined;
  idempotencyKey: string | undefined;
  tty: boolean;
  /** Seconds to the yield point (C-MCP-11); undefined or ≤ 0 = none. */
  yieldAfter: number | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function parseJsonObject(body: unknown, allowEmpty = false): Record<string, unknown> {
  if (body === undefined || body === null || (Buffer.isBuffer(body) && body.length === 0)) {
    if (allowEmpty) return {};
    throw new AgentError(AgentErrorCode.InvalidBody);
  }
  let value: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    try {
      value = JSON.parse(body.toString());
    } catch {
      throw new AgentError(AgentErrorCode.InvalidBody);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AgentError(AgentErrorCode.InvalidBody);
  return value as Record<string, unknown>;
}

function optional<T>(value: unknown, check: (v: unknown) => v is T): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new AgentError(AgentErrorCode.InvalidBody);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

/** `request_id` and `idempotency_key` share one format: ≤ 128 chars of [A-Za-z0-9._:-]. */
function requestIdOf(value: unknown): string | undefined {
  const id = optional(value, isString);
  if (id === undefined || id === '') return undefined;
  if (!REQUEST_ID.test(id)) throw new AgentError(AgentErrorCode.InvalidBody);
  return id;
}

/** C-AG-1: type errors first (400 invalid request body), then the empty command (400 command is required). */
export function parseExecInput(body: unknown): ExecInput {
  const object = parseJsonObject(body);
  const command = optional(object.command, isString) ?? '';
  const timeout = optional(object.timeout, isNumber);
  const requestId = requestIdOf(object.request_id);
  const idempotencyKey = requestIdOf(object.idempotency_key);
  const tty = optional(object.tty, isBoolean) ?? false;
  const yieldAfter = optional(object.yield_after, isNumber);
  if (command === '') throw new AgentError(AgentErrorCode.CommandRequired);
  // The command travels as a bash string literal, which cannot hold NUL.
  if (command.includes('\0')) throw new AgentError(AgentErrorCode.CommandHasNul);
  return { command, timeout, requestId, idempotencyKey, tty, yieldAfter: yieldAfter !== undefined && yieldAfter > 0 ? yieldAfter : undefined };
}

/** C-AG-2: bad body → 400 before any state check; empty token → 400 `token is required`. */
export function parseAssignToken(body: unknown): string {
  const token = optional(parseJsonObject(body).token, isString) ?? '';
  if (token === '') throw new AgentError(AgentErrorCode.TokenRequired);
  return token;
}

/** `/cancel` (C-AG-4) and `/output`: `{request_id?}`; an empty body means "the running command". */
export function parseTargetRequestId(body: unknown): string | undefined {
  return requestIdOf(parseJsonObject(body, true).request_id);
}

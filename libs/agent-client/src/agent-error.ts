/**
 * Every way a call to a sandbox agent can fail, as one code (C-AG-15): callers decide on the code, never on message
 * text. The agent answers the wire codes as `{"error": <text>, "code": <code>}` with the status AGENT_ERROR_WIRE
 * gives; the client adds its own four for what no agent answer explains.
 */
export enum AgentErrorCode {
  // Answered by the agent (docs/agent.md, "Error codes").
  NotAssigned = 'not_assigned',
  MissingAuthorization = 'missing_authorization',
  Unauthorized = 'unauthorized',
  BodyTooLarge = 'body_too_large',
  InvalidBody = 'invalid_body',
  /** Not parseable as HTTP/1.1 (Node's parser refused it before any route): the connection is closed. */
  MalformedRequest = 'malformed_request',
  HeadersTooLarge = 'headers_too_large',
  CommandRequired = 'command_required',
  CommandHasNul = 'command_has_nul',
  TokenRequired = 'token_required',
  AlreadyAssigned = 'already_assigned',
  NotFound = 'not_found',
  MethodNotAllowed = 'method_not_allowed',
  ShellUnavailable = 'shell_unavailable',
  ShuttingDown = 'shutting_down',
  Internal = 'internal',
  // The client's own; never on the wire.
  /** No response: connection refused/reset, DNS, socket timeout. The sandbox may be gone (C-K8S-7). */
  Network = 'network',
  /** The caller's signal aborted the request. */
  Aborted = 'aborted',
  /** A non-200 answer without a code this client knows (a proxy's page, an agent older or newer than it). */
  UnexpectedStatus = 'unexpected_status',
  /** 200 with a body that is not the expected JSON, larger than the client's cap, or cut off. */
  BadResponse = 'bad_response',
}

export type AgentWireCode = Exclude<AgentErrorCode, AgentErrorCode.Network | AgentErrorCode.Aborted | AgentErrorCode.UnexpectedStatus | AgentErrorCode.BadResponse>;

/** The one place a wire code gets its HTTP status and its text (C-AG-1, C-AG-2). */
export const AGENT_ERROR_WIRE: Readonly<Record<AgentWireCode, { status: number; message: string }>> = {
  [AgentErrorCode.NotAssigned]: { status: 503, message: 'agent not assigned' },
  [AgentErrorCode.MissingAuthorization]: { status: 401, message: 'missing or invalid authorization header' },
  [AgentErrorCode.Unauthorized]: { status: 401, message: 'unauthorized' },
  [AgentErrorCode.BodyTooLarge]: { status: 413, message: 'request body too large' },
  [AgentErrorCode.InvalidBody]: { status: 400, message: 'invalid request body' },
  [AgentErrorCode.MalformedRequest]: { status: 400, message: 'malformed request' },
  [AgentErrorCode.HeadersTooLarge]: { status: 431, message: 'request headers too large' },
  [AgentErrorCode.CommandRequired]: { status: 400, message: 'command is required' },
  [AgentErrorCode.CommandHasNul]: { status: 400, message: 'command must not contain NUL bytes' },
  [AgentErrorCode.TokenRequired]: { status: 400, message: 'token is required' },
  [AgentErrorCode.AlreadyAssigned]: { status: 409, message: 'already assigned' },
  [AgentErrorCode.NotFound]: { status: 404, message: 'not found' },
  [AgentErrorCode.MethodNotAllowed]: { status: 405, message: 'method not allowed' },
  [AgentErrorCode.ShellUnavailable]: { status: 500, message: 'shell unavailable' },
  [AgentErrorCode.ShuttingDown]: { status: 503, message: 'agent shutting down' },
  [AgentErrorCode.Internal]: { status: 500, message: 'internal error' },
};

/** The wire code named by an answer's `code` field, or undefined for anything else (an unknown code included). */
export function wireCodeOf(value: unknown): AgentWireCode | undefined {
  return typeof value === 'string' && Object.hasOwn(AGENT_ERROR_WIRE, value) ? (value as AgentWireCode) : undefined;
}

export type AgentOperation = 'execute' | 'assign' | 'cancel' | 'output' | 'health_check';

/** The client's side of a failed call: which call, and what came back. */
export interface AgentCall {
  op: AgentOperation;
  url: string;
  /** HTTP status the client received (answers and bad bodies). */
  status?: number;
  /** The agent's `error` text, or at most 512 bytes of a body that was not the agent's envelope. For humans only. */
  agentMessage?: string;
  /** Node's error code of a Network error (e.g. `ECONNREFUSED`: the request was certainly not delivered). */
  errno?: string;
}

/**
 * The one error class of the agent wire: thrown by the agent's routes (answered with the code's status and
 * text) and by the client (with the call). The message never contains the bearer token (C-AUTH-2).
 */
export class AgentError extends Error {
  readonly status: number | undefined;
  readonly op: AgentOperation | undefined;
  readonly url: string | undefined;
  readonly agentMessage: string | undefined;
  readonly errno: string | undefined;

  constructor(readonly code: AgentErrorCode, detail?: string, call?: AgentCall) {
    const wire = wireCodeOf(code) === undefined ? undefined : AGENT_ERROR_WIRE[code as AgentWireCode];
    const text = detail ?? wire?.message ?? code;
    super(call ? `${call.op} ${call.url}: ${text}` : text);
    this.name = 'AgentError';
    this.status = call?.status ?? wire?.status;
    this.op = call?.op;
    this.url = call?.url;
    this.agentMessage = call?.agentMessage;
    this.errno = call?.errno;
  }
}

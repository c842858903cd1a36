/** Every error the agent's HTTP API can answer with, mapped to status and exact text in one place (C-AG-1, C-AG-2). */
export enum AgentErrorCode {
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
}

export class AgentError extends Error {
  constructor(readonly code: AgentErrorCode, detail?: string) {
    super(detail ?? defaultMessage(code));
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export function statusOf(code: AgentErrorCode): number {
  switch (code) {
    case AgentErrorCode.NotAssigned:
    case AgentErrorCode.ShuttingDown:
      return 503;
    case AgentErrorCode.MissingAuthorization:
    case AgentErrorCode.Unauthorized:
      return 401;
    case AgentErrorCode.BodyTooLarge:
      return 413;
    case AgentErrorCode.InvalidBody:
    case AgentErrorCode.MalformedRequest:
    case AgentErrorCode.CommandRequired:
    case AgentErrorCode.CommandHasNul:
    case AgentErrorCode.TokenRequired:
      return 400;
    case AgentErrorCode.AlreadyAssigned:
      return 409;
    case AgentErrorCode.HeadersTooLarge:
      return 431;
    case AgentErrorCode.NotFound:
      return 404;
    case AgentErrorCode.MethodNotAllowed:
      return 405;
    case AgentErrorCode.ShellUnavailable:
    case AgentErrorCode.Internal:
      return 500;
  }
}

function defaultMessage(code: AgentErrorCode): string {
  switch (code) {
    case AgentErrorCode.NotAssigned:
      return 'agent not assigned';
    case AgentErrorCode.MissingAuthorization:
      return 'missing or invalid authorization header';
    case AgentErrorCode.Unauthorized:
      return 'unauthorized';
    case AgentErrorCode.BodyTooLarge:
      return 'request body too large';
    case AgentErrorCode.InvalidBody:
      return 'invalid request body';
    case AgentErrorCode.MalformedRequest:
      return 'malformed request';
    case AgentErrorCode.HeadersTooLarge:
      return 'request headers too large';
    case AgentErrorCode.CommandRequired:
      return 'command is required';
    case AgentErrorCode.CommandHasNul:
      return 'command must not contain NUL bytes';
    case AgentErrorCode.TokenRequired:
      return 'token is required';
    case AgentErrorCode.AlreadyAssigned:
      return 'already assigned';
    case AgentErrorCode.NotFound:
      return 'not found';
    case AgentErrorCode.MethodNotAllowed:
      return 'method not allowed';
    case AgentErrorCode.ShellUnavailable:
      return 'shell unavailable';
    case AgentErrorCode.ShuttingDown:
      return 'agent shutting down';
    case AgentErrorCode.Internal:
      return 'internal error';
  }
}

/** Why a call to a sandbox agent failed (Go §10 error types, made a code enum). */
export enum AgentErrorCode {
  /** No response: connection refused/reset, DNS, socket timeout. The sandbox may be gone (C-K8S-7). */
  Network = 'AGENT_NETWORK',
  /** The caller's signal aborted the request. */
  Aborted = 'AGENT_ABORTED',
  /** The agent answered with a non-200 status. */
  Status = 'AGENT_STATUS',
  /** 200 with a body that is not the expected JSON, or larger than the client's cap. */
  Decode = 'AGENT_DECODE',
}

export type AgentOperation = 'execute' | 'assign' | 'cancel' | 'output' | 'health_check';

/** One error class for the agent client. The message never contains the bearer token (C-AUTH-2). */
export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    readonly op: AgentOperation,
    readonly url: string,
    detail: string,
    /** HTTP status for Status/Decode errors. */
    readonly status?: number,
    /** The agent's `error` field (Status errors), at most 512 bytes of body otherwise. */
    readonly agentMessage?: string,
    /** Node's error code of a Network error (e.g. `ECONNREFUSED`: the request was certainly not delivered). */
    readonly errno?: string,
  ) {
    super(`${op} ${url}: ${detail}`);
    this.name = 'AgentError';
  }
}

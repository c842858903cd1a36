import { tokensEqual } from '@cli-mcp/auth';

/**
 * Whether the agent belongs to a session, and its bearer token (C-AG-2). Assigned at start from
 * `SANDBOX_AUTH_TOKEN`, or once by `POST /assign` (warm pool). The token is never logged (C-AUTH-2).
 */
export class AssignmentState {
  private token: string | undefined;

  constructor(initialToken: string | undefined) {
    this.token = initialToken === '' ? undefined : initialToken;
  }

  get assigned(): boolean {
    return this.token !== undefined;
  }

  /** Stores the token unless one is already set (→ false; the stored token stays unchanged). */
  assign(token: string): boolean {
    if (this.token !== undefined) return false;
    this.token = token;
    return true;
  }

  /** Constant-time check of a presented bearer token (C-AG-1). */
  accepts(presented: string): boolean {
    return this.token !== undefined && tokensEqual(presented, this.token);
  }
}

import { tokensEqual } from '@cli-mcp/auth';

/** What `POST /assign` did (C-AG-2, C-AG-13). */
export type AssignOutcome = 'assigned' | 'already-held' | 'conflict';

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

  /**
   * Stores the token unless one is already set. Presenting the token already held is a success that changes
   * nothing (C-AG-13: a claim retried, recovered or re-delivered by another replica is idempotent); another token is
   * a conflict and the stored one stays. Compared in constant time, like a bearer.
   */
  assign(token: string): AssignOutcome {
    if (this.token === undefined) {
      this.token = token;
      return 'assigned';
    }
    return tokensEqual(token, this.token) ? 'already-held' : 'conflict';
  }

  /** Constant-time check of a presented bearer token (C-AG-1). */
  accepts(presented: string): boolean {
    return this.token !== undefined && tokensEqual(presented, this.token);
  }
}

import { failureStatus } from '../api/status.js';
import type { Status } from '../api/types.js';

/**
 * A per-test fault rule. The first rule that matches a request (and has `times` left) shapes it: optional
 * latency first, then either an error Status, a dropped connection, a watch cut short, or normal handling.
 */
export interface FaultRule {
  /** HTTP method (any when omitted). */
  method?: string;
  /** Tested against the URL path (without the query string). */
  pathPattern: RegExp;
  /** Tested against the raw query string (without `?`), when given. */
  queryPattern?: RegExp;
  /** Only watch requests (`true`) or only non-watch requests (`false`). */
  watch?: boolean;
  /** How many requests the rule applies to; unlimited when omitted. */
  times?: number;
  /** Delay before the request is answered (or handled normally). */
  delayMs?: number;
  /**
   * Called when a matching request arrives; the request waits until the returned promise settles (after
   * `delayMs`). Lets a test pause one request at an exact point of a race instead of guessing a delay.
   */
  hold?: () => Promise<unknown>;
  /** Answer with this Status (a full body, or just an HTTP code with the conventional reason). */
  status?: Status | number;
  /** Adds a `Retry-After` header (and `details.retryAfterSeconds` when `status` is a code). */
  retryAfterSeconds?: number;
  /**
   * Response headers added to the `status` answer, e.g. `Location` with a 302: an API server (or what fronts it)
   * that redirects, for the egress tests that prove a redirect is passed back and never followed (C-EGR-4).
   */
  headers?: Record<string, string>;
  /** Destroy the socket without answering. */
  dropConnection?: boolean;
  /** For watches: serve normally, then end the stream after this many ms. */
  cutWatchAfterMs?: number;
}

/** Returned by `FaultInjector.add`: inspect or remove the rule. */
export interface FaultHandle {
  readonly rule: FaultRule;
  /** How many requests the rule has shaped so far. */
  readonly hits: number;
  remove(): void;
}

/** What the server must do for one request. */
export interface FaultAction {
  delayMs: number;
  hold?: () => Promise<unknown>;
  respond?: { status: Status; headers: Record<string, string> };
  dropConnection: boolean;
  cutWatchAfterMs?: number;
}

const REASONS: Record<number, [string, string]> = {
  400: ['BadRequest', 'injected bad request'],
  401: ['Unauthorized', 'Unauthorized'],
  403: ['Forbidden', 'forbidden: injected fault'],
  404: ['NotFound', 'the server could not find the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Expired', 'injected: resource version expired'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected fault'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** A Failure Status for `code` with the conventional reason and message. */
export function statusForCode(code: number, retryAfterSeconds?: number): Status {
  const [reason, message] = REASONS[code] ?? ['InternalError', `injected fault ${code}`];
  return failureStatus(code, reason, message, retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined);
}

interface ActiveRule {
  rule: FaultRule;
  hits: number;
}

/** The per-server list of fault rules. */
export class FaultInjector {
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): FaultHandle {
    const active: ActiveRule = { rule, hits: 0 };
    this.rules.push(active);
    return {
      rule,
      get hits() {
        return active.hits;
      },
      remove: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  clear(): void {
    this.rules = [];
  }

  /** Finds the action for a request and consumes one use of the matching rule. */
  take(method: string, path: string, query: string, watch: boolean): FaultAction | undefined {
    const active = this.rules.find(({ rule, hits }) => {
      if (rule.times !== undefined && hits >= rule.times) return false;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
      if (rule.watch !== undefined && rule.watch !== watch) return false;
      if (rule.queryPattern && !rule.queryPattern.test(query)) return false;
      return rule.pathPattern.test(path);
    });
    if (!active) return undefined;
    active.hits++;
    const { rule } = active;
    const action: FaultAction = { delayMs: rule.delayMs ?? 0, hold: rule.hold, dropConnection: rule.dropConnection ?? false, cutWatchAfterMs: rule.cutWatchAfterMs };
    if (rule.status !== undefined) {
      const status = typeof rule.status === 'number' ? statusForCode(rule.status, rule.retryAfterSeconds) : rule.status;
      const headers: Record<string, string> = { ...rule.headers };
      if (rule.retryAfterSeconds !== undefined) headers['Retry-After'] = String(rule.retryAfterSeconds);
      action.respond = { status, headers };
    }
    return action;
  }
}

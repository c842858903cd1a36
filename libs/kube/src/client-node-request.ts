import { STATUS_CODES } from 'node:http';
import {
  ApiException,
  Observable,
  setHeaderOptions,
  type ConfigurationOptions,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { KubeError } from './kube-error.js';
import type { KubeRequestMetrics, KubeResource, KubeVerb } from './kube-request-metrics.js';

/** Per-call options handed to a generated client-node API method. */
export type KubeRequestOptions = ConfigurationOptions;

/** What one request is, for counting and for its content type. */
export interface KubeRequest {
  readonly verb: KubeVerb;
  readonly resource: KubeResource;
  readonly signal: AbortSignal;
  /** e.g. `PatchStrategy.MergePatch` (the generated default is JSON Patch, stack-notes C). */
  readonly contentType?: string;
}

/**
 * Sends one client-node request with the caller's signal (and a content type), counts it in
 * `cli_mcp_kube_requests_total`, and maps its failure to `KubeError`. A 429, or a 5xx carrying `Retry-After`, was
 * not processed by the server: it is retried up to {@link MAX_RETRIES} times after the advised delay (capped), as
 * client-go does. Shared by every adapter (backend, controller, Lease), so they fail and count alike.
 */
export async function sendKubeRequest<T>(
  metrics: KubeRequestMetrics,
  request: KubeRequest,
  call: (options: KubeRequestOptions) => Promise<T>,
): Promise<T> {
  const { verb, resource, signal, contentType } = request;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) {
      metrics.record(verb, resource, 'aborted');
      throw abortedError(signal);
    }
    let options: KubeRequestOptions = { middleware: [signalMiddleware(signal)], middlewareMergeStrategy: 'append' };
    if (contentType) options = setHeaderOptions('Content-Type', contentType, options);
    try {
      const result = await call(options);
      metrics.record(verb, resource, verb === 'create' ? '201' : '200');
      return result;
    } catch (error) {
      if (error instanceof ApiException) {
        metrics.record(verb, resource, String(error.code));
        const delayMs = retryDelayMs(error, attempt);
        if (delayMs !== undefined && (await sleep(delayMs, signal))) continue;
        throw fromApiException(error);
      }
      if (signal.aborted) {
        metrics.record(verb, resource, 'aborted');
        throw abortedError(signal);
      }
      metrics.record(verb, resource, 'error');
      throw new KubeError(messageOf(error), undefined, undefined, { cause: error });
    }
  }
}

const MAX_RETRIES = 3;
const MAX_RETRY_DELAY_MS = 1_000;

/** Delay before retrying an answer the server asked us to retry, or undefined when it must not be retried. */
function retryDelayMs(error: ApiException<unknown>, attempt: number): number | undefined {
  if (attempt >= MAX_RETRIES) return undefined;
  const header = error.headers?.['retry-after'];
  const advised = header !== undefined && /^\d+$/.test(header) ? Number(header) * 1000 : undefined;
  if (error.code === 429) return Math.min(advised ?? 100 * 2 ** attempt, MAX_RETRY_DELAY_MS);
  if (error.code >= 500 && advised !== undefined) return Math.min(advised, MAX_RETRY_DELAY_MS);
  return undefined;
}

/** Resolves true after `ms`, false at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Hands the signal to node-fetch (client-node's `RequestContext.setSignal`), so aborting ends the request. */
function signalMiddleware(signal: AbortSignal): NonNullable<KubeRequestOptions['middleware']>[number] {
  return {
    pre: (context: RequestContext) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
}

interface StatusBody {
  message?: string;
  reason?: string;
}

/** `ApiException.body` is the raw response text (or undefined on 401); its Status carries reason and message. */
export function fromApiException(error: ApiException<unknown>): KubeError {
  let status: StatusBody | undefined;
  if (typeof error.body === 'string') {
    try {
      status = JSON.parse(error.body) as StatusBody;
    } catch {
      status = undefined;
    }
  } else if (error.body && typeof error.body === 'object') {
    status = error.body as StatusBody;
  }
  const code = error.code;
  const message = typeof status?.message === 'string' && status.message !== '' ? status.message : `${code} ${STATUS_CODES[code] ?? 'error'}`;
  return new KubeError(message, code, typeof status?.reason === 'string' ? status.reason : reasonOf(code), { cause: error });
}

const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 410: 'Expired',
  422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

/** The conventional Status reason of an HTTP code (for answers without a Status body). */
export function reasonOf(code: number): string | undefined {
  return REASONS[code];
}

/** The `KubeError` of a request its caller aborted (or timed out through `AbortSignal.timeout`). */
export function abortedError(signal: AbortSignal): KubeError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return new KubeError(timedOut ? 'request timed out' : 'request aborted', undefined, undefined, { cause: reason });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

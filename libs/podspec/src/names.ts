import { createHash } from 'node:crypto';
import { DNS_LABEL_MAX_LENGTH } from './identifiers.js';

/**
 * Object names (C-K8S-2). The Go names `cli-mcp-sandbox-<id>` omitted the instance, so two instances in one
 * namespace fought over the same pod and Secret (Go §18.15). Ours are
 *
 *   pod:    cli-mcp-<instance>-<session>-<hash8>        (readable part truncated so the whole is ≤ 63)
 *   secret: cli-mcp-auth-<instance>-<session>-<hash8>
 *   warm:   cli-mcp-<instance>-pool-<random10>
 *   lease:  cli-mcp-<instance>-controller                (the controller's leader-election Lease, C-CTL-1)
 *
 * where hash8 = first 8 hex of sha256(instance + "/" + session). The readable part alone is ambiguous
 * (`a-b`+`c` and `a`+`b-c` both read `a-b-c`) and may be truncated; the hash covers the exact pair, and `/`
 * cannot occur in either part, so distinct pairs only collide on a 32-bit hash collision *and* an equal
 * readable prefix. Within one instance, untruncated names are injective. Labels stay the authority: the
 * backend checks an object's labels before trusting or deleting it (C-K8S-8).
 *
 * Session-derived names always end in an 8-character segment and warm names in a 10-character one, so a warm
 * pod can never take a session pod's name (session id `pool` included), whatever the instance.
 * All names are ≤ 63 characters (valid hostnames too) and valid RFC 1123 labels for any input.
 */

const HASH_LENGTH = 8;
const WARM_SUFFIX_BYTES = 5; // 10 hex characters
const POD_PREFIX = 'cli-mcp-';
const SECRET_PREFIX = 'cli-mcp-auth-';

/** A source of random bytes, e.g. `crypto.randomBytes`; injected so tests are deterministic. */
export type RandomBytes = (size: number) => Uint8Array;

/** Deterministic name of the pod created on demand for (instance, session) (C-K8S-2). */
export function sessionPodName(instance: string, sessionId: string): string {
  return derivedName(POD_PREFIX, instance, sessionId);
}

/** Deterministic name of the Secret holding the session token of (instance, session) (C-K8S-2). */
export function authSecretName(instance: string, sessionId: string): string {
  return derivedName(SECRET_PREFIX, instance, sessionId);
}

/**
 * A fresh warm-pool (unassigned) pod name `cli-mcp-<instance>-pool-<10 hex>`. Explicit random names (not
 * `generateName`) as in Go §3.2, so a create that times out can be retried idempotently by name.
 */
export function warmPodName(instance: string, randomBytes: RandomBytes): string {
  const suffix = toHex(randomBytes(WARM_SUFFIX_BYTES)).slice(0, WARM_SUFFIX_BYTES * 2).padEnd(WARM_SUFFIX_BYTES * 2, '0');
  const tail = `-pool-${suffix}`;
  const head = trimTrailingHyphens(readable(`${POD_PREFIX}${instance}`).slice(0, DNS_LABEL_MAX_LENGTH - tail.length));
  return `${head}${tail}`;
}

/** `cli-mcp-<instance>-pool-<10 hex>`: the shape {@link warmPodName} produces, whatever the instance. */
const WARM_NAME = /-pool-[0-9a-f]{10}$/;

/**
 * True when `name` is a warm-pool pod name (see {@link warmPodName}). A session pod's name ends in an 8-hex
 * segment, so it never matches; the controller uses this to tell a claimed pool pod from one created on demand
 * (the pool pod's created-at is the pool's, not the session's, C-CTL-7).
 */
export function isWarmPodName(name: string): boolean {
  return WARM_NAME.test(name);
}

/**
 * Name of the `coordination.k8s.io/v1` Lease the controllers of `instance` elect their leader on (C-CTL-1), and
 * that the server reads to report whether a controller runs. ≤ 51 characters for a valid instance name.
 */
export function controllerLeaseName(instance: string): string {
  return `${POD_PREFIX}${instance}-controller`;
}

function derivedName(prefix: string, instance: string, sessionId: string): string {
  const hash = createHash('sha256').update(`${instance}/${sessionId}`, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const budget = DNS_LABEL_MAX_LENGTH - HASH_LENGTH - 1;
  const head = trimTrailingHyphens(readable(`${prefix}${instance}-${sessionId}`).slice(0, budget));
  return `${head}-${hash}`;
}

// Inputs are validated upstream; this only guarantees a valid label even if they were not. Uniqueness does
// not depend on it because the hash is taken over the raw input.
function readable(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9-]/g, '-');
}

function trimTrailingHyphens(text: string): string {
  return text.replace(/-+$/, '');
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

import { createHash } from 'node:crypto';
import { buildSandboxPodSpec } from './pod-spec.js';
import type { SandboxPodConfig } from './sandbox-config.js';

/**
 * The desired-spec hash stamped on every sandbox pod (`cli-mcp.redhat.com/spec-hash`). The warm-pool
 * controller recreates unassigned pods whose hash differs from the current one (C-CTL-2).
 *
 * It hashes the built pod spec rather than a hand-picked field list, so everything that reaches a pod —
 * image, pull policy, resources, env, size limits, SA, kubeconfig Secret, probe timings, grace period, and
 * hardening changes in a new release — changes the hash, and nothing else (namespace, instance, time) does.
 * Object keys are sorted at every level, so the hash does not depend on key order (e.g. of a `valueFrom`
 * decoded from JSON); array order (env order) is meaningful and kept.
 */

const SPEC_HASH_LENGTH = 16;

/**
 * First 16 hex characters of sha256 over the canonical JSON of the sandbox pod spec for `cfg`. The gateway's
 * address (`egressProxyAddress`, a run-time fact, not configuration) is left out, so server and controller agree
 * on the hash whatever each last read; a pod's address is its own annotation (`EGRESS_PROXY_ADDRESS_ANNOTATION`).
 */
export function sandboxSpecHash(cfg: SandboxPodConfig): string {
  const configured: SandboxPodConfig = { ...cfg, egressProxyAddress: undefined };
  return createHash('sha256').update(canonicalJson(buildSandboxPodSpec(configured)), 'utf8').digest('hex').slice(0, SPEC_HASH_LENGTH);
}

/** JSON with object keys sorted recursively; `undefined` members are dropped as `JSON.stringify` does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

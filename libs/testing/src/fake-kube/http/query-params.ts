import { Statuses } from '../api/status.js';

/**
 * Query parameters decoded the way the real API server's parameter codec does, so every official client's
 * spelling means what it means on a cluster.
 */

/**
 * A boolean query parameter as Kubernetes reads it (`Convert_Slice_string_To_bool` in
 * k8s.io/apimachinery/pkg/runtime/conversion.go, and the same rule in the apiserver's RequestInfo resolver for
 * `watch`): absent → false; the FIRST value `0` or `false` in any case → false; ANY other value — `true`,
 * `True` (Python's `str(True)`, sent by python3-kubernetes), `1`, `yes`, even the empty string — → true. The
 * real server never answers 400 for a boolean, so neither does the fake.
 */
export function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null) return false;
  return raw !== '0' && raw.toLowerCase() !== 'false';
}

/** An integer query parameter; empty or absent → undefined, anything but an integer → 400 (as the codec does). */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw Statuses.badRequest(`${name}: Invalid value: ${JSON.stringify(raw)}: must be an integer`);
  return Number(raw);
}

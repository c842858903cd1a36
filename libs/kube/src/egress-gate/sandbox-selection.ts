import { SESSION_ID_LABEL } from '@cli-mcp/podspec';
import type { GateLabelSelector } from './egress-gate-api.port.js';

/**
 * Whether a NetworkPolicy's `podSelector` may select a sandbox pod whose labels are `labels` (instance and
 * component), as the API server evaluates selectors: matchLabels and matchExpressions ANDed, an empty selector
 * selects every pod. A sandbox's session label takes any value and may be absent (pool pods), so a requirement on
 * it is taken as satisfiable — the gate errs towards "selects" (C-EGR-6). An unknown operator also counts as
 * selecting: the API server rejects one, so only a malformed answer could carry it, and the gate then stays shut.
 */
export function maySelectSandbox(selector: GateLabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    if (key !== SESSION_ID_LABEL && labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector?.matchExpressions ?? []) {
    if (key === SESSION_ID_LABEL) continue;
    const value = labels[key];
    if (operator === 'In' && (value === undefined || !values.includes(value))) return false;
    if (operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (operator === 'Exists' && value === undefined) return false;
    if (operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}

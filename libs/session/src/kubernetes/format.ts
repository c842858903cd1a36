import { isIPv6 } from 'node:net';
import type { V1Pod } from '@kubernetes/client-node';

/**
 * Go's `time.Duration` text (`1m0s`, `5s`, `1.5s`, `250ms`), so readiness errors read exactly like the Go
 * catalogue (`pod "<name>" not ready within 1m0s`, Go §2.2).
 */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${trim(ms)}ms`;
  let rest = ms / 1000;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  rest -= minutes * 60;
  const seconds = `${trim(rest)}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

function trim(value: number): string {
  return String(Number(value.toFixed(3)));
}

/** `http://<podIP>:<port>`, IPv6 bracketed (Go §10 `JoinHostPort`). */
export function agentUrlOf(podIp: string, port: number): string {
  return isIPv6(podIp) ? `http://[${podIp}]:${port}` : `http://${podIp}:${port}`;
}

/** Name of a pod read from the API (always set on stored objects). */
export function podName(pod: V1Pod): string {
  return pod.metadata?.name ?? '';
}

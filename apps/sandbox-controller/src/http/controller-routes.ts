import { metricsRoute, type AdminAnswer, type AdminRoute, type MetricsSource } from '@cli-mcp/common';
import type { StatusSource } from '../controller-runtime.js';

/** One part of `/health`: up or down, with its details (the down one with `message`). */
interface Indicator {
  readonly up: boolean;
  readonly details: Record<string, unknown>;
}

/**
 * The routes of the controller's and operator's admin listener (C-CTL-8): `/live` (the process answers), `/health`
 * and `/metrics`. `/health` is 503 only when the API server cannot be used (the pod informer or the Lease failing —
 * with the reason); leader or follower, the holder, and pool desired/ready and a shortfall beyond
 * `--pool-shortfall-grace` are details (a short pool is reported, not fatal: restarting the controller would not fill
 * it). The body keeps the shape the controller served under Terminus, which probes, dashboards and the tests read:
 * `{ status: ok|error, info, error, details }`, each indicator `{ status: up|down, … }`.
 */
export function controllerRoutes(runtime: StatusSource, registry: MetricsSource): Record<string, AdminRoute> {
  return {
    '/live': () => ({ status: 200, json: { status: 'alive' } }),
    '/health': () => healthAnswer(indicators(runtime)),
    '/metrics': metricsRoute(registry),
  };
}

function indicators(runtime: StatusSource): Record<string, Indicator> {
  const { apiProblem, role, identity, holder, pool, instances, refillPaused } = runtime.status();
  return {
    kubernetes: apiProblem === undefined ? { up: true, details: {} } : { up: false, details: { message: apiProblem } },
    election: { up: true, details: { role, identity, holder: holder === '' ? '(released)' : (holder ?? '(unknown)') } },
    // A paused refill (closed egress gate, C-EGR-6) is a detail like a short pool: restarting would not fix it.
    pool: {
      up: true,
      details: { ...pool, ...(instances === undefined ? {} : { instances }), ...(refillPaused === undefined ? {} : { refill_paused: refillPaused }) },
    },
  };
}

function healthAnswer(parts: Record<string, Indicator>): AdminAnswer {
  const info: Record<string, unknown> = {};
  const error: Record<string, unknown> = {};
  const details: Record<string, unknown> = {};
  for (const [name, { up, details: fields }] of Object.entries(parts)) {
    const entry = { status: up ? 'up' : 'down', ...fields };
    (up ? info : error)[name] = entry;
    details[name] = entry;
  }
  const healthy = Object.keys(error).length === 0;
  return { status: healthy ? 200 : 503, json: { status: healthy ? 'ok' : 'error', info, error, details } };
}

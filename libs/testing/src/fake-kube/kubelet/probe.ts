import { request } from 'node:http';
import { connect } from 'node:net';
import { isJsonObject } from '../api/types.js';

type Json = Record<string, unknown>;

/** What a readiness check does, once mapped onto the pod's loopback address. */
export type ProbeAction =
  | { kind: 'http'; url: string }
  | { kind: 'tcp'; host: string; port: number }
  /** No probe (ready once started) or a probe the fake cannot run: "the agent process is alive". */
  | { kind: 'process' };

/** Probe timing in milliseconds (already divided by the speed-up factor). */
export interface ProbeTiming {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

export interface ReadinessProbePlan {
  action: ProbeAction;
  timing: ProbeTiming;
}

/**
 * Kubelet-wide override of the probes' delay and period in real milliseconds (not scaled by `speedup`): shows what
 * readiness quantisation costs, e.g. a 10 s period whose first probe comes before the agent listens.
 */
export interface ProbeTimingOverride {
  initialDelayMs?: number;
  periodMs?: number;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '[::1]']);

function resolvePort(port: unknown, container: Json): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  if (typeof port === 'string') {
    const named = (Array.isArray(container['ports']) ? container['ports'] : []).find((p) => isJsonObject(p) && p['name'] === port);
    return isJsonObject(named) && typeof named['containerPort'] === 'number' ? named['containerPort'] : undefined;
  }
  return undefined;
}

/** Maps `exec: curl … http://127.0.0.1:8090/health` (or wget) onto an HTTP GET against the pod's address. */
function execAction(command: unknown, podIp: string): ProbeAction {
  const args = Array.isArray(command) ? command.map(String) : [];
  const target = args.find((a) => /^https?:\/\//.test(a));
  if (!target) return { kind: 'process' };
  const url = new URL(target);
  if (url.protocol !== 'http:') return { kind: 'process' };
  if (LOCAL_HOSTS.has(url.hostname)) url.hostname = podIp;
  return { kind: 'http', url: url.toString() };
}

/**
 * Interprets a container's readinessProbe for the simulator. `speedup` divides delays and periods (not the
 * timeout, which stays ≥ 1 s so a loaded CI machine does not flap pods).
 */
export function planReadinessProbe(container: Json, podIp: string, speedup: number, override: ProbeTimingOverride = {}): ReadinessProbePlan {
  const plan = planFromSpec(container, podIp, speedup);
  plan.timing.initialDelayMs = override.initialDelayMs ?? plan.timing.initialDelayMs;
  plan.timing.periodMs = override.periodMs ?? plan.timing.periodMs;
  return plan;
}

function planFromSpec(container: Json, podIp: string, speedup: number): ReadinessProbePlan {
  const probe = container['readinessProbe'];
  const scale = (seconds: unknown, fallback: number): number => (typeof seconds === 'number' ? seconds : fallback) * 1000 / speedup;
  if (!isJsonObject(probe)) {
    return { action: { kind: 'process' }, timing: { initialDelayMs: 0, periodMs: 10_000 / speedup, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3 } };
  }
  const timing: ProbeTiming = {
    initialDelayMs: scale(probe['initialDelaySeconds'], 0),
    periodMs: Math.max(10, scale(probe['periodSeconds'], 10)),
    timeoutMs: Math.max(1000, (typeof probe['timeoutSeconds'] === 'number' ? probe['timeoutSeconds'] : 1) * 1000),
    successThreshold: typeof probe['successThreshold'] === 'number' ? probe['successThreshold'] : 1,
    failureThreshold: typeof probe['failureThreshold'] === 'number' ? probe['failureThreshold'] : 3,
  };
  let action: ProbeAction = { kind: 'process' };
  if (isJsonObject(probe['exec'])) action = execAction(probe['exec']['command'], podIp);
  else if (isJsonObject(probe['httpGet'])) {
    const get = probe['httpGet'];
    const port = resolvePort(get['port'], container);
    const scheme = typeof get['scheme'] === 'string' ? get['scheme'] : 'HTTP';
    if (port !== undefined && scheme === 'HTTP') {
      const host = typeof get['host'] === 'string' && get['host'] !== '' ? get['host'] : podIp;
      const path = typeof get['path'] === 'string' ? get['path'] : '/';
      action = { kind: 'http', url: `http://${host}:${port}${path.startsWith('/') ? path : `/${path}`}` };
    }
  } else if (isJsonObject(probe['tcpSocket'])) {
    const port = resolvePort(probe['tcpSocket']['port'], container);
    if (port !== undefined) action = { kind: 'tcp', host: podIp, port };
  }
  return { action, timing };
}

/** Runs one probe: HTTP 200–399 within the timeout, or a TCP connect, counts as success. */
export function runProbe(action: ProbeAction, timeoutMs: number, processAlive: boolean): Promise<boolean> {
  if (action.kind === 'process') return Promise.resolve(processAlive);
  return new Promise((resolveProbe) => {
    let settled = false;
    const finish = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolveProbe(ok);
    };
    const timer = setTimeout(() => {
      finish(false);
      socketOrRequest.destroy();
    }, timeoutMs);
    const socketOrRequest =
      action.kind === 'tcp'
        ? connect({ host: action.host, port: action.port }, () => {
            finish(true);
            socketOrRequest.destroy();
          })
        : request(action.url, { method: 'GET', agent: false, headers: { 'User-Agent': 'kube-probe/1.32' } }, (res) => {
            res.resume();
            finish((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
          });
    socketOrRequest.on('error', () => finish(false));
    if (action.kind === 'http') (socketOrRequest as ReturnType<typeof request>).end();
  });
}

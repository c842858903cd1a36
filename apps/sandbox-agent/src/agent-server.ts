import { chmodSync, lstatSync, unlinkSync, writeSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AgentConfig } from './config/agent-config.js';
import type { DumpState } from './non-dumpable.js';
import { startEgressRelay } from './egress-relay.js';
import { ExecService } from './exec/exec-service.js';
import { createAgentHttpServer } from './http/agent-http-server.js';
import { agentRoutes } from './http/agent-routes.js';
import { installLifecycle } from './agent-lifecycle.js';
import { createAgentLog, type AgentLog } from './logging/agent-logger.js';
import { ShellEngine } from './shell/shell-engine.js';
import { AssignmentState } from './state/assignment-state.js';

/** Builds and starts the agent: the shell first (it starts while the HTTP server binds), then HTTP. */
export async function startAgent(config: AgentConfig, dumpState: DumpState): Promise<void> {
  const log = createAgentLog(config.logLevel);
  if (dumpState.nonDumpable) log.info({ non_dumpable: true }, 'non-dumpable: commands cannot trace the agent or read its memory or environment');
  else log.warn({ non_dumpable: false, reason: dumpState.reason }, 'the agent is dumpable: its commands can trace it and read its memory and environment (session token included)');
  const engine = new ShellEngine(config, log);
  engine.start();
  const assignment = new AssignmentState(config.authToken);
  const exec = new ExecService(engine, config, log);
  const lifecycle = installLifecycle({ config, engine, exec, log });
  log.info({ assigned: assignment.assigned }, assignment.assigned ? 'starting in assigned state' : 'starting in unassigned state');

  // Before the agent announces itself: no command runs before the sandbox's HTTP_PROXY answers (C-EGR-1).
  if (config.egress) {
    await startEgressRelay(config.egress);
    log.info({ egress_relay: `127.0.0.1:${config.egress.port}` }, 'relaying egress to the gateway');
  }
  const server = createAgentHttpServer({ routes: agentRoutes({ log, engine, exec, assignment, dumpState }), assignment, stopping: () => lifecycle.stopping, log });
  lifecycle.attach(server);

  if (config.listenFd !== undefined) {
    await listen(server, { fd: config.listenFd });
    log.info({ listening: `fd:${config.listenFd}`, ...httpLimits(server) }, 'listening');
    if (config.readyFd !== undefined) announce(config.readyFd, 'unix', log);
    return;
  }
  if (config.socketPath !== undefined) {
    removeStaleSocket(config.socketPath);
    await listen(server, { path: config.socketPath });
    // Only the agent's own user may connect (the server runs as that user).
    chmodSync(config.socketPath, 0o600);
    log.info({ listening: `unix:${config.socketPath}`, ...httpLimits(server) }, 'listening');
    if (config.readyFd !== undefined) announce(config.readyFd, 'unix', log);
    return;
  }
  await listen(server, { port: config.port, host: config.host });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log.info({ listening: `http://${host}:${port}`, ...httpLimits(server) }, 'listening');
  if (config.readyFd !== undefined) announce(config.readyFd, String(port), log);
}

function listen(server: Server, options: { path: string } | { port: number; host: string } | { fd: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * C-AG-14: the server's own time limits, logged so they can be checked. None may end a request that is still
 * running a command (0 = none): a command may run for SANDBOX_MAX_TIMEOUT_SECONDS, whatever that is. The
 * keep-alive timeout only closes idle connections between requests; headers must arrive within Node's default.
 */
function httpLimits(server: Server): Record<string, number> {
  return {
    request_timeout_ms: server.requestTimeout,
    socket_timeout_ms: server.timeout,
    headers_timeout_ms: server.headersTimeout,
    keep_alive_timeout_ms: server.keepAliveTimeout,
  };
}

/** A socket file left by an earlier agent (crash, restart) would make listen fail with EADDRINUSE. */
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // absent: nothing to remove
  }
}

/** SANDBOX_READY_FD: the local backend learns the (possibly ephemeral) port without parsing logs. */
function announce(fd: number, line: string, log: AgentLog): void {
  try {
    writeSync(fd, `${line}\n`);
  } catch (err) {
    log.warn({ fd, code: (err as NodeJS.ErrnoException).code }, 'cannot write the port to SANDBOX_READY_FD');
  }
}

import 'reflect-metadata';
import { chmodSync, lstatSync, unlinkSync, writeSync } from 'node:fs';
import type { Server } from 'node:http';
import { AGENT_MAX_BODY_BYTES } from '@cli-mcp/agent-client';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AgentConfig } from './config/agent-config.js';
import { ExecService } from './exec/exec-service.js';
import { AgentExceptionFilter } from './http/agent-exception.filter.js';
import { installAuthHook, installRawBodyParser } from './http/auth-hook.js';
import { AgentModule } from './agent.module.js';
import { installLifecycle } from './agent-lifecycle.js';
import { createAgentLog, NestLogAdapter } from './logging/agent-logger.js';
import { ShellEngine } from './shell/shell-engine.js';
import { AssignmentState } from './state/assignment-state.js';

/** Builds and starts the agent: shell first (in parallel with Nest's boot), then HTTP. */
export async function startAgent(config: AgentConfig): Promise<void> {
  const log = createAgentLog(config.logLevel);
  const engine = new ShellEngine(config, log);
  engine.start();
  const assignment = new AssignmentState(config.authToken);
  const exec = new ExecService(engine, config, log);
  const lifecycle = installLifecycle({ config, engine, exec, log });
  log.info({ assigned: assignment.assigned }, assignment.assigned ? 'starting in assigned state' : 'starting in unassigned state');

  const adapter = new FastifyAdapter({
    bodyLimit: AGENT_MAX_BODY_BYTES,
    // A command may run for the max timeout (C-AG-14): no request or connection timeout. Idle keep-alive like the
    // Go agent (60 s).
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: 60_000,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AgentModule.with({ log, engine, exec, assignment }),
    adapter,
    { bodyParser: false, logger: new NestLogAdapter(log), abortOnError: false },
  );
  const fastify = app.getHttpAdapter().getInstance();
  installRawBodyParser(fastify, AGENT_MAX_BODY_BYTES);
  installAuthHook(fastify, assignment, () => lifecycle.stopping);
  app.useGlobalFilters(new AgentExceptionFilter(log));
  lifecycle.attach(app);

  if (config.socketPath !== undefined) {
    removeStaleSocket(config.socketPath);
    await app.listen({ path: config.socketPath });
    // Only the agent's own user may connect (the server runs as that user).
    chmodSync(config.socketPath, 0o600);
    log.info({ listening: `unix:${config.socketPath}`, ...httpLimits(fastify.server) }, 'listening');
    if (config.readyFd !== undefined) announce(config.readyFd, 'unix', log);
    return;
  }
  await app.listen(config.port, config.host);
  const address = fastify.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log.info({ listening: `http://${host}:${port}`, ...httpLimits(fastify.server) }, 'listening');
  if (config.readyFd !== undefined) announce(config.readyFd, String(port), log);
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
function announce(fd: number, line: string, log: ReturnType<typeof createAgentLog>): void {
  try {
    writeSync(fd, `${line}\n`);
  } catch (err) {
    log.warn({ fd, code: (err as NodeJS.ErrnoException).code }, 'cannot write the port to SANDBOX_READY_FD');
  }
}

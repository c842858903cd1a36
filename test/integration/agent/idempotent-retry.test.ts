import { createServer, connect, type Server, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentClient } from '@cli-mcp/agent-client';
import { SessionManager, type SandboxBackend, type SandboxHandle } from '@cli-mcp/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, TOKEN, type TestAgent } from './agent-harness.js';

/**
 * A TCP hop between the server's agent client and a real agent that lets requests through and, while `drop` is
 * set, swallows the agent's answer and resets the caller's connection: the answer lost on the wire after the
 * command ran (C-AG-15).
 */
class AnswerDropper {
  drop = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(readonly server: Server) {}

  static async start(agentPort: number): Promise<AnswerDropper> {
    const dropper = new AnswerDropper(createServer());
    dropper.server.on('connection', (client) => {
      const upstream = connect(agentPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        dropper.sockets.add(socket);
        socket.on('close', () => dropper.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk) => {
        if (dropper.drop > 0) {
          dropper.drop--;
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
        client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => dropper.server.listen(0, '127.0.0.1', resolve));
    return dropper;
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A backend whose one sandbox is the test's agent, reached through the dropper. */
function oneSandbox(agentUrl: string): SandboxBackend {
  const sandbox = (sessionId: string): SandboxHandle => ({ sessionId, agentUrl, token: TOKEN, sandboxName: 'it-agent', path: 'create' });
  return {
    kind: 'local',
    acquire: async (sessionId) => sandbox(sessionId),
    find: async (sessionId) => sandbox(sessionId),
    reassign: async () => undefined,
    touch: () => undefined,
    end: async () => undefined,
    checkHealth: async () => undefined,
    shutdown: async () => undefined,
  };
}

describe('exec retry after a lost answer (C-AG-15)', () => {
  let agent: TestAgent;
  let dropper: AnswerDropper;
  let client: AgentClient;
  let manager: SessionManager;
  beforeAll(async () => {
    agent = await startAgent();
    dropper = await AnswerDropper.start(agent.port);
    client = new AgentClient();
    manager = new SessionManager({ backend: oneSandbox(dropper.url), agent: client });
  });
  afterAll(async () => {
    client?.close();
    await dropper?.stop();
    await stopAllAgents();
  });

  it('the answer of an exec is dropped on the wire: the retry returns the first result and the command ran once', async () => {
    const command = 'echo run >> runs.txt; echo "runs=$(wc -l < runs.txt)"';
    dropper.drop = 1;
    const result = await manager.execute('s-retry', { command, timeout: 30 }, new AbortController().signal);
    expect(dropper.drop).toBe(0);
    expect(result.response).toMatchObject({ stdout: 'runs=1', exit_code: 0 });
    expect(readFileSync(join(agent.workdir, 'runs.txt'), 'utf8')).toBe('run\n');
    // A new call is a new key: it runs again.
    expect((await manager.execute('s-retry', { command, timeout: 30 }, new AbortController().signal)).response.stdout).toBe('runs=2');
  });

  it('every answer lost: a transport error naming the call, and the command still ran only once', async () => {
    const command = 'echo twice >> twice.txt';
    dropper.drop = 10;
    await expect(manager.execute('s-retry', { command, timeout: 30 }, new AbortController().signal)).rejects.toMatchObject({
      message: expect.stringMatching(/^agent request: execute http:\/\/127\.0\.0\.1:\d+\/exec: /),
    });
    // Asked at least twice (a reused keep-alive socket adds the client's own stale-socket retry), run once.
    expect(dropper.drop).toBeLessThanOrEqual(8);
    expect(readFileSync(join(agent.workdir, 'twice.txt'), 'utf8')).toBe('twice\n');
    dropper.drop = 0;
  });
});

import { Writable } from 'node:stream';
import { createRootLogger } from '@cli-mcp/common';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installRequestLogging } from './request-logging.js';

const SECRET = 'tok-9f8e7d6c5b4a';

describe(installRequestLogging.name, () => {
  // Issue 11: the per-request record skips pino's redaction walk, so its fields must never carry what a request sent.
  it('logs method, path, status and duration, and no header, query or body value, with the production root logger', async () => {
    const chunks: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => void (chunks.push(chunk.toString()), done()) });
    const logger = createRootLogger({ level: 'info', base: { server: 'cli-mcp-server' }, destination });
    const fastify = Fastify();
    installRequestLogging(fastify, logger);
    fastify.post('/mcp', async () => ({ ok: true }));
    const response = await fastify.inject({
      method: 'POST', url: `/mcp?token=${SECRET}`, payload: { token: SECRET },
      headers: { authorization: `Bearer ${SECRET}`, 'x-session-id': SECRET, cookie: `t=${SECRET}` },
    });
    expect(response.statusCode).toBe(200);
    await fastify.close();
    const records = chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const record = records.find((line) => line.msg === 'http request');
    expect(record).toMatchObject({ component: 'http', method: 'POST', path: '/mcp', status: 200, duration_ms: expect.any(Number) });
    expect(Object.keys(record!).sort()).toEqual(['component', 'duration_ms', 'level', 'method', 'msg', 'path', 'server', 'status', 'time']);
    expect(chunks.join('')).not.toContain(SECRET);
  });

  it('leaves redaction on for every other record of the same root logger', () => {
    const chunks: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => void (chunks.push(chunk.toString()), done()) });
    const logger = createRootLogger({ level: 'info', base: {}, destination });
    installRequestLogging(Fastify(), logger);
    logger.child({ component: 'http' }).info({ headers: { authorization: SECRET } }, 'other');
    expect(chunks.join('')).not.toContain(SECRET);
    expect(chunks.join('')).toContain('[redacted]');
  });
});

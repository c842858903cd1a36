import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminServer, metricsRoute, type AdminServer } from './admin-server.js';

let admin: AdminServer | undefined;

afterEach(async () => {
  if (admin?.server.listening) await new Promise((resolve) => admin!.server.close(resolve));
  admin = undefined;
});

async function start(routes: Parameters<typeof createAdminServer>[0]): Promise<number> {
  admin = createAdminServer(routes);
  await new Promise<void>((resolve) => admin!.server.listen(0, '127.0.0.1', resolve));
  return (admin.server.address() as AddressInfo).port;
}

/** A raw request: the target is sent as written, never normalised by a client. */
function raw(port: number, method: string, target: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createAdminServer', () => {
  const routes = {
    '/live': () => ({ status: 200, json: { status: 'alive' } }),
    '/boom': () => Promise.reject(new Error('registry failed')),
    '/metrics': metricsRoute({ contentType: 'text/plain; version=0.0.4', metrics: () => Promise.resolve('up 1\n') }),
  };

  it('answers a route with JSON, ignoring the query, and a text route with its own content type', async () => {
    const port = await start(routes);
    expect(await raw(port, 'GET', '/live?probe=1')).toMatchObject({ status: 200, body: '{"status":"alive"}', headers: { 'content-type': 'application/json' } });
    expect(await raw(port, 'GET', '/metrics')).toMatchObject({ status: 200, body: 'up 1\n', headers: { 'content-type': 'text/plain; version=0.0.4' } });
    expect(await raw(port, 'HEAD', '/live')).toMatchObject({ status: 200, body: '' });
  });

  it.each(['/live/', '//live', '/LIVE', '/live%00', '/__proto__', '/constructor', '/toString', '*', 'http://x/live'])('answers 404 with the paths for %s (exact match only)', async (target) => {
    const port = await start(routes);
    const answer = await raw(port, 'GET', target);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ error: 'not found', paths: ['/live', '/boom', '/metrics'] });
  });

  it('answers 405 to any method but GET and HEAD', async () => {
    const port = await start(routes);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) expect((await raw(port, method, '/live')).status).toBe(405);
  });

  it('answers 500 naming the error when a route fails, and keeps serving', async () => {
    const port = await start(routes);
    expect(await raw(port, 'GET', '/boom')).toMatchObject({ status: 500, body: '{"error":"registry failed"}' });
    expect((await raw(port, 'GET', '/live')).status).toBe(200);
  });

  it('answers 503 and closes the connection once shutdown began', async () => {
    const port = await start(routes);
    admin!.beginShutdown();
    expect(await raw(port, 'GET', '/live')).toMatchObject({ status: 503, body: '{"status":"shutting down"}', headers: { connection: 'close' } });
  });
});

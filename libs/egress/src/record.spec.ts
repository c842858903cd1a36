import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressError } from './errors.js';
import { refuseSocket } from './record.js';

describe(refuseSocket.name, () => {
  let dir: string;
  let server: Server;
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads what a client still sends after the refusal, so its answer is not reset away (lingering close)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'refuse-'));
    const path = join(dir, 'gateway.sock');
    // Refused on accept, before a byte is read: as the gateway refuses a connection that belongs to no session.
    server = createServer((socket) => refuseSocket(socket, new EgressError('not_allowed', 'this connection belongs to no session')));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const outcome = await new Promise<{ data: string; error?: string }>((resolve) => {
      const client = connect({ path });
      let data = '';
      let wrote = false;
      client.on('data', (chunk: Buffer) => {
        data += chunk.toString('utf8');
        // The request goes out only once the answer has begun to arrive: a server that closed right after writing
        // would have unread bytes in its queue, and this client would read ECONNRESET or write into EPIPE.
        if (!wrote) client.write('CONNECT other.example:443 HTTP/1.1\r\nHost: other.example:443\r\n\r\n'.repeat(64));
        wrote = true;
      });
      client.once('error', (error: NodeJS.ErrnoException) => resolve({ data, error: error.code }));
      client.once('close', () => resolve({ data }));
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.data).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*\r\n\r\n\{"error":"not_allowed","message":"this connection belongs to no session"\}$/);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, TOKEN, waitFor, type TestAgent } from './agent-harness.js';

const auth = { authorization: `Bearer ${TOKEN}` };

// POST /output: the running command's latest output, for the server's progress notifications (C-MCP-10).
describe('sandbox-agent: POST /output', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  const peek = async (body: unknown = {}) => (await agent.call('POST', '/output', body, auth)).json;

  it('shows the latest output of each stream of the running command, then nothing once it is done', async () => {
    const command = 'for i in $(seq 1 3000); do echo "line $i"; done; echo "warn: é" >&2; ' +
      'while [ ! -e go.flag ]; do sleep 0.02; done; echo after';
    const result = agent.exec(command, { request_id: 'peek-1', timeout: 60 });
    const seen = await waitFor(async () => {
      const answer = await peek({ request_id: 'peek-1' });
      return answer.stderr ? answer : undefined;
    }, 10_000, 'the output to show up');
    const printed = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}\n`).join('');
    expect(seen).toMatchObject({ running: true, stdout_bytes: printed.length, stderr: 'warn: é\n', stderr_bytes: Buffer.byteLength('warn: é\n') });
    // Only the latest 4 KiB of stdout.
    expect(Buffer.byteLength(seen.stdout)).toBeLessThanOrEqual(4096);
    expect(seen.stdout.endsWith('line 2999\nline 3000\n')).toBe(true);
    expect(await peek({ request_id: 'another-command' })).toEqual({ running: false });
    writeFileSync(join(agent.workdir, 'go.flag'), '');
    expect((await result).stdout.endsWith('line 3000\nafter')).toBe(true);
    expect(await peek()).toEqual({ running: false });
  });

  it('needs the bearer token like /exec and /cancel', async () => {
    const answer = await agent.call('POST', '/output', {}, { authorization: 'Bearer wrong' });
    expect(answer.status).toBe(401);
  });
});

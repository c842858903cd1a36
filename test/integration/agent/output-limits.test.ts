import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rssKiB, startAgent, stopAllAgents, waitFor } from './agent-harness.js';

const MIB = 1024 * 1024;

// C-MCP-6: bounded memory per stream, exact counts, full output spilled to a bounded set of files.
describe('sandbox-agent: output limits and spill files', () => {
  afterAll(stopAllAgents);

  it('200 MB of output: exact byte count, head and tail, capped spill file, bounded agent memory', async () => {
    const agent = await startAgent({ env: { SANDBOX_SPILL_MAX_FILE_BYTES: String(8 * MIB) } });
    const r = await agent.exec("head -c 200000000 /dev/zero | tr '\\0' a; printf '\\nEND\\n'", { timeout: 120 });
    expect(r.exit_code).toBe(0);
    expect(r.stdout_bytes).toBe(200_000_005);
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe('a'.repeat(128 * 1024));
    expect(r.stdout_tail).toBe(`${'a'.repeat(128 * 1024 - 5)}\nEND`);
    expect(r.stdout_omitted_bytes).toBe(200_000_005 - 256 * 1024);
    expect(r.stdout_omitted_lines).toBe(0);
    expect(r.stdout_file).toBe(join(agent.outputDir, 'out', '1.stdout'));
    const size = statSync(r.stdout_file!).size;
    expect(size).toBeGreaterThanOrEqual(8 * MIB);
    expect(size).toBeLessThan(8 * MIB + 200);
    expect(statSync(join(agent.outputDir, 'out')).mode & 0o777).toBe(0o700);
    // Peak resident memory of the agent stayed far below the output size.
    expect(rssKiB(agent.pid, 'VmHWM')).toBeLessThan(200 * 1024);
  }, 180_000);

  it('counts omitted lines exactly and spills every stream that passes the threshold', async () => {
    const agent = await startAgent({ env: { SANDBOX_OUTPUT_BUFFER_BYTES: '4096', SANDBOX_SPILL_THRESHOLD_BYTES: '1024' } });
    const r = await agent.exec('seq 1 10000; seq 1 3000 >&2');
    const whole = Array.from({ length: 10000 }, (_, i) => `${i + 1}\n`).join('');
    expect(r.stdout).toBe(whole.slice(0, 2048));
    expect(r.stdout_tail).toBe(whole.slice(whole.length - 2048).replace(/\n$/, ''));
    expect(r.stdout_omitted_bytes).toBe(whole.length - 4096);
    expect(r.stdout_omitted_lines).toBe(whole.slice(2048, whole.length - 2048).split('\n').length - 1);
    expect(r.stderr_file).toBe(join(agent.outputDir, 'out', '1.stderr'));
    expect((await agent.exec(`wc -l < ${r.stdout_file}; tail -n 1 ${r.stderr_file}`)).stdout).toBe('10000\n3000');
    // Small output is not spilled.
    expect((await agent.exec('echo small')).stdout_file).toBeUndefined();
  });

  it('keeps only the newest N commands of spill files', async () => {
    const agent = await startAgent({ env: { SANDBOX_SPILL_MAX_COMMANDS: '2', SANDBOX_SPILL_THRESHOLD_BYTES: '100' } });
    for (let i = 0; i < 4; i++) await agent.exec(`head -c 500 /dev/zero | tr '\\0' ${i}`);
    const dir = join(agent.outputDir, 'out');
    await waitFor(() => readdirSync(dir).length === 2, 10_000, 'retention');
    expect(readdirSync(dir).sort()).toEqual(['3.stdout', '4.stdout']);
  });

  it('SANDBOX_OUTPUT_DIR=off disables spilling', async () => {
    const agent = await startAgent({ env: { SANDBOX_OUTPUT_DIR: 'off' } });
    const r = await agent.exec('seq 1 100000');
    expect(r.truncated).toBe(true);
    expect(r.stdout_file).toBeUndefined();
    expect(readdirSync(agent.workdir)).toEqual([]);
  });
});

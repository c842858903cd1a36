import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createAgentLog } from './agent-logger.js';

function capture(level: Parameters<typeof createAgentLog>[0]) {
  const lines: string[] = [];
  return { log: createAgentLog(level, (line) => void lines.push(line)), records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>), lines };
}

describe(createAgentLog.name, () => {
  it('writes one pino-shaped JSON line per record: level number, time, pid, hostname, name, fields, msg', () => {
    const { log, records, lines } = capture('info');
    log.info({ listening: 'http://127.0.0.1:8090' }, 'listening');
    log.warn('parent process exited: exiting');
    expect(lines.every((line) => line.endsWith('}\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const [first, second] = records();
    expect(first).toEqual({ level: 30, time: expect.any(Number), pid: process.pid, hostname: hostname(), name: 'sandbox-agent', listening: 'http://127.0.0.1:8090', msg: 'listening' });
    expect(Math.abs((first?.time as number) - Date.now())).toBeLessThan(60_000);
    expect(second).toMatchObject({ level: 40, msg: 'parent process exited: exiting' });
  });

  it('drops records below the level; silent drops all', () => {
    const warn = capture('warn');
    warn.log.info('no');
    warn.log.debug({ a: 1 }, 'no');
    warn.log.error({ code: 'EPIPE' }, 'yes');
    warn.log.fatal('yes too');
    expect(warn.records().map((r) => [r.level, r.msg])).toEqual([[50, 'yes'], [60, 'yes too']]);
    const trace = capture('trace');
    trace.log.trace({ n: 1 }, 't');
    expect(trace.records()).toMatchObject([{ level: 10, n: 1, msg: 't' }]);
    const silent = capture('silent');
    silent.log.fatal('nothing');
    expect(silent.lines).toEqual([]);
  });

  it('escapes what fields carry and writes fields without a message', () => {
    const { log, records } = capture('debug');
    log.debug({ path: 'a"b\nc', nested: { ok: true } });
    expect(records()).toEqual([expect.objectContaining({ level: 20, path: 'a"b\nc', nested: { ok: true } })]);
    expect(records()[0]).not.toHaveProperty('msg');
  });
});

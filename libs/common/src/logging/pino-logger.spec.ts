import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRootLogger, PinoLoggerService } from './pino-logger.js';

function capture() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const lines = (): Array<Record<string, unknown>> =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { destination, lines };
}

describe(createRootLogger.name, () => {
  it('writes JSON lines with level names, ISO time and the base fields', () => {
    const { destination, lines } = capture();
    createRootLogger({ level: 'info', base: { server: 'cli-mcp-server' }, destination }).info({ session_id: 's' }, 'hello');
    expect(lines()[0]).toMatchObject({ level: 'info', server: 'cli-mcp-server', session_id: 's', msg: 'hello' });
    expect(String(lines()[0]?.time)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('redacts tokens and authorization headers wherever they sit (C-AUTH-2)', () => {
    const { destination, lines } = capture();
    const logger = createRootLogger({ level: 'info', base: {}, destination });
    logger.info({ token: 'tok-1', headers: { authorization: 'Bearer tok-2' }, req: { headers: { authorization: 'Bearer tok-3' } } }, 'x');
    const text = JSON.stringify(lines());
    expect(text).not.toMatch(/tok-[123]/);
    expect(lines()[0]).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]' } });
  });

  it('respects the level', () => {
    const { destination, lines } = capture();
    const logger = createRootLogger({ level: 'warn', base: {}, destination });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines().map((line) => line.msg)).toEqual(['shown']);
  });
});

describe(PinoLoggerService.name, () => {
  it('maps Nest calls: context as the last string, stack for errors, objects merged', () => {
    const { destination, lines } = capture();
    const sut = new PinoLoggerService(createRootLogger({ level: 'trace', base: {}, destination }));
    sut.log('Mapped {/mcp, POST} route', 'RouterExplorer');
    sut.error('boom', 'Error: boom\n    at x', 'ExceptionsHandler');
    sut.warn({ reason: 'r' }, 'Terminus');
    sut.verbose('v');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'info', context: 'RouterExplorer', msg: 'Mapped {/mcp, POST} route' }),
      expect.objectContaining({ level: 'error', context: 'ExceptionsHandler', stack: 'Error: boom\n    at x', msg: 'boom' }),
      expect.objectContaining({ level: 'warn', context: 'Terminus', reason: 'r' }),
      expect.objectContaining({ level: 'trace', msg: 'v' }),
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { FlagReader } from '../flags/flag-reader.js';
import { readRawFlags } from '../flags/read-raw-flags.js';
import { DurationRange, Flag, FlagGroup, IntegerRange, OneOf, Satisfies, flagOfField, flagTable, readSettings } from './settings.js';

const PREFIX = 'APP_';

@FlagGroup('Shared')
class SharedSettings {
  @Flag('timeout', { type: 'duration', default: '60s', description: 'Timeout.' })
  @DurationRange({ minMs: 1000, wholeSeconds: true })
  @Satisfies('withinMax', (ms: number, s: SharedSettings) => s.maxTimeoutMs === undefined || ms <= s.maxTimeoutMs, '$property must not exceed maxTimeoutMs')
  timeoutMs!: number;

  @Flag('max-timeout', { type: 'duration', default: '300s', description: 'Max.' })
  @DurationRange({ maxMs: 3_600_000 })
  maxTimeoutMs!: number;
}

class AppSettings extends SharedSettings {
  @Flag('mode', { group: 'App', default: 'fast', description: 'Mode.' }) @OneOf(['fast', 'safe']) mode!: string;
  @Flag('workers', { group: 'App', type: 'integer', default: '4', description: 'Workers.' }) @IntegerRange(1, 64) workers!: number;
  @Flag('pool', { group: 'App', type: 'integer', default: '0', description: 'Pool.' })
  @IntegerRange(0)
  @Satisfies('fitsWorkers', (pool: number, s: AppSettings) => s.workers === undefined || pool <= s.workers, '$property must not exceed workers')
  pool!: number;
  @Flag('hosts', { group: 'App', type: 'list', description: 'Hosts.' }) hosts!: string[];
  @Flag('verbose', { group: 'App', type: 'boolean', description: 'Verbose.' }) verbose!: boolean;
}

function read(argv: string[], env: Record<string, string> = {}): { settings: AppSettings; problems: readonly string[] } {
  const specs = flagTable(AppSettings);
  const flags = new FlagReader(specs, readRawFlags(specs, argv, env, PREFIX), PREFIX);
  const settings = readSettings(AppSettings, flags);
  return { settings, problems: flags.problems };
}

describe(flagTable.name, () => {
  it('derives the flag table from the declarations: base classes first, each in order, the class group as default', () => {
    expect(flagTable(AppSettings).map((s) => [s.name, s.group, s.kind])).toEqual([
      ['timeout', 'Shared', 'string'], ['max-timeout', 'Shared', 'string'], ['mode', 'App', 'string'], ['workers', 'App', 'string'],
      ['pool', 'App', 'string'], ['hosts', 'App', 'string'], ['verbose', 'App', 'boolean'],
    ]);
    expect(flagTable(AppSettings).find((s) => s.name === 'timeout')).toEqual({ name: 'timeout', kind: 'string', default: '60s', description: 'Timeout.', group: 'Shared' });
    // A class listed twice (or a base listed with its subclass) adds each flag once.
    expect(flagTable(AppSettings, SharedSettings).map((s) => s.name)).toHaveLength(7);
  });
});

describe(readSettings.name, () => {
  it('reads every field through its flag, defaults included, as its type', () => {
    const { settings, problems } = read(['--hosts', 'a, b', '--verbose'], { APP_WORKERS: '8' });
    expect(problems).toEqual([]);
    expect({ ...settings }).toEqual({ mode: 'fast', workers: 8, pool: 0, timeoutMs: 60_000, maxTimeoutMs: 300_000, hosts: ['a', 'b'], verbose: true });
  });

  it('reports every violation at once with class-validator\'s words, each naming its flag and env var, the value and its source', () => {
    const { problems } = read(['--mode', 'slow', '--workers', '0', '--timeout', '1.5s', '--max-timeout', '2h'], { APP_POOL: '-1' });
    expect(problems).toEqual([
      '--timeout (env APP_TIMEOUT): must be a whole number of seconds; got "1.5s"',
      '--max-timeout (env APP_MAX_TIMEOUT): must be at most 1h; got "2h"',
      '--mode (env APP_MODE): must be one of the following values: fast, safe; got "slow"',
      '--workers (env APP_WORKERS): must not be less than 1; got "0"',
      '--pool (env APP_POOL): must not be less than 0; got "-1" [from APP_POOL]',
    ]);
  });

  it('words cross-field rules with both flags, and skips fields whose text did not parse', () => {
    expect(read(['--pool', '9', '--workers', '2']).problems).toEqual([
      '--pool (env APP_POOL): must not exceed --workers (env APP_WORKERS); got "9"',
    ]);
    expect(read(['--timeout', '10m', '--max-timeout', '5m']).problems).toEqual([
      '--timeout (env APP_TIMEOUT): must not exceed --max-timeout (env APP_MAX_TIMEOUT); got "10m"',
    ]);
    expect(read(['--workers', 'many', '--timeout', 'soon']).problems).toEqual([
      '--timeout (env APP_TIMEOUT): invalid duration "soon"; use Go syntax such as 90s, 5m or 1h30m',
      '--workers (env APP_WORKERS): must be a whole number; got "many"',
    ]);
  });

  it('names the flag behind a field, inherited ones included', () => {
    expect(flagOfField(AppSettings, 'maxTimeoutMs')).toBe('max-timeout');
    expect(() => flagOfField(AppSettings, 'nope' as keyof AppSettings & string)).toThrow('AppSettings.nope is not bound to a flag');
  });
});

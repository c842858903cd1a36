import { describe, expect, it } from 'vitest';
import { FlagReader } from '../flags/flag-reader.js';
import type { FlagSpec } from '../flags/flag-spec.js';
import { readRawFlags } from '../flags/read-raw-flags.js';
import { DurationRange, FromFlag, IntegerRange, OneOf, Satisfies, flagOfField, readSettings } from './settings.js';

const PREFIX = 'APP_';
const SPECS: FlagSpec[] = [
  { name: 'mode', description: 'Mode.', default: 'fast' },
  { name: 'workers', description: 'Workers.', default: '4' },
  { name: 'pool', description: 'Pool.', default: '0' },
  { name: 'timeout', description: 'Timeout.', default: '60s' },
  { name: 'max-timeout', description: 'Max.', default: '300s' },
  { name: 'hosts', description: 'Hosts.' },
  { name: 'verbose', kind: 'boolean', description: 'Verbose.' },
];

class AppSettings {
  @FromFlag('mode') @OneOf(['fast', 'safe']) mode!: string;
  @FromFlag('workers', 'integer') @IntegerRange(1, 64) workers!: number;
  @FromFlag('pool', 'integer')
  @IntegerRange(0)
  @Satisfies((pool: number, s: AppSettings) => s.workers === undefined || pool <= s.workers, '{self} ({value}) must not exceed {flagOf:workers} ({valueOf:workers})')
  pool!: number;
  @FromFlag('timeout', 'duration')
  @DurationRange({ minMs: 1000, wholeSeconds: true })
  @Satisfies((ms: number, s: AppSettings) => s.maxTimeoutMs === undefined || ms <= s.maxTimeoutMs, '{self} must not exceed {flagOf:maxTimeoutMs}')
  timeoutMs!: number;
  @FromFlag('max-timeout', 'duration') @DurationRange({ maxMs: 3_600_000 }) maxTimeoutMs!: number;
  @FromFlag('hosts', 'list') hosts!: string[];
  @FromFlag('verbose', 'boolean') verbose!: boolean;
}

function read(argv: string[], env: Record<string, string> = {}): { settings: AppSettings; problems: readonly string[] } {
  const flags = new FlagReader(SPECS, readRawFlags(SPECS, argv, env, PREFIX), PREFIX);
  const settings = readSettings(AppSettings, flags);
  return { settings, problems: flags.problems };
}

describe(readSettings.name, () => {
  it('reads every field through its flag, defaults included, as its kind', () => {
    const { settings, problems } = read(['--hosts', 'a, b', '--verbose'], { APP_WORKERS: '8' });
    expect(problems).toEqual([]);
    expect({ ...settings }).toEqual({ mode: 'fast', workers: 8, pool: 0, timeoutMs: 60_000, maxTimeoutMs: 300_000, hosts: ['a', 'b'], verbose: true });
  });

  it('reports every violation at once, each naming its flag and env var, and where a value came from', () => {
    const { problems } = read(['--mode', 'slow', '--workers', '0', '--timeout', '1.5s', '--max-timeout', '2h'], { APP_POOL: '-1' });
    expect(problems).toEqual([
      '--mode (env APP_MODE): must be one of fast, safe; got "slow"',
      '--workers (env APP_WORKERS): must be between 1 and 64; got 0',
      '--pool (env APP_POOL): must be at least 0; got -1 [from APP_POOL]',
      '--timeout (env APP_TIMEOUT): must be a whole number of seconds; got "1.5s"',
      '--max-timeout (env APP_MAX_TIMEOUT): must be at most 1h; got "2h"',
    ]);
  });

  it('words cross-field rules with both flags, and skips fields whose text did not parse', () => {
    expect(read(['--pool', '9', '--workers', '2']).problems).toEqual([
      '--pool (env APP_POOL) (9) must not exceed --workers (env APP_WORKERS) (2)',
    ]);
    expect(read(['--timeout', '10m', '--max-timeout', '5m']).problems).toEqual([
      '--timeout (env APP_TIMEOUT) must not exceed --max-timeout (env APP_MAX_TIMEOUT)',
    ]);
    expect(read(['--workers', 'many', '--timeout', 'soon']).problems).toEqual([
      '--workers (env APP_WORKERS): must be a whole number; got "many"',
      '--timeout (env APP_TIMEOUT): invalid duration "soon"; use Go syntax such as 90s, 5m or 1h30m',
    ]);
  });

  it('names the flag behind a field', () => {
    expect(flagOfField(AppSettings, 'maxTimeoutMs')).toBe('max-timeout');
    expect(() => flagOfField(AppSettings, 'nope' as keyof AppSettings & string)).toThrow('AppSettings.nope is not bound to a flag');
  });
});

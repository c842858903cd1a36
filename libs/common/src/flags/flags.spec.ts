import { describe, expect, it } from 'vitest';
import { FlagReader } from './flag-reader.js';
import { envVarName, type FlagSpec } from './flag-spec.js';
import { readRawFlags } from './read-raw-flags.js';
import { renderHelp } from './render-help.js';

const PREFIX = 'APP_';
const SPECS: FlagSpec[] = [
  { name: 'transport', short: 't', valueName: 'stdio|http', description: 'Transport.', default: 'stdio', group: 'Server' },
  { name: 'stateless', kind: 'boolean', description: 'Compatibility.' },
  { name: 'timeout', valueName: 'duration', description: 'Timeout.', default: '60s' },
  { name: 'count', description: 'Count.', default: '3' },
  { name: 'hosts', description: 'Hosts.' },
  { name: 'bind', description: 'Binds.', repeatable: true },
  { name: 'grace', description: 'Grace.', defaultText: 'timeout + 10s' },
  { name: 'help', kind: 'boolean', short: 'h', description: 'Help.', noEnv: true },
  { name: 'watch-namespace', description: 'Namespace.', envAlias: 'WATCH_NAMESPACE' },
];

const read = (argv: string[], env: Record<string, string> = {}): FlagReader =>
  new FlagReader(SPECS, readRawFlags(SPECS, argv, env, PREFIX), PREFIX);

describe(readRawFlags.name, () => {
  it('uses defaults when nothing is set', () => {
    const flags = read([]);
    expect(flags.string('transport')).toBe('stdio');
    expect(flags.duration('timeout')).toBe(60_000);
    expect(flags.isSet('transport')).toBe(false);
    expect(flags.source('transport')).toBe('default');
    expect(flags.problems).toEqual([]);
  });

  it('reads a flag\'s well-known env alias after its prefixed name, and names the variable a bad value came from', () => {
    expect(read([], { WATCH_NAMESPACE: 'team-a' }).string('watch-namespace')).toBe('team-a');
    expect(read([], { WATCH_NAMESPACE: 'team-a', APP_WATCH_NAMESPACE: 'team-b' }).string('watch-namespace')).toBe('team-b');
    expect(read(['--watch-namespace', 'team-c'], { WATCH_NAMESPACE: 'team-a' }).string('watch-namespace')).toBe('team-c');
    const flags = read([], { WATCH_NAMESPACE: 'Bad' });
    flags.invalid('watch-namespace', 'must be a DNS-1123 label');
    expect(flags.problems).toEqual(['--watch-namespace (env APP_WATCH_NAMESPACE or WATCH_NAMESPACE): must be a DNS-1123 label [from WATCH_NAMESPACE]']);
    expect(renderHelp(SPECS, { title: 't', usage: 'u', envPrefix: PREFIX })).toContain('(env: APP_WATCH_NAMESPACE or WATCH_NAMESPACE)');
  });

  it('reads env vars named PREFIX_FLAG_NAME, and the command line wins', () => {
    expect(envVarName(PREFIX, 'max-output-chars')).toBe('APP_MAX_OUTPUT_CHARS');
    const fromEnv = read([], { APP_TRANSPORT: 'http', APP_STATELESS: 'true' });
    expect(fromEnv.string('transport')).toBe('http');
    expect(fromEnv.source('transport')).toBe('env');
    expect(fromEnv.boolean('stateless')).toBe(true);
    const flagWins = read(['--transport=stdio', '--stateless=false'], { APP_TRANSPORT: 'http', APP_STATELESS: 'true' });
    expect(flagWins.string('transport')).toBe('stdio');
    expect(flagWins.source('transport')).toBe('flag');
    expect(flagWins.boolean('stateless')).toBe(false);
  });

  it('accepts short aliases, --flag value and --flag=value', () => {
    expect(read(['-t', 'http']).string('transport')).toBe('http');
    expect(read(['--transport', 'http']).string('transport')).toBe('http');
    expect(read(['--transport=http']).string('transport')).toBe('http');
  });

  it('treats empty values as unset', () => {
    expect(read(['--transport='], { APP_TRANSPORT: 'http' }).isSet('transport')).toBe(false);
    expect(read([], { APP_TRANSPORT: '' }).isSet('transport')).toBe(false);
  });

  it('reports every syntax problem at once', () => {
    const flags = read(['--bogus', 'stray', '--transport', '--stateless', '--stateless=maybe', '-x'], { APP_STATELESS: 'sure' });
    expect(flags.problems).toEqual([
      '--stateless (env APP_STATELESS): expected true or false, got "sure" [from APP_STATELESS]',
      'unknown flag --bogus (see --help)',
      'unexpected argument "stray" (flags start with --)',
      '--transport (env APP_TRANSPORT): --transport needs a value',
      '--stateless (env APP_STATELESS): expected true or false, got "maybe"',
      'unknown flag -x (see --help)',
    ]);
  });

  it('never reads env for noEnv flags', () => {
    expect(read([], { APP_HELP: 'true' }).boolean('help')).toBe(false);
    expect(read(['-h']).boolean('help')).toBe(true);
  });
});

describe(FlagReader.name, () => {
  it('names the flag, the env var and the env source in every value problem; malformed values read as unset', () => {
    const flags = read(['--count', 'x', '--grace', '1.5'], { APP_TIMEOUT: 'soon' });
    expect(flags.duration('timeout')).toBeUndefined();
    expect(flags.integer('count')).toBeUndefined();
    expect(flags.integer('grace')).toBeUndefined();
    expect(flags.problems).toEqual([
      '--timeout (env APP_TIMEOUT): invalid duration "soon"; use Go syntax such as 90s, 5m or 1h30m [from APP_TIMEOUT]',
      '--count (env APP_COUNT): must be a whole number; got "x"',
      '--grace (env APP_GRACE): must be a whole number; got "1.5"',
    ]);
    expect(read(['--count', '-7']).integer('count')).toBe(-7);
  });

  it('splits comma lists', () => {
    expect(read(['--hosts', ' a.example, ,b.example ']).list('hosts')).toEqual(['a.example', 'b.example']);
    expect(read([]).list('hosts')).toEqual([]);
  });

  it('adds up a repeatable flag given several times; the command line still replaces the env list', () => {
    expect(read(['--bind', '/a', '--bind=/b,/c']).list('bind')).toEqual(['/a', '/b', '/c']);
    expect(read(['--hosts', 'a', '--hosts', 'b']).list('hosts')).toEqual(['b']);
    expect(read(['--bind', '/x'], { APP_BIND: '/env1,/env2' }).list('bind')).toEqual(['/x']);
    expect(read([], { APP_BIND: '/env1,/env2' }).list('bind')).toEqual(['/env1', '/env2']);
  });

  it('throws on undeclared flags (a programming error)', () => {
    expect(() => read([]).string('nope')).toThrow('flag --nope is not declared');
  });
});

describe(renderHelp.name, () => {
  it('lists every flag with value, default and env var, grouped', () => {
    const text = renderHelp(SPECS, { title: 'app 1.0', usage: 'app [flags]', envPrefix: PREFIX, footer: 'Flags win over env.' });
    expect(text).toContain('Server:\n  -t, --transport <stdio|http>\n      Transport.\n      (default: stdio; env: APP_TRANSPORT)');
    expect(text).toContain('  --stateless\n      Compatibility.\n      (env: APP_STATELESS)');
    expect(text).toContain('(default: timeout + 10s; env: APP_GRACE)');
    expect(text).toContain('  -h, --help\n      Help.\n');
    expect(text).not.toContain('APP_HELP');
    expect(text.endsWith('Flags win over env.\n')).toBe(true);
  });
});

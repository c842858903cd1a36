import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INSTANCE_NAME_MAX_LENGTH, isDnsLabel } from './identifiers.js';
import { authSecretName, controllerLeaseName, isWarmPodName, sessionPodName, warmPodName } from './names.js';
import { countingRandom } from './testing/fixtures.js';

const hash8 = (instance: string, session: string): string =>
  createHash('sha256').update(`${instance}/${session}`).digest('hex').slice(0, 8);
const lastSegment = (name: string): string => name.slice(name.lastIndexOf('-') + 1);
/** The longest instance whose derived names still show part of the session (the readability bound). */
const LONG_INSTANCE = 'i'.repeat(32);
const LONGEST_INSTANCE = 'i'.repeat(INSTANCE_NAME_MAX_LENGTH);
const LONG_SESSION = 's'.repeat(63);

describe(sessionPodName.name, () => {
  it('is readable and ends with the hash of instance/session', () => {
    expect(sessionPodName('oc', 'inv-abc-123')).toBe(`cli-mcp-oc-inv-abc-123-${hash8('oc', 'inv-abc-123')}`);
  });

  it('is deterministic', () => {
    expect(sessionPodName('oc', 'x')).toBe(sessionPodName('oc', 'x'));
  });

  it('does not collide when the hyphen moves between instance and session (Go §18.15)', () => {
    expect(sessionPodName('a-b', 'c')).not.toBe(sessionPodName('a', 'b-c'));
    expect(authSecretName('a-b', 'c')).not.toBe(authSecretName('a', 'b-c'));
  });

  it('differs per instance for the same session', () => {
    expect(sessionPodName('aws', 'inv-1')).not.toBe(sessionPodName('oc', 'inv-1'));
  });

  it('truncates the readable part of long ids and stays a valid 63-character label', () => {
    const name = sessionPodName(LONG_INSTANCE, LONG_SESSION);
    expect(name).toHaveLength(63);
    expect(isDnsLabel(name)).toBe(true);
    expect(name.startsWith(`cli-mcp-${LONG_INSTANCE}-sss`)).toBe(true);
    expect(lastSegment(name)).toBe(hash8(LONG_INSTANCE, LONG_SESSION));
  });

  it('stays a valid 63-character label, distinct per session, for the longest instance (a 44-character CR name)', () => {
    const a = sessionPodName(LONGEST_INSTANCE, LONG_SESSION);
    const b = authSecretName(LONGEST_INSTANCE, `${LONG_SESSION.slice(1)}t`);
    for (const name of [a, b, warmPodName(LONGEST_INSTANCE, countingRandom())]) {
      expect(name.length).toBeLessThanOrEqual(63);
      expect(isDnsLabel(name)).toBe(true);
    }
    expect(a).not.toBe(sessionPodName(LONGEST_INSTANCE, `${LONG_SESSION.slice(1)}t`));
  });

  it('keeps ids that differ only after the truncation point apart', () => {
    const a = `${'s'.repeat(40)}-a`;
    const b = `${'s'.repeat(40)}-b`;
    expect(sessionPodName(LONG_INSTANCE, a)).not.toBe(sessionPodName(LONG_INSTANCE, b));
    expect(authSecretName(LONG_INSTANCE, a)).not.toBe(authSecretName(LONG_INSTANCE, b));
  });

  it('never leaves a hyphen before the hash separator when truncation ends on one', () => {
    // `cli-mcp-` + 32 + `-` = 41 characters; the readable budget is 54, so session[12] is the last kept.
    const session = `${'s'.repeat(12)}-${'t'.repeat(20)}`;
    const name = sessionPodName(LONG_INSTANCE, session);
    expect(name).toBe(`cli-mcp-${LONG_INSTANCE}-${'s'.repeat(12)}-${hash8(LONG_INSTANCE, session)}`);
    expect(isDnsLabel(name)).toBe(true);
  });

  it('yields a valid label even for inputs that skipped validation', () => {
    for (const [instance, session] of [['OC', 'A_B'], ['', ''], ['ü', '.'], ['x'.repeat(300), 'y'.repeat(300)]] as const) {
      expect(isDnsLabel(sessionPodName(instance, session))).toBe(true);
      expect(isDnsLabel(authSecretName(instance, session))).toBe(true);
    }
  });
});

describe(authSecretName.name, () => {
  it('has the auth prefix and the same hash as the pod name', () => {
    expect(authSecretName('oc', 'inv-abc-123')).toBe(`cli-mcp-auth-oc-inv-abc-123-${hash8('oc', 'inv-abc-123')}`);
  });

  it('fits 63 characters for the longest ids', () => {
    const name = authSecretName(LONG_INSTANCE, LONG_SESSION);
    expect(name).toHaveLength(63);
    expect(isDnsLabel(name)).toBe(true);
    // Up to 32 characters of instance, part of the session stays readable.
    expect(name).toContain(`-${LONG_INSTANCE}-ssssssss`);
  });
});

describe(warmPodName.name, () => {
  it('is cli-mcp-<instance>-pool-<10 hex> from the injected random source', () => {
    expect(warmPodName('oc', countingRandom())).toBe('cli-mcp-oc-pool-0001020304');
  });

  it('fits 63 characters for the longest instance and is a valid label', () => {
    const name = warmPodName(LONG_INSTANCE, countingRandom());
    expect(name.length).toBeLessThanOrEqual(63);
    expect(isDnsLabel(name)).toBe(true);
    expect(isDnsLabel(warmPodName('x'.repeat(100), countingRandom()))).toBe(true);
  });

  it('gives different names for different random bytes', () => {
    const random = countingRandom();
    expect(warmPodName('oc', random)).not.toBe(warmPodName('oc', random));
  });

  it('cannot equal a session pod name: the last segment is 10 characters, never 8', () => {
    // Session "pool" would otherwise read cli-mcp-oc-pool-<hash>.
    expect(lastSegment(sessionPodName('oc', 'pool'))).toHaveLength(8);
    expect(lastSegment(warmPodName('oc', countingRandom()))).toHaveLength(10);
    expect(lastSegment(warmPodName('oc', () => new Uint8Array(0)))).toHaveLength(10);
  });
});

describe(isWarmPodName.name, () => {
  it('recognises warm-pool names and never a session pod name (session "pool" included)', () => {
    expect(isWarmPodName(warmPodName('oc', countingRandom()))).toBe(true);
    expect(isWarmPodName(warmPodName(LONG_INSTANCE, countingRandom()))).toBe(true);
    expect(isWarmPodName(sessionPodName('oc', 'pool'))).toBe(false);
    expect(isWarmPodName(sessionPodName('oc', 'pool-0001020304'))).toBe(false);
    expect(isWarmPodName('cli-mcp-oc-pool-000102030')).toBe(false);
  });
});

describe(controllerLeaseName.name, () => {
  it('is cli-mcp-<instance>-controller and a valid label for the longest instance', () => {
    expect(controllerLeaseName('oc')).toBe('cli-mcp-oc-controller');
    expect(isDnsLabel(controllerLeaseName(LONG_INSTANCE))).toBe(true);
  });
});

describe('name uniqueness over random pairs', () => {
  it('10k distinct (instance, session) pairs give distinct, valid pod and secret names', () => {
    // Seeded, so a failure reproduces. A tiny alphabet with many hyphens maximises equal readable parts
    // (hyphen moves, truncation), which only the hash can tell apart.
    const random = seededRandom(20260729);
    const pick = (length: number): string =>
      `a${Array.from({ length }, () => 'ab-'[Math.floor(random() * 3)]).join('')}b`;
    const pairs = new Set<string>();
    const pods = new Map<string, string>();
    const secrets = new Map<string, string>();
    const problems: string[] = [];
    while (pairs.size < 10_000) {
      const instance = pick(Math.floor(random() * (INSTANCE_NAME_MAX_LENGTH - 1)));
      const session = pick(Math.floor(random() * 62));
      const key = `${instance}/${session}`;
      if (pairs.has(key)) continue;
      pairs.add(key);
      for (const [names, name] of [[pods, sessionPodName(instance, session)], [secrets, authSecretName(instance, session)]] as const) {
        const other = names.get(name);
        if (other !== undefined) problems.push(`${key} and ${other} share ${name}`);
        if (!isDnsLabel(name)) problems.push(`${name} is not a DNS label`);
        names.set(name, key);
      }
    }
    expect(problems).toEqual([]);
    expect(pods.size).toBe(10_000);
    expect(secrets.size).toBe(10_000);
    // The generator really produced readable-part clashes, so the test is not vacuous.
    const readable = new Set([...pods.keys()].map((name) => name.slice(0, name.lastIndexOf('-'))));
    expect(readable.size).toBeLessThan(10_000);
  });
});

/** mulberry32: a small deterministic PRNG in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

import { describe, expect, it } from 'vitest';
import {
  INSTANCE_NAME_MAX_LENGTH,
  instanceNameProblem,
  isDnsLabel,
  isDnsSubdomain,
  isValidInstanceName,
  isValidSessionId,
} from './identifiers.js';

describe(isValidSessionId.name, () => {
  // Go TestValidateSessionID (§17.1).
  it.each(['abc123', 'inv-abc-123', 'a', 'a'.repeat(63), '0', 'a--b'])('accepts %j', (id) => {
    expect(isValidSessionId(id)).toBe(true);
  });

  it.each(['a'.repeat(64), '-abc', 'abc-', 'ABC', 'abc_123', 'abc.123', '', 'abc\n', ' abc'])('rejects %j', (id) => {
    expect(isValidSessionId(id)).toBe(false);
  });
});

describe(instanceNameProblem.name, () => {
  it.each(['oc', 'aws', 'a', 'x'.repeat(INSTANCE_NAME_MAX_LENGTH), 'my-instance-1'])('accepts %j', (name) => {
    expect(instanceNameProblem(name)).toBeUndefined();
    expect(isValidInstanceName(name)).toBe(true);
  });

  it('rejects a name one character too long, saying the bound', () => {
    expect(instanceNameProblem('x'.repeat(INSTANCE_NAME_MAX_LENGTH + 1))).toBe('must be at most 44 characters (got 45)');
  });

  it.each(['', 'Oc', '-oc', 'oc-', 'o_c', 'o.c', 'oc '])('rejects %j as not a DNS label', (name) => {
    expect(instanceNameProblem(name)).toContain('DNS-1123 label');
    expect(isValidInstanceName(name)).toBe(false);
  });
});

describe(isDnsLabel.name, () => {
  it('bounds the length at 63', () => {
    expect(isDnsLabel('a'.repeat(63))).toBe(true);
    expect(isDnsLabel('a'.repeat(64))).toBe(false);
  });

  it.each(['a.b', 'A', '', '-a'])('rejects %j', (value) => {
    expect(isDnsLabel(value)).toBe(false);
  });
});

describe(isDnsSubdomain.name, () => {
  it.each(['cli-mcp-oc-kubeconfig', 'a.b.c', 'gvisor', `${'a'.repeat(63)}.b`])('accepts %j', (value) => {
    expect(isDnsSubdomain(value)).toBe(true);
  });

  it.each(['', 'a..b', '.a', 'a.', 'A', `${'a'.repeat(64)}.b`, `${'a.'.repeat(127)}ab`])('rejects %j', (value) => {
    expect(isDnsSubdomain(value)).toBe(false);
  });
});

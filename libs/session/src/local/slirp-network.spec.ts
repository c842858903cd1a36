import { describe, expect, it } from 'vitest';
import { problemLines } from './slirp-network.js';

describe(problemLines.name, () => {
  it('keeps the failed call slirp4netns printed before "child failed", without its repeated warnings', () => {
    const stderr = 'open("/dev/net/tun"): Permission denied\nWARNING: Support for seccomp is experimental\nchild failed(1)\nWARNING: Support for seccomp is experimental\n';
    expect(problemLines(stderr)).toBe('open("/dev/net/tun"): Permission denied; child failed(1)');
  });

  it('says nothing when slirp4netns said nothing but warnings', () => {
    expect(problemLines('WARNING: Support for seccomp is experimental\n\n')).toBe('');
  });
});

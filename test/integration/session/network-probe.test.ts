/**
 * The attach probe (C-SEC-2, C-SEC-4) with real bubblewrap: `auto` keeps the isolated network only where
 * slirp4netns really attached to a throw-away sandbox, and says why not otherwise — never "isolated" in /health
 * while every command fails. The stand-in slirp4netns answers `--version` and then fails the way it does on a
 * workstation whose /dev/net/tun is mode 0600; the probe's sandbox is gone afterwards.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady, toolProblem } from '../../support/prerequisites.js';
import { descendantsOf } from './support/processes.js';
import { createSessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem ?? toolProblem('slirp4netns');

describeWhenReady('the isolated-network attach probe (real bwrap)', problem, () => {
  let dir: string;
  let brokenSlirp: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-mcp-probe-'));
    brokenSlirp = join(dir, 'slirp4netns');
    writeFileSync(brokenSlirp, '#!/bin/sh\n[ "$1" = --version ] && { echo "slirp4netns version 1.2.0"; exit 0; }\necho \'open("/dev/net/tun"): Permission denied\' >&2\necho \'child failed(1)\' >&2\nexit 1\n');
    chmodSync(brokenSlirp, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const sleepsUnderUs = () => descendantsOf(process.pid).filter((pid) => spawnSync('cat', [`/proc/${pid}/cmdline`]).stdout.toString() === 'sleep\x0060\x00');

  it('keeps isolated where slirp4netns really attaches', async () => {
    const stack = await createSessionStack('bwrap', { network: 'auto' });
    try {
      await stack.backend.start();
      expect(stack.backend.posture).toMatchObject({ network: 'isolated', warnings: [] });
      expect(sleepsUnderUs()).toEqual([]);
    } finally {
      await stack.close();
    }
  });

  it('auto falls back to the host network with a warning that names /dev/net/tun, and leaves no probe sandbox', async () => {
    const warnings: string[] = [];
    const stack = await createSessionStack('bwrap', {
      network: 'auto', slirpPath: brokenSlirp, logger: { info: () => undefined, warn: (message) => warnings.push(message) },
    });
    try {
      await stack.backend.start();
      expect(stack.backend.posture).toMatchObject({ isolation: 'bwrap', network: 'host' });
      expect(warnings).toEqual([expect.stringContaining('slirp4netns cannot attach to a sandbox here: slirp4netns exited before the network was up: open("/dev/net/tun"): Permission denied; child failed(1) — /dev/net/tun must be readable')]);
      expect(sleepsUnderUs()).toEqual([]);
      expect((await stack.run('probe-a', 'echo fine')).response.stdout).toBe('fine');
    } finally {
      await stack.close();
    }
  });

  it('explicit isolated refuses to start, naming the flag and the cause', async () => {
    const stack = await createSessionStack('bwrap', { network: 'isolated', slirpPath: brokenSlirp });
    try {
      await expect(stack.backend.start()).rejects.toThrow(/^--local-network=isolated: slirp4netns cannot attach to a sandbox here: .*child failed\(1\)/);
      expect(sleepsUnderUs()).toEqual([]);
    } finally {
      await stack.close();
    }
  });
});

/**
 * Issue 19 item 6: the bash the agent's shell runs lives in linted `.sh` sources (apps/sandbox-agent/src/shell/script/
 * protocol.sh, assembled by protocol-source.ts). Every tracked `.sh` file passes shellcheck with no finding left; an
 * exception is a `# shellcheck disable=SCnnnn # why` directive next to what it excuses.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './support/image-harness.js';
import { describeWhenReady, toolProblem } from '../../support/prerequisites.js';

const sources = execFileSync('git', ['ls-files', '*.sh'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

describeWhenReady('shell sources pass shellcheck', toolProblem('shellcheck'), () => {
  it('lints the agent\'s protocol source among them', () => {
    expect(sources).toContain('apps/sandbox-agent/src/shell/script/protocol.sh');
  });

  it.each(sources)('%s', (path) => {
    const result = spawnSync('shellcheck', ['--format=gcc', '--external-sources', path], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('reports what a finding looks like (the check can fail)', () => {
    const result = spawnSync('shellcheck', ['--format=gcc', '-'], { input: '#!/bin/bash\nfor f in $(ls); do echo $f; done\n', encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stdout).toMatch(/SC2045|SC2086/);
  });
});

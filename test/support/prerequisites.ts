/**
 * The one gate for tests that need something the machine may lack: a built bundle, bwrap, kubectl, podman,
 * python3-kubernetes (C-TEST-1; docs/testing.md "Prerequisites"). Every tier uses it, so the rule holds in one place:
 *
 * - on a developer machine, a missing prerequisite skips the block and prints why, once, tagged with its title;
 *   the block's body does not run (one skipped test, named after the problem, stands for it in the report);
 * - under `CI=true` the same gap is a failing test that names the problem, so a CI run can never pass by skipping
 *   what it was meant to prove (`scripts/ci-summary.mjs` also counts any skip under CI as a failure: the backstop for
 *   a skip that did not come through here).
 *
 * A problem is a sentence (`kubectl is not installed (…)`) or `undefined` when the block can run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

const IN_CI = process.env['CI'] === 'true';

/** `describe(title, options, body)` when nothing is missing; otherwise a printed skip, or a failure under CI. */
export function describeWhenReady(title: string, problem: string | undefined, body: () => void, options: { timeout?: number } = {}): void {
  if (problem === undefined) {
    describe(title, options, body);
    return;
  }
  if (IN_CI) {
    describe(title, () => {
      it('has what it needs under CI', () => {
        throw new Error(`cannot run under CI: ${problem}`);
      });
    });
    return;
  }
  // The body is not even collected: a skipped block must not make a temp dir or probe a tool while its tests are
  // listed. The report shows one skipped test that carries the reason.
  console.warn(`[${title}] skipped: ${problem}`);
  describe(title, () => {
    it.skip(`skipped: ${problem}`, () => {});
  });
}

/** The same gate for one test among others that can run. */
export function itWhenReady(title: string, problem: string | undefined, fn: () => Promise<void> | void, timeout?: number): void {
  if (problem === undefined) {
    it(title, fn, timeout);
    return;
  }
  if (IN_CI) {
    it(title, () => {
      throw new Error(`cannot run under CI: ${problem}`);
    });
    return;
  }
  // The suite's one deliberate skip, with the block's in describeWhenReady: printed here, and a failure under CI, both
  // in the branch above and in scripts/ci-summary.mjs.
  console.warn(`[${title}] skipped: ${problem}`);
  it.skip(title, fn, timeout);
}

const KUBECTL_CANDIDATES = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'];

/** The kubectl of this machine kind (it ships one; .ci/run installs none), for every tier that drives it. */
export const KUBECTL: string | undefined = KUBECTL_CANDIDATES.find((path) => existsSync(path));

/** Why a kubectl test cannot run here, or undefined. */
export const KUBECTL_PROBLEM: string | undefined = KUBECTL ? undefined : `kubectl is not installed (looked for ${KUBECTL_CANDIDATES.join(', ')})`;

/** The first problem among `checks` (each returns a reason or undefined), checked in order and no further. */
export function firstProblem(...checks: Array<() => string | undefined>): string | undefined {
  for (const check of checks) {
    const problem = check();
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** `undefined` when `command --version`-like `args` run, else why not. */
export function toolProblem(command: string, args: string[] = ['--version']): string | undefined {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  if (probe.error) return `${command} is not installed (${probe.error.message})`;
  return probe.status === 0 ? undefined : `${command} ${args.join(' ')} exited ${probe.status}`;
}

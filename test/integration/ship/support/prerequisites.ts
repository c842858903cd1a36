import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

/**
 * A ship check whose tools are missing skips with the printed reason on a developer machine; under `CI=true` the
 * same gap is a failing test, so a CI run can never pass by skipping what it was meant to prove.
 */
export function describeWhenReady(title: string, problem: string | undefined, body: () => void): void {
  if (problem !== undefined && process.env['CI'] === 'true') {
    describe(title, () => {
      it('has what it needs under CI', () => {
        throw new Error(`cannot run under CI: ${problem}`);
      });
    });
    return;
  }
  if (problem !== undefined) console.warn(`[${title}] skipped: ${problem}`);
  describe.skipIf(problem !== undefined)(title, body);
}

/** The first problem among `checks` (each returns a reason or undefined). */
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

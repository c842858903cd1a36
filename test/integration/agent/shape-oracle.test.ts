/**
 * The oracle for the yield shape classifier (C-MCP-11, issue 19 item 6): commands generated from a grammar
 * (shape-oracle/command-grammar.ts) are classified, and real bash checks the two promises an answer makes:
 * - `subshell` (mode P): running the command as `( … )` leaves the shell state running it in the shell would;
 * - `job` or `subshell` (J/P): bash can stop the command's job and continue it as one job, with the same output.
 * The seed is fixed so CI is reproducible; ORACLE_SEED=<n> (or `random`) explores further. It is printed either way.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_MODE } from '../../../apps/sandbox-agent/src/shell/script/command-script.js';
import { commandShape } from '../../../apps/sandbox-agent/src/shell/script/command-shape.js';
import { compareStates, OracleWorkspace, stopAndContinue, type Sample, type StopRun } from './shape-oracle/bash-oracle.js';
import { sessionState, shellCommand } from './shape-oracle/command-grammar.js';

const SEED = process.env.ORACLE_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.ORACLE_SEED ?? 1906);
const NUM_RUNS = 12;
/** Commands per bash process: most are classified `shell` and cost the state check two forks each. */
const STATE_BATCH = 80;
const STOP_BATCH = 40;
/** No shrinking: each step reruns bash, and the failing assertion already names the one failing sample. */
const PARAMETERS = { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true };
/**
 * A fixed amount of work (≈ 1,000 bash commands and their forks per property): a few seconds on a quiet machine,
 * several times that with the other core busy and the rest of the suite beside it (C-TEST-1). A bound on a hang,
 * never a speed check.
 */
const PROPERTY_TIMEOUT_MS = 300_000;

/**
 * Variables bash changes by itself, so they differ between any two runs whatever the command did: the process
 * (BASHPID), generators and clocks (RANDOM, SRANDOM, SECONDS, EPOCHREALTIME, EPOCHSECONDS), where the dump was called
 * from (LINENO, BASH_LINENO, BASH_SOURCE, FUNCNAME, BASH_ARGC, BASH_ARGV, BASH_COMMAND), the last command's status and
 * argument (PIPESTATUS, `_`), the history counter (HISTCMD). BASH_REMATCH and a `for` loop's variable are the state
 * a command run as a subshell is documented not to keep (docs/agent.md, "What can become a job"). ORACLE_* are the
 * harness's own (which run, its shell's pid, its directory) and differ between a stopped run and its reference.
 */
const SELF_CHANGING = ['BASHPID', 'RANDOM', 'SRANDOM', 'SECONDS', 'EPOCHREALTIME', 'EPOCHSECONDS', 'LINENO', 'BASH_LINENO',
  'BASH_SOURCE', 'FUNCNAME', 'BASH_ARGC', 'BASH_ARGV', 'BASH_COMMAND', 'PIPESTATUS', '_', 'HISTCMD', 'BASH_REMATCH',
  'ORACLE_DIR', 'ORACLE_SHELL', 'ORACLE_STOP'];

function observable(dump: string, command: string): string {
  const loopVariables = [...command.matchAll(/\bfor\s+([A-Za-z_]\w*)/g)].map((m) => m[1]!);
  const ignored = new Set([...SELF_CHANGING, ...loopVariables]);
  return dump.split('\n').filter((line) => !ignored.has(/^declare -\S+ ([A-Za-z_]\w*)/.exec(line)?.[1] ?? '')).join('\n');
}

const tally = { subshell: 0, stateChecked: 0, detachable: 0, stopped: 0 };
const workspace = new OracleWorkspace();
afterAll(() => workspace.close());

function detachableSamples(pairs: ReadonlyArray<readonly [string, string]>, kinds: ReadonlySet<string>): Sample[] {
  return pairs.flatMap(([session, command]) => {
    const shape = commandShape(command);
    if (!kinds.has(shape.kind) || (shape.kind !== 'job' && shape.kind !== 'subshell')) return [];
    return [{ session, command, mode: RUN_MODE[shape.kind], words: shape.words } satisfies Sample];
  });
}

/** What is wrong with a stop-and-continue run against its reference, or undefined. */
function stopProblem(stop: StopRun, reference: StopRun): string | undefined {
  if (!stop.stopped) return stop.output === reference.output ? undefined : 'the output differs though nothing was stopped';
  if (stop.status === undefined) return 'the shell did not survive the stop';
  // `jobs -l` lists a pipeline's processes on lines of their own, the job's number on the first.
  const jobs = stop.jobs.split('\n').filter((line) => /^\[\d+\]/.test(line));
  if (jobs.length !== 1 || !stop.jobs.includes('Stopped')) return `not one stopped job: ${stop.jobs}`;
  if (!reference.output.startsWith(stop.outputAtStop)) return `output while stopped: ${JSON.stringify(stop.outputAtStop)}`;
  if (stop.output !== reference.output) return `output ${JSON.stringify(stop.output)} ≠ ${JSON.stringify(reference.output)}`;
  return undefined;
}

describe('shape classifier oracle', () => {
  console.log(`shape oracle: seed ${SEED} (ORACLE_SEED=<n> or ORACLE_SEED=random to change)`);
  const batch = (size: number) => fc.array(fc.tuple(sessionState, shellCommand), { minLength: size, maxLength: size });

  it('a command classified `subshell` leaves the shell state running it in the shell would', async () => {
    await fc.assert(fc.asyncProperty(batch(STATE_BATCH), async (pairs) => {
      const samples = detachableSamples(pairs, new Set(['subshell']));
      tally.subshell += samples.length;
      const results = await compareStates(workspace, samples);
      samples.forEach((sample, i) => {
        const result = results[i]!;
        if (result.mode !== 'P') return;
        // A fatal error (an unbound variable under `set -u`) ends a non-interactive shell: in the shell it would
        // have ended the session shell (a state reset, C-AG-8), as a subshell only the subshell. Accepted.
        if (!result.inShell.includes('\ndeclare ')) return;
        tally.stateChecked++;
        expect(observable(result.asSubshell, sample.command), JSON.stringify(sample)).toBe(observable(result.inShell, sample.command));
      });
    }), PARAMETERS);
    // Not vacuous: the grammar reaches the check often.
    expect(tally.stateChecked).toBeGreaterThan(NUM_RUNS * 2);
  }, PROPERTY_TIMEOUT_MS);

  it('a command classified detachable is one job bash can stop and continue with the same output', async () => {
    await fc.assert(fc.asyncProperty(batch(STOP_BATCH), async (pairs) => {
      const samples = detachableSamples(pairs, new Set(['job', 'subshell']));
      tally.detachable += samples.length;
      const results = await stopAndContinue(workspace, samples);
      samples.forEach((sample, i) => {
        const { stop, reference } = results[i]!;
        if (reference.mode === 'S') return;
        if (stop.stopped) tally.stopped++;
        expect(stopProblem(stop, reference), JSON.stringify(sample)).toBeUndefined();
        expect(observable(stop.state, sample.command), JSON.stringify(sample)).toBe(observable(reference.state, sample.command));
      });
    }), PARAMETERS);
    expect(tally.stopped).toBeGreaterThan(NUM_RUNS * 3);
  }, PROPERTY_TIMEOUT_MS);

  // The checks are not vacuous: what the classifier used to answer for the counterexamples above is caught.
  it.each([
    ['sleep 0; x=1 2>&1', ['sleep', '2']],
    ['sleep 0; [[ n++ -eq 0 ]]', ['sleep', '[[']],
    ['sleep 0; echo $[n=3]', ['sleep', 'echo']],
  ])('the state check catches a lost assignment: %j', async (command, words) => {
    const [result] = await compareStates(workspace, [{ session: '', command, mode: 'P', words }]);
    expect(observable(result!.asSubshell, command)).not.toBe(observable(result!.inShell, command));
  });

  it.each([
    ['', 'set -e; oracle_gate p1', 'J', ['set', 'oracle_gate'], 'the shell did not survive the stop'],
    ["trap 'echo E' ERR", 'oracle_gate p1', 'J', ['oracle_gate'], 'output while stopped'],
    ['', 'oracle_gate p1; echo p2', 'J', ['oracle_gate', 'echo'], 'output while stopped'],
  ] as const)('the stop check catches %j %j run as %s', async (session, command, mode, words, problem) => {
    // Without the head's fallbacks (it says S for an ERR trap), as the agent ran these before.
    const [{ stop, reference }] = await stopAndContinue(workspace, [{ session, command, mode, words, withoutFallbacks: true }]);
    expect(stopProblem(stop, reference)).toContain(problem);
  });
});

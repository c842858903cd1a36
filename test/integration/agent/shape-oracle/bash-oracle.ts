/**
 * Real bash as the oracle for the shape classifier (C-MCP-11, shape-oracle.test.ts). Each check runs a whole batch of
 * samples in one bash process (the state check) or one driver bash (the stop check), so a property run costs a few
 * forks per sample and no Node spawn per sample.
 *
 * The harness mirrors the agent's head (command-script.ts, `__climcp_b`): job control on, aliases expanded, the
 * command evaluated inside a one-iteration `for` loop with its streams redirected around a group, a detachable mode
 * falling back to S under `set -e`, without job control, with an ERR trap or when a command word is an alias or a
 * function, and mode
 * P evaluating `( command\n)`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { singleQuote } from '../../../../apps/sandbox-agent/src/shell/script/single-quote.js';

export interface Sample {
  /** What earlier commands left in the session (run first, output discarded). */
  session: string;
  command: string;
  /** The run mode the classifier's answer asks for (J or P, command-script.ts RUN_MODE) and its command words. */
  mode: 'J' | 'P';
  words: readonly string[];
  /** Take `mode` as is, without the head's fallbacks to S (to show what they prevent). */
  withoutFallbacks?: boolean;
}

/**
 * Stops its own job's process group once per run (`$ORACLE_DIR/stopped`, created with noclobber by `true`, not the special builtin `:` whose failed redirection ends sh, is the token; no
 * `mkdir`: a process stopped in the middle of a vfork leaves its parent unstoppable and bash waiting), as the agent stops the job
 * at the yield point, then prints its label. Inside the shell's own process group (no job control) it does not stop
 * — the agent would find no job to detach there and answer busy, a safe answer — and leaves `ingroup` behind.
 */
const GATE = `#!/bin/sh
label=$1
set -C
if [ -n "\${ORACLE_STOP:-}" ] && { true >"$ORACLE_DIR/stopped"; } 2>/dev/null; then
  read -r stat </proc/$$/stat
  set -- \${stat##*) }
  if [ "$3" = "$ORACLE_SHELL" ]; then : >"$ORACLE_DIR/ingroup"; else kill -STOP 0; fi
fi
echo "$label"
`;

const PRELUDE = [
  'set -m; shopt -s expand_aliases',
  '__oracle_dump() { builtin declare -p; builtin declare -f; builtin alias -p; builtin shopt -p; builtin set +o; ' +
    'builtin pwd; builtin umask; builtin trap -p; }',
  '__oracle_mode() { __oracle_m=$1; case $- in *e*) __oracle_m=S;; *m*) ;; *) __oracle_m=S;; esac; ' +
    'for __oracle_i in "${__oracle_w[@]}"; do if [[ -n ${BASH_ALIASES[$__oracle_i]+x} ]] || ' +
    'builtin declare -F -- "$__oracle_i" >/dev/null; then __oracle_m=S; fi; done; }',
].join('\n');

/** At top level, as the agent's COMMAND_TEXT does: a function does not see the ERR trap. */
const ERR_CHECK = '[[ -z $(trap -p ERR) ]] || __oracle_m=S';

function sampleVariables(sample: Sample): string {
  return `__oracle_s=${singleQuote(sample.session)}; __oracle_c=${singleQuote(sample.command)}; ` +
    `__oracle_w=(${sample.words.map(singleQuote).join(' ')})`;
}

/** The agent's loop around the user's eval (command-script.ts COMMAND_TEXT). */
const evalInLoop = (text: string, redirections: string): string =>
  `for __oracle_l in 1; do { builtin eval "${text}"; } </dev/null ${redirections}; done`;

/** A scratch directory with the gate on PATH; `close` removes it. */
export class OracleWorkspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'shape-oracle-'));
  readonly env: NodeJS.ProcessEnv;

  constructor() {
    writeFileSync(join(this.dir, 'oracle_gate'), GATE);
    chmodSync(join(this.dir, 'oracle_gate'), 0o755);
    this.env = { PATH: `${this.dir}:${process.env.PATH ?? '/usr/bin:/bin'}`, LC_ALL: 'C', HOME: this.dir, ORACLE_HOME: this.dir };
  }

  close(): void {
    this.reap();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Kills what a sample left running after its bash ended (a stopped `( … & )` whose shell exited has nobody left
   * to continue it): every process whose environment carries this workspace's marker variable.
   */
  private reap(): void {
    const marker = Buffer.from(`ORACLE_HOME=${this.dir}\0`);
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`).includes(marker)) process.kill(Number(name), 'SIGKILL');
      } catch {
        // Gone already, or not ours to read.
      }
    }
  }

  run(script: string): Promise<string> {
    const file = join(this.dir, 'script.sh');
    writeFileSync(file, script);
    return new Promise((resolve, reject) => {
      execFile('bash', ['--norc', '--noprofile', file], { env: this.env, cwd: this.dir, maxBuffer: 64 << 20, timeout: Number(process.env.ORACLE_BASH_TIMEOUT ?? 120_000) },
        (error, stdout) => {
          this.reap();
          if (error && error.killed) reject(new Error(`the oracle's bash timed out:\n${script}`));
          else resolve(stdout);
        });
    });
  }
}

export interface StateResult {
  /** The mode the harness's head chose (S: the agent would not take the classifier's answer). */
  mode: string;
  inShell: string;
  asSubshell: string;
}

/**
 * Check (a): for each sample, the state dump after running the command in the shell and after running it as
 * `( command\n)`, each in a subshell of one harness bash that first recreates the session state.
 */
export async function compareStates(workspace: OracleWorkspace, samples: readonly Sample[]): Promise<StateResult[]> {
  const run = (text: string): string =>
    `( builtin eval "$__oracle_s" </dev/null >/dev/null 2>&1; __oracle_mode P; ${ERR_CHECK}; builtin printf 'M%s\\n' "$__oracle_m"; ` +
    `${evalInLoop(text, '>/dev/null 2>&1')}; __oracle_dump ); builtin printf '\\x1e\\n'`;
  const lines = samples.map((s) => `${sampleVariables(s)}\n${run('$__oracle_c')}\n${run('( $__oracle_c\n)')}`);
  const out = await workspace.run(`${PRELUDE}\nORACLE_DIR=${singleQuote(workspace.dir)}\n${lines.join('\n')}\n`);
  const parts = out.split('\x1e\n');
  return samples.map((_, i) => {
    const inShell = parts[2 * i] ?? '';
    return { mode: /^M(.)/.exec(inShell)?.[1] ?? '?', inShell, asSubshell: parts[2 * i + 1] ?? '' };
  });
}

export interface StopRun {
  mode: string;
  /** The command's status as the shell saw it; undefined = the shell did not survive. */
  status?: number;
  stopped: boolean;
  jobs: string;
  outputAtStop: string;
  output: string;
  state: string;
}

/**
 * Check (b): each sample runs twice in a bash of its own (so state cannot leak): once with the gate stopping its job
 * and the harness continuing it (`bg %+; wait`, as the agent's handoff does), once as the reference without a stop.
 */
export async function stopAndContinue(workspace: OracleWorkspace, samples: readonly Sample[]): Promise<Array<{ stop: StopRun; reference: StopRun }>> {
  const child = (sample: Sample): string => [
    PRELUDE, 'ORACLE_SHELL=$$; export ORACLE_SHELL', sampleVariables(sample),
    'builtin eval "$__oracle_s" </dev/null >/dev/null 2>&1',
    `${sample.withoutFallbacks ? `__oracle_m=${sample.mode}` : `__oracle_mode ${sample.mode}; ${ERR_CHECK}`}; builtin printf 'M%s\\n' "$__oracle_m"`,
    '[[ $__oracle_m == S ]] && builtin exit 0',
    '[[ $__oracle_m == P ]] && __oracle_c="( $__oracle_c"$\'\\n\'")"',
    evalInLoop('$__oracle_c', '>"$ORACLE_DIR/out" 2>"$ORACLE_DIR/err"'),
    "builtin printf 'R%s\\n' \"$?\"",
    'builtin jobs -l >"$ORACLE_DIR/jobs" 2>&1 || builtin :; /bin/cat "$ORACLE_DIR/out" >"$ORACLE_DIR/out.stop" || builtin :',
    'builtin bg %+ >/dev/null 2>&1 || builtin :; builtin wait || builtin :',
    "builtin printf 'D\\n'; __oracle_dump",
  ].join('\n');
  const base = mkdtempSync(join(workspace.dir, 'batch-'));
  const driver = samples.map((sample, i) => {
    const script = singleQuote(child(sample));
    return ['stop', 'ref'].map((kind) => {
      const dir = join(base, String(i), kind);
      mkdirSync(dir, { recursive: true });
      return `ORACLE_DIR=${singleQuote(dir)} ORACLE_STOP=${kind === 'stop' ? 1 : ''} bash --norc --noprofile -c ${script} oracle ` +
        `>${singleQuote(join(dir, 'shell'))} 2>/dev/null </dev/null`;
    }).join('\n');
  });
  await workspace.run(`${driver.join('\n')}\n`);
  return samples.map((_, i) => {
    const read = (kind: string): StopRun => {
      const dir = join(base, String(i), kind);
      const file = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
      const shell = file('shell');
      const status = /^R(\d+)$/m.exec(shell)?.[1];
      return {
        mode: /^M(.)/.exec(shell)?.[1] ?? '?', status: status === undefined ? undefined : Number(status),
        stopped: existsSync(join(dir, 'stopped')) && !existsSync(join(dir, 'ingroup')), jobs: file('jobs'),
        outputAtStop: file('out.stop'), output: file('out'), state: shell.split(/^D$/m)[1] ?? '',
      };
    };
    return { stop: read('stop'), reference: read('ref') };
  });
}

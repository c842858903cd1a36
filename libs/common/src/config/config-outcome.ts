/** What loading an app's configuration gives (C-CFG-1): run, answer `--help`/`--version`, or refuse. */
export type ConfigOutcome<C> =
  | { readonly kind: 'run'; readonly config: C; readonly warnings: readonly string[] }
  | { readonly kind: 'help' | 'version'; readonly text: string }
  | { readonly kind: 'invalid'; readonly problems: readonly string[] };

/**
 * Answers every outcome but `run` the same way in every app: help and version on stdout; problems on stderr,
 * one per line, then exit status 1 — nothing started. Returns the run outcome, or undefined when done.
 */
export function settleConfigOutcome<C>(app: string, outcome: ConfigOutcome<C>): Extract<ConfigOutcome<C>, { kind: 'run' }> | undefined {
  switch (outcome.kind) {
    case 'help':
    case 'version':
      process.stdout.write(outcome.text);
      return undefined;
    case 'invalid':
      process.stderr.write(`${app}: invalid configuration:\n${outcome.problems.map((p) => `  - ${p}\n`).join('')}Run with --help for every flag.\n`);
      process.exitCode = 1;
      return undefined;
    case 'run':
      return outcome;
  }
}

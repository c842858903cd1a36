/**
 * Declarative command-line flags with environment equivalents (C-CFG-1): every flag `--some-flag` can also be
 * set as `<PREFIX>SOME_FLAG`; a flag on the command line wins over the environment. One table drives parsing,
 * validation messages and `--help`, so the three cannot drift apart.
 */
export interface FlagSpec {
  /** Long name without dashes, e.g. `default-timeout`. */
  readonly name: string;
  /** `boolean` flags take no value (`--stateless`, or `--stateless=false`); default `string`. */
  readonly kind?: 'string' | 'boolean';
  /** One-letter alias, e.g. `t` for `-t`. */
  readonly short?: string;
  /** Placeholder shown in `--help`, e.g. `duration` or `stdio|http`. */
  readonly valueName?: string;
  /** One sentence for `--help`. */
  readonly description: string;
  /** Raw default, parsed exactly like user input and shown in `--help`. */
  readonly default?: string;
  /** Shown instead of `default` when the default is computed (e.g. "max-timeout + 10s"). */
  readonly defaultText?: string;
  /** Section heading in `--help`. */
  readonly group?: string;
  /** May be given several times; the values add up as one comma-separated list (read it with `list`). */
  readonly repeatable?: boolean;
  /** No environment equivalent (`--help`, `--version`). */
  readonly noEnv?: boolean;
  /**
   * A second, well-known environment variable read when `<PREFIX>FLAG` is unset — one a platform sets for us
   * (`WATCH_NAMESPACE` from OLM's `olm.targetNamespaces`, `RELATED_IMAGE_*` that OLM rewrites for mirrored
   * registries). The prefixed name still wins over it, and a flag over both.
   */
  readonly envAlias?: string;
}

/** Where a raw value came from; messages say so, because a stale env var is a classic surprise. */
export type FlagSource = 'flag' | 'env' | 'default';

export interface RawFlagValue {
  readonly value: string | boolean;
  readonly source: FlagSource;
  /** The environment variable it came from (`source` env). */
  readonly envName?: string;
}

/** Result of reading argv and env against a table: raw values plus syntax problems (unknown flags …). */
export interface RawFlags {
  readonly values: ReadonlyMap<string, RawFlagValue>;
  readonly problems: readonly string[];
}

/** The env prefix of the server's and the controller's flags: one set of names for both (C-CFG-1). */
export const CLI_MCP_ENV_PREFIX = 'CLI_MCP_';

/** `CLI_MCP_` + `default-timeout` → `CLI_MCP_DEFAULT_TIMEOUT`. */
export function envVarName(prefix: string, flagName: string): string {
  return `${prefix}${flagName.toUpperCase().replace(/-/g, '_')}`;
}

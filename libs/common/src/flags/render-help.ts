import { type FlagSpec } from './flag-spec.js';
import { envNames } from './read-raw-flags.js';

export interface HelpOptions {
  /** First line, e.g. `cli-mcp-server 0.1.0 — MCP server …`. */
  readonly title: string;
  /** e.g. `cli-mcp-server [flags]`. */
  readonly usage: string;
  readonly envPrefix: string;
  /** Free text after the flag list (precedence rules, examples). */
  readonly footer?: string;
  /** Order of the group headings (others follow, in the table's order). */
  readonly groupOrder?: readonly string[];
}

/**
 * `--help` text: every flag with its value, description, default and env var (C-CFG-1), grouped (in `groupOrder`, then the
 * table's order). Plain text, wrapped by the terminal, stable for tests.
 */
export function renderHelp(specs: readonly FlagSpec[], options: HelpOptions): string {
  const lines = [options.title, '', `Usage: ${options.usage}`];
  const groups = new Map<string, FlagSpec[]>((options.groupOrder ?? []).map((group) => [group, []]));
  for (const spec of specs) {
    const group = spec.group ?? 'Flags';
    groups.set(group, [...(groups.get(group) ?? []), spec]);
  }
  for (const [group, members] of groups) {
    if (members.length === 0) continue;
    lines.push('', `${group}:`);
    for (const spec of members) {
      const names = `${spec.short ? `-${spec.short}, ` : ''}--${spec.name}`;
      const value = (spec.kind ?? 'string') === 'boolean' ? '' : ` <${spec.valueName ?? 'value'}>`;
      lines.push(`  ${names}${value}`);
      lines.push(`      ${spec.description}`);
      const facts: string[] = [];
      const shownDefault = spec.defaultText ?? spec.default;
      if (shownDefault !== undefined) facts.push(`default: ${shownDefault}`);
      if (!spec.noEnv) facts.push(`env: ${envNames(spec, options.envPrefix)}`);
      if (facts.length > 0) lines.push(`      (${facts.join('; ')})`);
    }
  }
  if (options.footer) lines.push('', options.footer);
  return `${lines.join('\n')}\n`;
}

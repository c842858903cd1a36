import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { FlagReader } from '@cli-mcp/common';
import type { LocalEgressConfig } from '@cli-mcp/session';
import type { BackendKind, LocalNetwork } from './server-config.js';

export interface EgressInput {
  readonly backend: BackendKind;
  /** `--local-network` as given. */
  readonly network: LocalNetwork;
  /** Sandboxes' workspaces live there: the audit file may not (the server would write where a sandbox can change). */
  readonly stateDir: string;
  readonly cwd: string;
  readFile(path: string): Promise<string>;
}

const FLAGS = ['egress-allow', 'egress-kubeconfig', 'egress-audit-log'] as const;

/**
 * The egress gateway's flags (docs/egress.md), checked once (C-CFG-1): each `--egress-allow` parsed as the gateway
 * will, the kubeconfig read (unreadable, or a context the gateway cannot route: a problem naming the flag), the
 * audit file kept out of the state dir. Any of them turns `--local-network auto` into `proxy`;
 * with another network they would be silently useless, so that is a problem too.
 */
export async function readEgress(flags: FlagReader, input: EgressInput): Promise<{ network: LocalNetwork; egress?: LocalEgressConfig }> {
  const given = FLAGS.filter((name) => flags.isSet(name));
  if (given.length === 0) return { network: input.network, egress: input.network === 'proxy' ? { allow: [] } : undefined };
  const labels = given.map((name) => flags.label(name)).join(', ');
  const one = given.length === 1;
  if (input.backend === 'kubernetes') {
    flags.fail(`${labels} ${one ? 'configures' : 'configure'} the local backend's egress gateway; with --backend kubernetes the gateway is the cli-mcp-egress Deployment (docs/egress.md)`);
    return { network: input.network };
  }
  if (input.network !== 'auto' && input.network !== 'proxy') {
    flags.fail(`${labels} ${one ? 'needs' : 'need'} --local-network proxy (auto becomes proxy when an --egress-* flag is given); got --local-network ${input.network}`);
    return { network: input.network };
  }
  // Loaded only here: a server without egress never loads the gateway's code.
  const egress = await import('@cli-mcp/egress');
  const allow: string[] = [];
  for (const entry of flags.list('egress-allow')) {
    try {
      allow.push(egress.parseAllowEntry(entry));
    } catch (error) {
      flags.invalid('egress-allow', `${JSON.stringify(entry)}: ${(error as Error).message}`);
    }
  }
  const kubeconfig = await readKubeconfig(flags, input, egress);
  const auditLog = readAuditLog(flags, input);
  try {
    // Conflicts between the flags (one host:port both allowed and a cluster) surface now, not at the first sandbox.
    new egress.Routes([...allow.map((authority) => ({ kind: 'allow' as const, authority })), ...(kubeconfig ? egress.kubeconfigRoutes(kubeconfig.config, kubeconfig.path) : [])]);
  } catch (error) {
    flags.fail(`${labels}: ${(error as Error).message}`);
  }
  return { network: 'proxy', egress: { allow, kubeconfig, auditLog } };
}

async function readKubeconfig(flags: FlagReader, input: EgressInput, egress: typeof import('@cli-mcp/egress')): Promise<LocalEgressConfig['kubeconfig']> {
  const given = flags.string('egress-kubeconfig');
  if (given === undefined) return undefined;
  const path = resolve(input.cwd, given);
  let text: string;
  try {
    text = await input.readFile(path);
  } catch (error) {
    flags.invalid('egress-kubeconfig', `cannot read ${path}: ${reason(error)}`);
    return undefined;
  }
  try {
    // Files it names (certificate-authority, client-key, tokenFile) are read now too, relative to it.
    const config = egress.parseKubeconfig(text, path, (file) => readFileSync(file, 'utf8'));
    egress.kubeconfigRoutes(config, path);
    return { path, config };
  } catch (error) {
    if (!(error instanceof egress.KubeconfigError)) throw error;
    flags.invalid('egress-kubeconfig', `${error.message} (a laptop kubeconfig with many contexts: give one made by kubectl config view --minify --flatten --context NAME)`);
    return undefined;
  }
}

function readAuditLog(flags: FlagReader, input: EgressInput): string | undefined {
  const given = flags.string('egress-audit-log');
  if (given === undefined) return undefined;
  const path = resolve(input.cwd, given);
  const inside = relative(input.stateDir, path);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
    flags.invalid('egress-audit-log', `${path} is inside --state-dir ${input.stateDir}, where sandboxes' workspaces live; choose a path outside it`);
  }
  return path;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

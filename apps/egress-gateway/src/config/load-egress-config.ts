import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CLI_MCP_ENV_PREFIX, FlagReader, OTHER_GROUP, flagTable, readRawFlags, readSettings, renderHelp, type ConfigOutcome, type FlagSpec } from '@cli-mcp/common';
import { KUBERNETES_GROUP, KubeAccessSettings } from '@cli-mcp/kube';
import type { EgressGatewayConfig } from './egress-gateway-config.js';
import { EGRESS_GATEWAY_GROUP, EgressGatewaySettings } from './egress-gateway-settings.js';
import { combineRoutes, readInvestigationKubeconfig, readRoutesFile } from './route-files.js';

/** Env prefix shared with the server and the controller: `--proxy-port` ↔ `CLI_MCP_PROXY_PORT`. */
export const ENV_PREFIX = CLI_MCP_ENV_PREFIX;

/** Every flag of cli-mcp-egress: its own and the shared Kubernetes access (one declaration each). */
export const EGRESS_GATEWAY_FLAGS: readonly FlagSpec[] = flagTable(EgressGatewaySettings, KubeAccessSettings);

export interface EgressConfigEnvironment {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
  readonly cwd: string;
  readFile(path: string): Promise<string>;
}

const REQUIRED = ['namespace', 'instance-name', 'routes-file', 'ca-secret', 'sandbox-configmap', 'sandbox-proxy-url'] as const;

/**
 * argv + env + the files they name → the typed configuration (C-CFG-1): every problem collected, each naming its
 * flag and env var (and, for the files, the file and the entry), so nothing starts on a bad allow-list.
 */
export async function loadEgressConfig(io: EgressConfigEnvironment): Promise<ConfigOutcome<EgressGatewayConfig>> {
  const flags = new FlagReader(EGRESS_GATEWAY_FLAGS, readRawFlags(EGRESS_GATEWAY_FLAGS, io.argv, io.env, ENV_PREFIX), ENV_PREFIX);
  if (flags.boolean('help')) return { kind: 'help', text: egressHelpText(io.version) };
  if (flags.boolean('version')) return { kind: 'version', text: `cli-mcp-egress ${io.version}\n` };
  const settings = readSettings(EgressGatewaySettings, flags);
  const access = readSettings(KubeAccessSettings, flags);
  for (const name of REQUIRED) if (flags.string(name) === undefined) flags.invalid(name, 'is required');
  const proxyUrl = settings.sandboxProxyUrl === undefined ? undefined : checkProxyUrl(flags, settings.sandboxProxyUrl);
  const allow = settings.routesFile === undefined ? undefined : await readRoutesFile(flags, resolve(io.cwd, settings.routesFile), io.readFile);
  const investigation = settings.kubeconfigFile === undefined
    ? undefined
    : await readInvestigationKubeconfig(flags, resolve(io.cwd, settings.kubeconfigFile), io.readFile, (file) => readFileSync(file, 'utf8'));
  const routes = allow === undefined ? undefined : combineRoutes(flags, allow, investigation);
  if (flags.problems.length > 0 || routes === undefined || proxyUrl === undefined) return { kind: 'invalid', problems: flags.problems };
  return {
    kind: 'run',
    warnings: [],
    config: {
      version: io.version,
      logLevel: settings.logLevel,
      namespace: access.namespace!,
      instanceName: access.instanceName!,
      kubeconfig: access.kubeconfig,
      proxyPort: settings.proxyPort,
      adminPort: settings.adminPort,
      routes,
      routesFile: settings.routesFile!,
      investigation,
      caSecret: settings.caSecret!,
      sandboxConfigMap: settings.sandboxConfigMap!,
      sandboxProxyUrl: proxyUrl,
    },
  };
}

/** An `http://host[:port]` URL with nothing else: what kubectl's `proxy-url` and the sandboxes' variables take. */
function checkProxyUrl(flags: FlagReader, text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    flags.invalid('sandbox-proxy-url', `${JSON.stringify(text)} is not a URL; expected http://host:port`);
    return undefined;
  }
  // The proxy speaks plain HTTP (CONNECT); userinfo, a path or a query would be ignored or misread by clients.
  if (url.protocol !== 'http:' || url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    flags.invalid('sandbox-proxy-url', `${JSON.stringify(text)} must be a plain http://host:port URL (the proxy speaks HTTP CONNECT)`);
    return undefined;
  }
  return `http://${url.host}`;
}

export function egressHelpText(version: string): string {
  return renderHelp(EGRESS_GATEWAY_FLAGS, {
    title: `cli-mcp-egress ${version} — the egress gateway of cli-mcp-server's Kubernetes sandboxes: an allow-list, credential injection and a per-session audit (docs/egress.md).`,
    usage: 'cli-mcp-egress [flags]',
    envPrefix: ENV_PREFIX,
    groupOrder: [EGRESS_GATEWAY_GROUP, KUBERNETES_GROUP, OTHER_GROUP],
    footer: [
      'Every flag can also be set in the environment (the env name is listed); a flag on the command line wins.',
      'Audit lines (one JSON object per decision) go to stdout, logs to stderr.',
    ].join('\n'),
  });
}

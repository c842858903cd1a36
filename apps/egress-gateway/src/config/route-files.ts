import { KubeconfigError, Routes, kubeconfigRoutes, parseAllowEntry, parseKubeconfig, type Kubeconfig, type RouteSpec } from '@cli-mcp/egress';
import type { FlagReader } from '@cli-mcp/common';

/**
 * `--routes-file`: JSON `{"allow": ["host:port", …]}` (the routes ConfigMap of the gateway's Deployment). Each entry
 * is checked with the rules of `--egress-allow` (`parseAllowEntry`, C-EGR-2); every bad entry is a problem naming
 * the file and the entry. Returns the canonical keys, or undefined when the file is unusable.
 */
export async function readRoutesFile(flags: FlagReader, path: string, readFile: (path: string) => Promise<string>): Promise<string[] | undefined> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path));
  } catch (error) {
    flags.invalid('routes-file', `${path}: ${error instanceof SyntaxError ? `not JSON (${error.message})` : `cannot read it (${reason(error)})`}`);
    return undefined;
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    flags.invalid('routes-file', `${path}: expected an object {"allow": ["host:port", …]}`);
    return undefined;
  }
  const { allow, ...rest } = document as Record<string, unknown>;
  const before = flags.problems.length;
  // An unknown key is most likely a typo of a future field: refused rather than silently ignored.
  for (const key of Object.keys(rest)) flags.invalid('routes-file', `${path}: unknown key ${JSON.stringify(key)} (only "allow" is read)`);
  if (allow !== undefined && !Array.isArray(allow)) flags.invalid('routes-file', `${path}: "allow" must be an array of "host:port" strings`);
  const keys: string[] = [];
  (Array.isArray(allow) ? allow : []).forEach((entry: unknown, index) => {
    try {
      if (typeof entry !== 'string') throw new Error('not a string');
      keys.push(parseAllowEntry(entry));
    } catch (error) {
      flags.invalid('routes-file', `${path}: allow[${index}] ${JSON.stringify(entry)}: ${reason(error)}`);
    }
  });
  return flags.problems.length > before ? undefined : keys;
}

/** `--kubeconfig-file`: the investigation kubeconfig, every context routable (the local backend's rule). */
export async function readInvestigationKubeconfig(
  flags: FlagReader,
  path: string,
  readFile: (path: string) => Promise<string>,
  readFileSync: (path: string) => string,
): Promise<{ path: string; config: Kubeconfig } | undefined> {
  let text: string;
  try {
    text = await readFile(path);
  } catch (error) {
    flags.invalid('kubeconfig-file', `cannot read ${path}: ${reason(error)}`);
    return undefined;
  }
  try {
    const config = parseKubeconfig(text, path, readFileSync);
    kubeconfigRoutes(config, path);
    return { path, config };
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    flags.invalid('kubeconfig-file', error.message);
    return undefined;
  }
}

/** Both sources as one table; a conflict (one host:port both allowed and a cluster) is a start-up problem. */
export function combineRoutes(flags: FlagReader, allow: readonly string[], investigation: { path: string; config: Kubeconfig } | undefined): RouteSpec[] | undefined {
  const specs: RouteSpec[] = [
    ...allow.map((authority) => ({ kind: 'allow' as const, authority })),
    ...(investigation ? kubeconfigRoutes(investigation.config, investigation.path) : []),
  ];
  try {
    new Routes(specs);
    return specs;
  } catch (error) {
    flags.fail(`${flags.label('routes-file')}, ${flags.label('kubeconfig-file')}: ${reason(error)}`);
    return undefined;
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

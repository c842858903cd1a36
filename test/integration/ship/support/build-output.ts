import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/** Where test support may live in `dist/`: the dev-cluster app, never shipped. */
export const TESTING_LIB = 'libs/testing/';

/** A compiled module that is test support: a spec or test file, or anything under a `test/` or `testing/` folder. */
export function isTestSupport(relativePath: string): boolean {
  const parts = relativePath.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? '';
  return /\.(spec|test)\.[cm]?js$/.test(name) || parts.slice(0, -1).some((part) => part === 'test' || part === 'testing');
}

/** Every test-support module under `distDir` outside `dist/libs/testing/` (paths relative to `distDir`). */
export function strayTestSupport(distDir: string): string[] {
  return listFiles(distDir)
    .map((path) => relative(distDir, path).split(sep).join('/'))
    .filter((path) => /\.[cm]?js$/.test(path) && !path.startsWith(TESTING_LIB) && isTestSupport(path));
}

/** The shipped apps of nest-cli.json (applications outside libs/testing) and their built entry modules. */
export function shippedEntries(repoRoot: string): Array<{ app: string; entry: string }> {
  const nest = JSON.parse(readFileSync(join(repoRoot, 'nest-cli.json'), 'utf8')) as {
    projects: Record<string, { type: string; root: string; sourceRoot: string; entryFile: string }>;
  };
  return Object.entries(nest.projects)
    .filter(([, p]) => p.type === 'application' && !p.root.startsWith('libs/testing'))
    .filter(([, p]) => existsSync(join(repoRoot, p.sourceRoot, `${p.entryFile}.ts`)))
    .map(([app, p]) => ({ app, entry: join(repoRoot, 'dist', p.sourceRoot, `${p.entryFile}.js`) }));
}

/** An entry's import graph, from one esbuild pass (a maintained resolver, so the graph is Node's, not a regex's). */
export interface ImportGraph {
  /** The project's own modules the entry can load: static imports and dynamic imports of literal paths. */
  reachable: string[];
  /**
   * What loading `module` (default: the entry; any module of `reachable`) pulls in through static imports alone,
   * never following `import()` — what a process pays for just by starting. Packages are listed, not entered.
   */
  staticFrom(module?: string): { modules: string[]; packages: string[] };
  /** Every import of a package (or Node built-in) anywhere in `reachable`, with how it is imported. */
  externalImports: Array<{ from: string; path: string; dynamic: boolean }>;
}

export async function importGraph(entry: string, root: string): Promise<ImportGraph> {
  const result = await build({
    entryPoints: [entry], absWorkingDir: root, bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent',
    // protocol.sh is inlined as text into the agent, as scripts/bundle-agent.mjs does.
    loader: { '.sh': 'text' },
  });
  const inputs = result.metafile.inputs;
  const posix = (path: string): string => path.split(sep).join('/');
  return {
    reachable: Object.keys(inputs).map(posix),
    externalImports: Object.entries(inputs).flatMap(([from, input]) =>
      input.imports.filter((imported) => imported.external).map((imported) => ({ from: posix(from), path: imported.path, dynamic: imported.kind === 'dynamic-import' }))),
    staticFrom(module = posix(relative(root, entry))) {
      const seen = new Set([module]);
      const queue = [module];
      const packages = new Set<string>();
      while (queue.length > 0) {
        for (const imported of inputs[queue.pop()!]?.imports ?? []) {
          if (imported.kind === 'dynamic-import') continue;
          if (imported.external) packages.add(imported.path);
          else if (!seen.has(imported.path)) {
            seen.add(imported.path);
            queue.push(imported.path);
          }
        }
      }
      return { modules: [...seen].sort(), packages: [...packages].sort() };
    },
  };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

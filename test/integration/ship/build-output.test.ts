/**
 * Test doubles never ship (issue 7, C-SHIP-1): after a full build, no test-support module sits in dist/ outside
 * dist/libs/testing (the dev-cluster app), and no shipped app's entry can load anything from there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stop as stopEsbuild } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { importGraph, isTestSupport, shippedEntries, strayTestSupport } from './support/build-output.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// importGraph runs esbuild, whose JS API keeps a service process until stopped (C-TEST-1).
afterAll(() => stopEsbuild());
const entries = shippedEntries(ROOT);
const missing = entries.filter(({ entry }) => !existsSync(entry)).map(({ entry }) => entry);

describe(isTestSupport.name, () => {
  it('recognises specs, tests and modules under test/ or testing/ folders, and nothing else', () => {
    expect(['libs/session/test/fakes.js', 'libs/session/src/kubernetes/testing/strict-kube-api.js', 'apps/x/src/a.spec.js', 'b.test.mjs'].map(isTestSupport)).toEqual([true, true, true, true]);
    expect(['libs/session/src/session-manager.js', 'libs/podspec/src/testimony.js', 'apps/mcp-server/src/main.js'].map(isTestSupport)).toEqual([false, false, false]);
  });
});

describeWhenReady('dist/ after a full build', missing.length > 0 ? `not built (${missing.join(', ')}); run npm run build` : undefined, () => {
  it('holds no test-support module outside dist/libs/testing', () => {
    expect(strayTestSupport(join(ROOT, 'dist'))).toEqual([]);
  });

  it.each(entries.map(({ app, entry }) => [app, entry]))('%s: its entry reaches no test support', async (_app, entry) => {
    const { reachable: reached } = await importGraph(entry, ROOT);
    // Not vacuous: the entry really pulls in the shared libraries it is built from.
    expect(reached.some((path) => path.startsWith('dist/libs/'))).toBe(true);
    expect(reached.filter((path) => path.startsWith('dist/libs/testing/') || isTestSupport(path))).toEqual([]);
  });

  // Issue 19 item 5: the controller is built on libs/kube and libs/podspec; the session layer (and with it the local
  // backend) is the server's, and never ships in the controller.
  it('sandbox-controller reaches libs/kube and never libs/session', async () => {
    const { reachable } = await importGraph(join(ROOT, 'dist/apps/sandbox-controller/src/main.js'), ROOT);
    expect(reachable.some((path) => path.startsWith('dist/libs/kube/'))).toBe(true);
    expect(reachable.filter((path) => path.startsWith('dist/libs/session/'))).toEqual([]);
  });

  // Issue 20 item 3: the Kubernetes egress gateway is libs/egress on libs/kube's informer; no session layer.
  it('egress-gateway reaches libs/egress and libs/kube and never libs/session', async () => {
    const { reachable } = await importGraph(join(ROOT, 'dist/apps/egress-gateway/src/main.js'), ROOT);
    expect(reachable.some((path) => path.startsWith('dist/libs/egress/'))).toBe(true);
    expect(reachable.some((path) => path.startsWith('dist/libs/kube/'))).toBe(true);
    expect(reachable.filter((path) => path.startsWith('dist/libs/session/'))).toEqual([]);
  });

  // Issue 22 item 6: the controller, the operator and the egress gateway answer probes on libs/common's admin
  // listener; Nest, Fastify and Terminus (≈ 28 MB of idle RSS on Node 24) are never loaded by them.
  const isFramework = (specifier: string): boolean => /^(@nestjs\/|fastify$|fastify\/|@fastify\/)/.test(specifier);
  it.each(['sandbox-controller/src/run-controller.js', 'sandbox-controller/src/operator/run-operator.js', 'egress-gateway/src/run-gateway.js'])(
    '%s loads no web framework, statically or by import()',
    async (entry) => {
      const graph = await importGraph(join(ROOT, 'dist/apps', entry), ROOT);
      expect(graph.staticFrom().packages.filter(isFramework)).toEqual([]);
      expect(graph.externalImports.filter(({ path }) => isFramework(path))).toEqual([]);
      // …while the check itself sees a framework where one is imported.
      expect((await importGraph(join(ROOT, 'dist/apps/mcp-server/src/http-server.js'), ROOT)).staticFrom().packages.some(isFramework)).toBe(true);
    },
  );

  // A laptop server (local backend) must not pay for the Kubernetes client: ≈ 90 MB RSS and ≈ 0.4 s (docs/server.md).
  const KUBE_CLIENT = '@kubernetes/client-node';
  const isKubeClient = (specifier: string): boolean => specifier === KUBE_CLIENT || specifier.startsWith(`${KUBE_CLIENT}/`);
  it.each(['stdio-server.js', 'http-server.js'])('mcp-server %s loads the Kubernetes client only through import()', async (transport) => {
    const graph = await importGraph(join(ROOT, 'dist/apps/mcp-server/src', transport), ROOT);
    const { packages } = graph.staticFrom();
    expect(packages).toContain('@modelcontextprotocol/sdk/server/index.js');
    expect(packages.filter(isKubeClient)).toEqual([]);
    // …and the kubernetes backend does get it, by the dynamic path.
    expect(graph.reachable).toContain('dist/apps/mcp-server/src/sessions/kubernetes-client.js');
    expect(graph.staticFrom('dist/apps/mcp-server/src/sessions/kubernetes-client.js').packages.some(isKubeClient)).toBe(true);
  });

  it('the server bundle (what bin/ runs) keeps the transports and the Kubernetes client in chunks loaded by import()', async () => {
    const graph = await importGraph(join(ROOT, 'dist/mcp-server/main.js'), ROOT);
    const startup = graph.staticFrom();
    const chunk = (name: string): string[] => graph.reachable.filter((path) => new RegExp(`^dist/mcp-server/${name}-[A-Z0-9]+\\.js$`).test(path));
    // The egress gateway (TLS termination, X.509) is loaded only by a --local-network proxy server (docs/egress.md).
    // undici (the agent client's HTTP) too: a server without sessions does not carry it (issue 22 item 6).
    for (const name of ['kubernetes-client', 'stdio-server', 'http-server', 'local-egress', 'undici']) {
      expect(chunk(name)).toHaveLength(1);
      expect(startup.modules).not.toContain(chunk(name)[0]);
    }
    // The stdio transport, as a host starts it, does not pull the Kubernetes chunk in either.
    const stdio = graph.staticFrom(chunk('stdio-server')[0]);
    expect(stdio.modules).not.toContain(chunk('kubernetes-client')[0]);
    // Bundled: no package of node_modules is loaded at runtime, so the bundle runs without node_modules.
    expect(startup.packages.filter((specifier) => !specifier.startsWith('node:'))).toEqual([]);
    // Nor by any transport or the Kubernetes chunk: their static imports are Node's built-ins; the only packages
    // left outside are Nest's optional ones, behind import() that the server never takes.
    const packages = graph.externalImports.filter(({ path }) => !isBuiltin(path));
    expect(packages.filter(({ dynamic }) => !dynamic)).toEqual([]);
    const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    expect([...new Set(packages.map(({ path }) => packageOf(path)))].sort()).toEqual([
      '@fastify/multipart', '@fastify/static', '@fastify/view', '@nestjs/microservices', '@nestjs/platform-express', '@nestjs/websockets', 'class-transformer',
    ]);
  });
});

// Issue 22 item 6: what the bundles of scripts/bundle-nest-app.mjs leave out to keep the apps' idle RSS down.
describe.each(['mcp-server', 'sandbox-controller', 'egress-gateway'])('the %s bundle', (app) => {
  const chunks = (): Array<[string, string]> =>
    readdirSync(join(ROOT, 'dist', app)).filter((name) => name.endsWith('.js')).map((name) => [name, readFileSync(join(ROOT, 'dist', app, name), 'utf8')]);

  it('is minified: no chunk keeps doc comments, whose text V8 would hold (and one "—" made a chunk two-byte)', () => {
    const found = chunks();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter(([, text]) => /\n\s*\/\*\*\s/.test(text)).map(([name]) => name)).toEqual([]);
  });

  it('holds libphonenumber-js only as the stand-in that refuses to be used, and builds Nest\'s date formatters lazily', () => {
    const text = chunks().map(([, body]) => body).join('\n');
    expect(text).not.toMatch(/country_calling_codes/);
    expect(text).not.toMatch(/dateTimeFormatter\d*\s*=\s*new Intl\.DateTimeFormat\(/);
    // The settings classes of every app are validated with class-validator, whose IsPhoneNumber meets the stand-in.
    expect(text).toContain('libphonenumber-js is not bundled');
    // Only the server still bundles Nest (the controller and the gateway serve on libs/common's admin listener).
    // Nest's ConsoleLogger is named in the bundle (names are kept) wherever @nestjs/common is.
    const nest = text.includes('"ConsoleLogger"');
    expect(nest).toBe(app === 'mcp-server');
    if (nest) expect(text).toMatch(/made\s*\?\?=\s*new Intl\.DateTimeFormat\(/);
  });
});

// Issue 22 item 6: the three rewrites of scripts/bundle-nest-app.mjs that keep Node's lazy built-ins unloaded, every
// chunk's source one-byte, and whatwg-url's IDNA table out.
describe.each(['mcp-server', 'sandbox-controller', 'egress-gateway'])('the %s bundle, as Node holds it', (app) => {
  const dir = join(ROOT, 'dist', app);
  const chunks = (): Array<[string, string]> =>
    readdirSync(dir).filter((name) => name.endsWith('.js')).map((name) => [name, readFileSync(join(dir, name), 'utf8')]);

  it('imports no built-in as an ES module (the namespace would read every lazy export), only through require()', () => {
    const imported = chunks().flatMap(([name, text]) =>
      [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']((?:node:)?[a-z][a-z0-9_/]*)["']/g)]
        .map((match) => match[1]!)
        .filter((specifier) => isBuiltin(specifier) && specifier !== 'node:module')
        .map((specifier) => `${name}: ${specifier}`));
    expect(imported).toEqual([]);
    // …while require() of built-ins is there (the banner's createRequire serves it).
    expect(chunks().some(([, text]) => text.includes('__require("node:http")'))).toBe(true);
  });

  // Fails without the rewrite on Node 22 and later (Node 20's http has no such getter). The server's chunk of the
  // userland undici (its agent client, loaded at the first call to an agent) is left out: it reads Node's web classes
  // (File, web streams), which load the internal one.
  it('loaded whole, never loads Node\'s internal undici (an ESM import of node:http reads its WebSocket getter, which loads it)', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.js') && name !== 'main.js' && !name.startsWith('undici-'));
    expect(files.length).toBeGreaterThan(1);
    const script = `for (const f of ${JSON.stringify(files)}) await import(${JSON.stringify(`${pathToFileURL(dir).href}/`)} + f);
      process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('internal/deps/undici'))));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('holds each chunk as a one-byte string: no character past Latin-1 (validator\'s locale tables are escaped)', () => {
    const wide = chunks().filter(([, text]) => /[\u0100-\uffff]/.test(text)).map(([name]) => name);
    expect(wide).toEqual([]);
    // Not vacuous: validator's alpha tables are in every bundle (class-validator), now as \u escapes.
    expect(chunks().some(([, text]) => text.includes('"bg-BG":/^[\\u0410-\\u042f]+$/i'))).toBe(true);
  });

  it('gives node-fetch Node\'s URL instead of whatwg-url (whose tr46 builds a 260 KB table on load)', () => {
    const text = chunks().map(([, body]) => body).join('\n');
    expect(text).not.toMatch(/node_modules\/(whatwg-url|tr46|punycode)\//);
    expect(text).toContain('node_modules/node-fetch/');
    expect(text).toContain('"node-fetch-url:whatwg-url"');
  });
});

describe('the checks themselves', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-dist-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  };

  it('find a test double compiled next to production code', () => {
    write('dist/libs/session/src/index.js', 'export const a = 1;\n');
    write('dist/libs/session/src/kubernetes/testing/strict-kube-api.js', 'export const b = 2;\n');
    write('dist/libs/session/test/fakes.js', 'export const c = 3;\n');
    write('dist/libs/testing/src/fake.js', 'export const d = 4;\n');
    expect(strayTestSupport(join(scratch, 'dist')).sort()).toEqual(['libs/session/src/kubernetes/testing/strict-kube-api.js', 'libs/session/test/fakes.js']);
  });

  it('tell packages imported statically from those only reached by import()', async () => {
    write('dist/apps/pkg/src/main.js', "import './a.js';\nif (process.env.X) await import('./b.js');\n");
    write('dist/apps/pkg/src/a.js', "import 'static-package';\nexport const a = 1;\n");
    write('dist/apps/pkg/src/b.js', "import 'lazy-package';\nexport const b = 1;\n");
    expect((await importGraph(join(scratch, 'dist/apps/pkg/src/main.js'), scratch)).staticFrom().packages).toEqual(['static-package']);
  });

  it('follow static and dynamic imports from an entry into libs/testing', async () => {
    write('dist/apps/app/src/main.js', "import '../../../libs/session/src/index.js';\nif (process.env.X) await import('../../../libs/testing/src/fake.js');\n");
    const { reachable: reached } = await importGraph(join(scratch, 'dist/apps/app/src/main.js'), scratch);
    expect(reached).toContain('dist/libs/testing/src/fake.js');
  });
});

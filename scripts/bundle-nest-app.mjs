#!/usr/bin/env node
// Bundles a built Nest app — the MCP server or the sandbox controller — into dist/<app>/ (docs/server.md,
// "Startup"; docs/controller.md): an ESM entry plus chunks, so Node does not resolve and read ~1,000 modules one
// file at a time when a host spawns a stdio server or a pod starts the controller. Code splitting keeps what
// `import()` loads lazy — the server's transports and its Kubernetes client (kubernetes-client.js), which a
// local-backend server never loads; the controller's runtime, which --help and flag errors never load. The
// unbundled build in dist/apps/<app> stays the input. Usage: node scripts/bundle-nest-app.mjs <app>.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

// egress-gateway (cli-mcp-egress) is no Nest app, but ships the same way: one ESM bundle with lazy chunks.
const APPS = ['mcp-server', 'sandbox-controller', 'egress-gateway'];
const app = process.argv[2];
if (!APPS.includes(app)) {
  console.error(`usage: bundle-nest-app.mjs <${APPS.join('|')}>; got ${JSON.stringify(app)}`);
  process.exit(2);
}
const outdir = `dist/${app}`;

// class-validator's index loads IsPhoneNumber and with it libphonenumber-js's metadata (~370 KB of code, ~2.5 MB of
// idle RSS in each app on Node 24). No settings class validates a phone number, so the bundle gets a stand-in whose
// only export fails loudly if one ever does (issue 22 item 6: idle RSS).
const noPhoneNumbers = {
  name: 'no-phone-numbers',
  setup(builder) {
    builder.onResolve({ filter: /^libphonenumber-js(\/.*)?$/ }, (args) => ({ path: args.path, namespace: 'no-phone-numbers' }));
    builder.onLoad({ filter: /.*/, namespace: 'no-phone-numbers' }, () => ({
      contents: "export function parsePhoneNumber() { throw new Error('libphonenumber-js is not bundled (scripts/bundle-nest-app.mjs): no setting may use IsPhoneNumber'); }",
      loader: 'js',
    }));
  },
};

// @nestjs/common builds an Intl.DateTimeFormat when its logger modules load, for timestamps of its console logger,
// which our apps replace with pino (PinoLoggerService). Building one touches ICU's locale and zone data: ~8 MB of
// idle RSS on Node 24. The bundle makes both formatters lazy (built on first format(), as they would be if a console
// logger ever printed); a Nest release that changes these lines fails the build here rather than silently
// bringing the cost back (issue 22 item 6).
const NEST_FORMATTERS = /node_modules\/@nestjs\/common\/services\/(console-logger|logger)\.service\.js$/;
const lazyNestDateFormat = {
  name: 'lazy-nest-date-format',
  setup(builder) {
    builder.onLoad({ filter: NEST_FORMATTERS }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const eager = 'const dateTimeFormatter = new Intl.DateTimeFormat(';
      if (source.split(eager).length !== 2) throw new Error(`${args.path}: expected one "${eager}" (scripts/bundle-nest-app.mjs, lazy-nest-date-format)`);
      const lazy = 'const dateTimeFormatter = ((locale, options) => { let made; return { format: (date) => (made ??= new Intl.DateTimeFormat(locale, options)).format(date) }; })(';
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `dist/apps/${app}/src/main.js` },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir,
  sourcemap: 'linked',
  // Whitespace and comments out, syntax shortened, names kept (Nest and the logs use class names): V8 holds each
  // chunk's source for its lazy compiles, and one comment with a non-Latin-1 character ("—") made a whole chunk a
  // two-byte string. Together ~6–8 MB of idle RSS per app (issue 22 item 6, docs/benchmarks.md).
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  plugins: [noPhoneNumbers, lazyNestDateFormat],
  logLevel: 'error',
  // Optional packages of Nest and its Fastify adapter that neither app uses (imported only when an app asks).
  external: [
    '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*', '@nestjs/platform-express',
    '@fastify/multipart', '@fastify/static', '@fastify/view',
    // Nest's ValidationPipe and ClassSerializerInterceptor load it lazily; neither app uses either (issue 19: not a dependency).
    'class-transformer',
  ],
  // whatwg-url (under the Kubernetes client's node-fetch) requires Node's deprecated `punycode` module, which prints
  // a DEP0040 warning on Node 22+; the userland package of the same API takes its place (issue 22 item 7).
  alias: { punycode: 'punycode/' },
  // CommonJS packages inside an ESM bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __cliMcpCreateRequire } from 'node:module'; const require = __cliMcpCreateRequire(import.meta.url);" },
});

#!/usr/bin/env node
// Bundles a built Nest app — the MCP server or the sandbox controller — into dist/<app>/ (docs/server.md,
// "Startup"; docs/controller.md): an ESM entry plus chunks, so Node does not resolve and read ~1,000 modules one
// file at a time when a host spawns a stdio server or a pod starts the controller. Code splitting keeps what
// `import()` loads lazy — the server's transports and its Kubernetes client (kubernetes-client.js), which a
// local-backend server never loads; the controller's runtime, which --help and flag errors never load. The
// unbundled build in dist/apps/<app> stays the input. Usage: node scripts/bundle-nest-app.mjs <app>.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
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

// An ESM `import … from 'node:http'` makes Node build a module namespace of every export, so it reads each lazy
// property of the built-in: http's WebSocket, CloseEvent and MessageEvent load Node's internal undici (and with it
// http2), readline's `promises` loads readline/promises, and so on. require() returns the same object and reads
// nothing. So every import of a built-in becomes require() through the banner's createRequire, which CommonJS
// packages in the bundle use already: ~5 MB of idle RSS in each app on Node 24 (issue 22 item 6). Named imports
// still work (esbuild reads them off the object at use); a name the running Node lacks is `undefined` here rather
// than a link error, which the type check covers.
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?[a-z][a-z0-9_/]*$/ }, (args) => {
      if (args.namespace === 'builtin-by-require' || !isBuiltin(args.path)) return undefined;
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      return { path: args.path, namespace: 'builtin-by-require' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

// V8 keeps each chunk's source for its lazy compiles, as a one-byte string while every character is Latin-1, and
// as a two-byte one (twice the memory) once one is not. esbuild escapes non-ASCII characters in strings, templates
// and identifiers, but leaves regular-expression literals as they are, and validator's locale tables (alpha.js,
// isVAT.js, loaded by class-validator) are such literals in Cyrillic, Arabic, CJK…: they made the chunk holding them
// two-byte, 0.4–0.7 MB more in each app. So a package file with a character past Latin-1 has each one written as a
// \u escape, which means the same character in a string, an identifier and a regular expression (a surrogate pair
// too, with or without the u flag) — but not after a backslash (`\ж` would become `\\u…`) nor in String.raw, and
// the build fails naming the file rather than change its meaning (issue 22 item 6). ES module packages (.mjs) are left
// alone: the MCP SDK's have such characters in String.raw, none in a regular expression, and build-output.test.ts
// fails on any chunk that turns two-byte.
const NON_LATIN1 = /[\u0100-\uffff]/;
const latin1Sources = {
  name: 'latin1-sources',
  setup(builder) {
    builder.onLoad({ filter: /node_modules\/.*\.c?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!NON_LATIN1.test(source)) return undefined;
      if (/\\[\u0100-\uffff]/.test(source) || source.includes('String.raw')) {
        throw new Error(`${args.path}: a character past Latin-1 after a backslash or in String.raw (scripts/bundle-nest-app.mjs, latin1-sources)`);
      }
      const escape = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
      return { contents: source.replace(new RegExp(NON_LATIN1, 'g'), escape), loader: 'js' };
    });
  },
};

// node-fetch (under the Kubernetes client) requires whatwg-url only for the URL class of Node versions that had
// none (`Url.URL || whatwgUrl.URL`), and whatwg-url's tr46 builds its IDNA mapping table (260 KB of array literal)
// when it loads: ~3 MB of idle RSS in each app that loads the client, for a class never used. node-fetch gets a
// stand-in with Node's own URL (issue 22 item 6). tr46 also required Node's deprecated `punycode` module, which
// printed a DEP0040 warning on Node 22+ (item 7); with it out of the bundles, no package there requires punycode.
const nodeFetchUrl = {
  name: 'node-fetch-url',
  setup(builder) {
    builder.onResolve({ filter: /^whatwg-url$/ }, (args) => {
      if (!/node_modules\/node-fetch\//.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'node-fetch-url' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'node-fetch-url' }, () => ({
      contents: 'module.exports = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams };',
      loader: 'js',
    }));
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
  plugins: [noPhoneNumbers, lazyNestDateFormat, builtinsByRequire, latin1Sources, nodeFetchUrl],
  logLevel: 'error',
  // Optional packages of Nest and its Fastify adapter that neither app uses (imported only when an app asks).
  external: [
    '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*', '@nestjs/platform-express',
    '@fastify/multipart', '@fastify/static', '@fastify/view',
    // Nest's ValidationPipe and ClassSerializerInterceptor load it lazily; neither app uses either (issue 19: not a dependency).
    'class-transformer',
  ],
  // CommonJS packages inside an ESM bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __cliMcpCreateRequire } from 'node:module'; const require = __cliMcpCreateRequire(import.meta.url);" },
});

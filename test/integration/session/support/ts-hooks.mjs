// Module hooks that let a plain `node` process (the orphan test's parent) import the TypeScript sources:
// `@cli-mcp/<lib>` → libs/<lib>/src/index.ts, relative `.js` → `.ts`, transpiled with @swc/core.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

const root = new URL('../../../../', import.meta.url);

export async function resolve(specifier, context, next) {
  const lib = /^@cli-mcp\/([a-z-]+)$/.exec(specifier);
  if (lib) return { url: new URL(`libs/${lib[1]}/src/index.ts`, root).href, shortCircuit: true };
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const filename = fileURLToPath(url);
  const { code } = transformSync(await readFile(filename, 'utf8'), {
    filename,
    module: { type: 'es6' },
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
  });
  return { format: 'module', source: code, shortCircuit: true };
}

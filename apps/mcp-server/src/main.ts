import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createRootLogger, resolveVersion, routeProcessWarnings, settleConfigOutcome } from '@cli-mcp/common';
import { loadServerConfig } from './config/load-server-config.js';

/**
 * Entry point: one validated configuration (C-CFG-1) — nothing starts when it has problems — then the chosen
 * transport. Only this file touches argv and the environment.
 */
async function main(): Promise<void> {
  const outcome = await loadServerConfig({
    argv: process.argv.slice(2),
    env: process.env,
    homeDir: homedir(),
    cwd: process.cwd(),
    version: resolveVersion(import.meta.url, process.env),
    readFile: (path) => readFile(path, 'utf8'),
    randomSuffix: () => randomBytes(4).toString('hex'),
  });
  const run = settleConfigOutcome('cli-mcp-server', outcome);
  if (!run) return;
  const { config, warnings } = run;
  const logger = createRootLogger({ level: config.logLevel, base: { server: 'cli-mcp-server' } });
  routeProcessWarnings(logger);
  for (const warning of warnings) logger.warn(warning);
  const options = { config, logger };
  // Loaded only now, so --help, --version and flag errors answer without loading Nest and the SDK.
  if (config.transport === 'http') await (await import('./http-server.js')).runHttpServer(options);
  else await (await import('./stdio-server.js')).runStdioServer(options);
}

main().catch((error: unknown) => {
  // Startup failures (port in use, unusable state dir …): one clear line, no stack for expected errors.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`cli-mcp-server: ${message}\n`);
  process.exit(1);
});

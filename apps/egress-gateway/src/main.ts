import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { createRootLogger, resolveVersion, routeProcessWarnings, settleConfigOutcome } from '@cli-mcp/common';
import { loadEgressConfig } from './config/load-egress-config.js';

/**
 * Entry point of `cli-mcp-egress`, the Kubernetes backend's egress gateway (issue 20 item 3, docs/egress.md
 * "Kubernetes"): one validated configuration (C-CFG-1) — nothing starts on a bad flag or routes file — then the
 * gateway. Only this file touches argv and the environment.
 */
async function main(): Promise<void> {
  const outcome = await loadEgressConfig({
    argv: process.argv.slice(2),
    env: process.env,
    version: resolveVersion(import.meta.url, process.env),
    cwd: process.cwd(),
    readFile: (path) => readFile(path, 'utf8'),
  });
  const run = settleConfigOutcome('cli-mcp-egress', outcome);
  if (!run) return;
  const { config } = run;
  const logger = createRootLogger({ level: config.logLevel, base: { server: 'cli-mcp-egress' } });
  routeProcessWarnings(logger);
  // Every session's egress goes through this process: a stray error is logged, never the end of all of them.
  process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception (ignored)'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection (ignored)'));
  // Loaded only now, so --help, --version and flag errors answer without loading the Kubernetes client.
  await (await import('./run-gateway.js')).runGateway(config, logger);
}

main().catch((error: unknown) => {
  // Start-up failures (an unusable CA Secret, a port in use): one clear line, no stack.
  process.stderr.write(`cli-mcp-egress: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createRootLogger, resolveVersion, routeProcessWarnings, settleConfigOutcome } from '@cli-mcp/common';

import { loadControllerConfig } from './config/load-controller-config.js';

/**
 * Entry point of `sandbox-controller`: one validated configuration (C-CFG-1) — nothing starts when it has
 * problems — then the controller. Only this file touches argv and the environment.
 */
async function main(): Promise<void> {
  const outcome = loadControllerConfig({
    argv: process.argv.slice(2),
    env: process.env,
    version: resolveVersion(import.meta.url, process.env),
    hostname: hostname(),
    randomSuffix: () => randomBytes(4).toString('hex'),
  });
  const run = settleConfigOutcome('sandbox-controller', outcome);
  if (!run) return;
  const { config, warnings } = run;
  const logger = createRootLogger({ level: config.logLevel, base: { server: 'sandbox-controller', identity: config.identity } });
  routeProcessWarnings(logger);
  for (const warning of warnings) logger.warn(warning);
  // Loaded only now, so --help, --version and flag errors answer without loading client-node.
  if (config.mode === 'operator') await (await import('./operator/run-operator.js')).runOperator(config, logger);
  else await (await import('./run-controller.js')).runController(config, logger);
}

main().catch((error: unknown) => {
  // Startup failures (no kubeconfig, port in use): one clear line, no stack for expected errors.
  process.stderr.write(`sandbox-controller: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

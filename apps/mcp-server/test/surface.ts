import type { ServerConfig } from '../src/config/server-config.js';
import { BashToolService } from '../src/mcp/bash-tool.service.js';
import { EagerAcquisition } from '../src/mcp/eager-acquisition.js';
import { McpSurface } from '../src/mcp/mcp-surface.js';
import { RunningCalls } from '../src/mcp/running-calls.js';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { memoryLogger, StrictSessionService, testConfig } from './fakes.js';

/** The one MCP surface over a strict session fake, with the parts specs look at. */
export function testSurface(config: ServerConfig = testConfig()) {
  const sessions = new StrictSessionService();
  const running = new RunningCalls();
  const metrics = new MetricsService();
  const { logger, lines } = memoryLogger();
  const bash = new BashToolService(sessions, config, logger, running);
  const surface = new McpSurface(config, sessions, logger, metrics, new EagerAcquisition(config, sessions, logger), running, bash);
  return { surface, sessions, running, metrics, logger, logLines: lines };
}

import { AgentClient } from '@cli-mcp/agent-client';
import { SessionMetrics } from '@cli-mcp/session';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { memoryLogger, testConfig } from '../../test/fakes.js';
import { localBackendOptions } from './create-session-service.js';

describe('localBackendOptions', () => {
  it('gives local sandboxes the one --ready-timeout and the server\'s timeout bounds (issue 19 item 4, C-AG-14)', () => {
    const config = testConfig({ readyTimeoutMs: 7_000 });
    const agent = new AgentClient();
    const options = localBackendOptions(config, Buffer.alloc(32), agent, new SessionMetrics(new Registry()), memoryLogger().logger);
    agent.close();
    expect(options).toMatchObject({
      readyTimeoutMs: 7_000,
      defaultTimeoutSeconds: config.tool.defaultTimeoutSeconds,
      maxTimeoutSeconds: config.tool.maxTimeoutSeconds,
      stateDir: config.local.sandboxDir,
    });
  });
});

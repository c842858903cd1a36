import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/fakes.js';
import { localBackendConfig } from './create-session-service.js';

describe(localBackendConfig.name, () => {
  it('gives local sandboxes the one --ready-timeout and the server\'s timeout bounds (issue 19 item 4, C-AG-14)', () => {
    const config = testConfig({ readyTimeoutMs: 7_000 });
    expect(localBackendConfig(config, Buffer.alloc(32))).toMatchObject({
      readyTimeoutMs: 7_000,
      defaultTimeoutSeconds: config.tool.defaultTimeoutSeconds,
      maxTimeoutSeconds: config.tool.maxTimeoutSeconds,
      stateDir: config.local.sandboxDir,
    });
  });
});

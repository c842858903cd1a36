import { describe, expect, it } from 'vitest';
import { FakeHostFs } from '../../test/local-fakes.js';
import { checkReadOnlyBinds } from './read-only-binds.js';

describe(checkReadOnlyBinds.name, () => {
  const hostFs = new FakeHostFs();
  hostFs.real.set('/opt/models', '/opt/models');
  hostFs.real.set('/srv/link', '/users/me/.local/state');
  const rules = { hostFs, stateDir: '/users/me/.local/state/cli-mcp-server', secretPaths: ['/etc/cli-mcp/hmac.key'] };

  it('accepts existing paths that expose nothing private, as their real paths', async () => {
    await expect(checkReadOnlyBinds(['/opt/models'], rules)).resolves.toEqual(['/opt/models']);
  });

  it('refuses the state dir, a path holding it (also through a symlink), a secret, reserved paths and relative paths, all at once', async () => {
    const error = await checkReadOnlyBinds(
      ['/users/me/.local/state/cli-mcp-server/sessions', '/users', '/srv/link', '/etc', '/', '/run/user/1000', 'data'],
      rules,
    ).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      '--local-ro-bind (env CLI_MCP_LOCAL_RO_BIND): /users/me/.local/state/cli-mcp-server/sessions would expose the state directory ' +
        '/users/me/.local/state/cli-mcp-server; /users would expose the state directory /users/me/.local/state/cli-mcp-server; ' +
        '/srv/link (/users/me/.local/state) would expose the state directory /users/me/.local/state/cli-mcp-server; ' +
        '/etc would expose the secret file /etc/cli-mcp/hmac.key; / is the whole host; /run/user/1000 is the sandbox\'s own /run; ' +
        'data is not an absolute path',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { FakeHostFs } from '../../test/local-fakes.js';
import { assertAgentPresent } from './local-health.js';

const ENTRY = '/opt/cli-mcp-server/dist/sandbox-agent/main.js';

describe(assertAgentPresent.name, () => {
  it('passes when the agent bundle is there', async () => {
    const hostFs = new FakeHostFs();
    hostFs.files.add(ENTRY);
    await expect(assertAgentPresent(ENTRY, hostFs, '/usr/bin')).resolves.toBeUndefined();
  });

  it('in a checkout, says to build it', async () => {
    const hostFs = new FakeHostFs();
    hostFs.files.add('/opt/cli-mcp-server/scripts/build.mjs');
    await expect(assertAgentPresent(ENTRY, hostFs, '/usr/bin')).rejects.toThrow(`sandbox agent not found at ${ENTRY}: build it first (npm run build)`);
  });

  it('elsewhere (the server image), says the installation is for --backend kubernetes and names what is missing', async () => {
    const hostFs = new FakeHostFs();
    await expect(assertAgentPresent(ENTRY, hostFs, '/usr/local/bin:/usr/bin')).rejects.toThrow(
      '--backend local cannot run in this installation: it has no sandbox agent bundle (dist/sandbox-agent) and no bubblewrap (bwrap). The server image is for --backend kubernetes',
    );
    hostFs.files.add('/usr/bin/bwrap');
    const error = await assertAgentPresent(ENTRY, hostFs, '/usr/local/bin:/usr/bin').catch((e: Error) => e);
    expect(String(error)).toContain('it has no sandbox agent bundle (dist/sandbox-agent). The server image');
  });
});

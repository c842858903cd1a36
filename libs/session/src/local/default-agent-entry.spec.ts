import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultAgentEntry } from './default-agent-entry.js';

describe('defaultAgentEntry', () => {
  it('points from the compiled lib to the agent bundle dist/sandbox-agent/main.js', () => {
    const compiled = pathToFileURL('/srv/app/dist/libs/session/src/local/default-agent-entry.js').href;
    expect(defaultAgentEntry(compiled)).toBe('/srv/app/dist/sandbox-agent/main.js');
  });

  it('points from a chunk of the server bundle (dist/mcp-server/) to its sibling dist/sandbox-agent/main.js', () => {
    const chunk = pathToFileURL('/opt/cli-mcp-server/dist/mcp-server/chunk-ABCD1234.js').href;
    expect(defaultAgentEntry(chunk)).toBe('/opt/cli-mcp-server/dist/sandbox-agent/main.js');
  });

  it('points from the sources to the build output of the repository', () => {
    const source = pathToFileURL('/repo/libs/session/src/local/default-agent-entry.ts').href;
    expect(defaultAgentEntry(source)).toBe('/repo/dist/sandbox-agent/main.js');
  });
});

import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultAgentEntry } from './default-agent-entry.js';

describe('defaultAgentEntry', () => {
  it('points from the compiled lib to dist/apps/sandbox-agent/src/main.js', () => {
    const compiled = pathToFileURL('/srv/app/dist/libs/session/src/local/default-agent-entry.js').href;
    expect(defaultAgentEntry(compiled)).toBe('/srv/app/dist/apps/sandbox-agent/src/main.js');
  });

  it('points from the sources to the build output of the repository', () => {
    const source = pathToFileURL('/repo/libs/session/src/local/default-agent-entry.ts').href;
    expect(defaultAgentEntry(source)).toBe('/repo/dist/apps/sandbox-agent/src/main.js');
  });
});

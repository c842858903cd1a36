import { describe, expect, it } from 'vitest';
import { agentPortOf, mapPath } from './pod-sandbox.js';

describe(agentPortOf.name, () => {
  it('prefers a declared containerPort, then a literal SANDBOX_AGENT_PORT, then the default', () => {
    expect(agentPortOf({ ports: [{ containerPort: 9000 }], env: [{ name: 'SANDBOX_AGENT_PORT', value: '9100' }] }, 8090)).toBe(9000);
    expect(agentPortOf({ env: [{ name: 'SANDBOX_AGENT_PORT', value: '9100' }] }, 8090)).toBe(9100);
    expect(agentPortOf({}, 8090)).toBe(8090);
  });
});

describe(mapPath.name, () => {
  it('rewrites values inside mounted volumes only', () => {
    const mounts = new Map([['/workspace', '/tmp/pod/volumes/workspace']]);
    expect(mapPath('/workspace', mounts)).toBe('/tmp/pod/volumes/workspace');
    expect(mapPath('/workspace/.cli-mcp', mounts)).toBe('/tmp/pod/volumes/workspace/.cli-mcp');
    expect(mapPath('/workspaces', mounts)).toBe('/workspaces');
    expect(mapPath('/config/kubeconfig', mounts)).toBe('/config/kubeconfig');
  });
});

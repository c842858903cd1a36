import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/fakes.js';
import { testSurface } from '../../test/surface.js';
import { McpSurface } from './mcp-surface.js';
import { ProtocolError } from './protocol-error.js';

function setup(config = testConfig()) {
  const { surface: sut, sessions, metrics, logLines } = testSurface(config);
  const count = async (labels: string): Promise<string | undefined> =>
    (await metrics.render()).split('\n').find((line) => line.startsWith(`mcp_calls_total{server="cli-mcp-server",${labels}}`));
  return { sut, sessions, count, logLines };
}

const call = { sessionId: 's-1', requestId: 1, progressToken: undefined, signal: new AbortController().signal, sendNotification: async () => undefined };

describe(McpSurface.name, () => {
  it('builds the tool from the whole validated tool config: yield and timeouts reach every path (issue 19)', () => {
    const base = testConfig();
    const { sut } = setup(testConfig({ tool: { ...base.tool, yieldAfterMs: 7000, defaultTimeoutSeconds: 45, maxTimeoutSeconds: 90 } }));
    const [bash] = sut.listTools(undefined).tools;
    expect(bash?.description).toContain('A command still running after 7 s becomes a background job');
    expect(bash?.description).toContain('time out after 45 s');
    expect(bash?.inputSchema.properties?.['timeout']).toMatchObject({ description: 'Max execution time in seconds (default 45, max 90)' });
  });

  it('refuses an unknown tool as invalid params naming it, meters the call as a failure and logs it like every call', async () => {
    const { sut, count, logLines } = setup();
    await expect(sut.callTool('python', {}, call)).rejects.toEqual(new ProtocolError(-32602, 'unknown tool "python"'));
    expect(await count('method="tools/call",name="unknown",success="false"')).toMatch(/ 1$/);
    expect(logLines()).toContainEqual(expect.objectContaining({ event: 'tool_call', session_id: 's-1', outcome: 'rejected', reason: 'unknown_tool', tool: 'python' }));
  });

  it('meters tool methods once: what an era adapter reports of them is not counted again (Go §11)', async () => {
    const { sut, count } = setup();
    sut.listTools(undefined);
    sut.observeProtocol('tools/list', undefined, true, 0);
    sut.observeProtocol('initialize', undefined, true, 0);
    expect(await count('method="tools/list",name="",success="true"')).toMatch(/ 1$/);
    expect(await count('method="initialize",name="",success="true"')).toMatch(/ 1$/);
  });
});

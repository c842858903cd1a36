import type { IncomingHttpHeaders } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isLegacyPost } from './modern-exchange.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (params: object) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true' }, ...params } });
const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'bash' };

const cases: Array<[string, IncomingHttpHeaders, unknown]> = [
  ['initialize', {}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }],
  ['a 2025 call with its version header', { 'mcp-protocol-version': '2025-06-18' }, call({})],
  ['a call without any claim', {}, call({})],
  ['a notification', {}, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
  ['a batch', {}, [call({}), { jsonrpc: '2.0', id: 2, method: 'tools/list' }]],
  ['a response', {}, { jsonrpc: '2.0', id: 1, result: {} }],
  ['a 2026 call with envelope and headers', modernHeaders, call({ _meta: meta })],
  ['a 2026 call whose Mcp-Name disagrees', { ...modernHeaders, 'mcp-name': 'other' }, call({ _meta: meta })],
  ['a 2026 call without routing headers', { 'mcp-protocol-version': '2026-07-28' }, call({ _meta: meta })],
  ['server/discover', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }],
  ['a 2026 envelope under a 2025 header', { 'mcp-protocol-version': '2025-06-18' }, call({ _meta: meta })],
  ['a repeated header', { ...modernHeaders, 'mcp-method': ['tools/call', 'tools/list'] }, call({ _meta: meta })],
  ['not JSON-RPC at all', {}, { hello: 1 }],
  ['a string body', {}, 'not json'],
  ['null', {}, null],
];

function webRequest(headers: IncomingHttpHeaders): Request {
  const init = new Headers();
  for (const [name, value] of Object.entries(headers)) for (const item of [value ?? []].flat()) init.append(name, item);
  return new Request('http://127.0.0.1/mcp', { method: 'POST', headers: init });
}

// Issue 11: the era is decided on Node's headers, without a Web Request — and must be the SDK's decision exactly.
describe(isLegacyPost.name, () => {
  it.each(cases)('agrees with the SDK\'s isLegacyRequest for %s', async (_name, headers, body) => {
    expect(isLegacyPost(headers, body)).toBe(await isLegacyRequest(webRequest(headers), body));
  });

  it('routes both eras (the table above covers each)', async () => {
    const decisions = await Promise.all(cases.map(([, headers, body]) => isLegacyPost(headers, body)));
    expect(new Set(decisions)).toEqual(new Set([true, false]));
  });
});

import { describe, expect, it } from 'vitest';
import type { AllowedHosts } from '../config/server-config.js';
import { guardRequest, jsonRpcErrorBody, type GuardPolicy } from './request-guard.js';

const policy = (overrides: Partial<GuardPolicy> = {}): GuardPolicy => ({
  allowedHosts: { any: false, names: [] } as AllowedHosts,
  authToken: undefined,
  draining: () => false,
  ...overrides,
});

const request = (path: string, headers: Record<string, string>) => ({ path, headers });

describe(guardRequest.name, () => {
  describe('DNS-rebinding protection', () => {
    it.each(['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '127.0.0.2'])('accepts the loopback Host %s', (host) => {
      expect(guardRequest(request('/mcp', { host }), policy())).toBeUndefined();
    });

    it('refuses another Host with 403 and the SDK message', () => {
      expect(guardRequest(request('/mcp', { host: 'evil.example:8080' }), policy())).toEqual({ status: 403, message: 'Invalid Host: evil.example:8080' });
      expect(guardRequest(request('/sessions/s-1', { host: '192.168.1.5' }), policy())?.status).toBe(403);
      expect(guardRequest(request('/mcp', {}), policy())).toEqual({ status: 403, message: 'Invalid Host: (missing)' });
    });

    it('accepts hosts listed in --allowed-hosts, or any with *', () => {
      const listed = policy({ allowedHosts: { any: false, names: ['cli-mcp.tarsy.svc'] } });
      expect(guardRequest(request('/mcp', { host: 'cli-mcp.tarsy.svc:8443' }), listed)).toBeUndefined();
      expect(guardRequest(request('/mcp', { host: 'other.svc' }), listed)?.status).toBe(403);
      expect(guardRequest(request('/mcp', { host: 'anything.example' }), policy({ allowedHosts: { any: true } }))).toBeUndefined();
    });

    it('checks Origin when present', () => {
      expect(guardRequest(request('/mcp', { host: 'localhost', origin: 'http://localhost:3000' }), policy())).toBeUndefined();
      expect(guardRequest(request('/mcp', { host: 'localhost', origin: 'https://evil.example' }), policy())).toEqual({
        status: 403,
        message: 'Invalid Origin: https://evil.example',
      });
      expect(guardRequest(request('/mcp', { host: 'localhost', origin: 'null' }), policy())?.status).toBe(403);
    });

    it('leaves probes and metrics open (kubelets use pod-IP Host headers)', () => {
      for (const path of ['/live', '/health', '/metrics']) {
        expect(guardRequest(request(path, { host: '10.1.2.3:8080' }), policy({ authToken: 't' }))).toBeUndefined();
      }
    });
  });

  describe('bearer auth', () => {
    const auth = policy({ authToken: 's3cret' });

    it('requires the exact bearer token on /mcp and /sessions', () => {
      expect(guardRequest(request('/mcp', { host: 'localhost', authorization: 'Bearer s3cret' }), auth)).toBeUndefined();
      expect(guardRequest(request('/sessions/a', { host: 'localhost', authorization: 'Bearer s3cret' }), auth)).toBeUndefined();
      for (const authorization of ['Bearer wrong', 'bearer s3cret', 'Basic s3cret', 'Bearer  s3cret', '']) {
        expect(guardRequest(request('/mcp', { host: 'localhost', authorization }), auth)).toEqual({
          status: 401,
          message: 'Unauthorized: missing or invalid bearer token',
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      expect(guardRequest(request('/sessions', { host: 'localhost' }), auth)?.status).toBe(401);
    });

    it('checks the host before the token (403 before 401)', () => {
      expect(guardRequest(request('/mcp', { host: 'evil.example' }), auth)?.status).toBe(403);
    });

    it('needs no token without --auth-token-file', () => {
      expect(guardRequest(request('/mcp', { host: 'localhost' }), policy())).toBeUndefined();
    });
  });

  it('refuses new MCP and session requests while draining, but not probes', () => {
    const draining = policy({ draining: () => true });
    expect(guardRequest(request('/mcp', { host: 'localhost' }), draining)).toMatchObject({ status: 503 });
    expect(guardRequest(request('/live', { host: 'localhost' }), draining)).toBeUndefined();
  });

  it('renders the JSON-RPC error body of the SDK middleware', () => {
    expect(jsonRpcErrorBody('Invalid Host: x')).toBe('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Invalid Host: x"},"id":null}');
  });
});

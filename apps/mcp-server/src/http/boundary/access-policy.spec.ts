import { describe, expect, it } from 'vitest';
import type { AllowedHosts } from '../../config/server-config.js';
import { decideAccess, jsonRpcErrorBody, type AccessPolicy } from './access-policy.js';

const policy = (overrides: Partial<AccessPolicy> = {}): AccessPolicy => ({
  allowedHosts: { any: false, names: [] } as AllowedHosts,
  authToken: undefined,
  draining: () => false,
  ...overrides,
});

const protectedRoute = (headers: Record<string, string>) => ({ open: false, headers });
const openRoute = (headers: Record<string, string>) => ({ open: true, headers });

describe(decideAccess.name, () => {
  describe('DNS-rebinding protection (C-MCP-8), on every route', () => {
    it.each(['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '127.0.0.2', 'app.localhost'])('accepts the loopback Host %s', (host) => {
      expect(decideAccess(protectedRoute({ host }), policy())).toBeUndefined();
    });

    it.each(['10.1.2.3:8080', '192.168.1.5', '[fd00::12]:8080', '0x7f.1'])('accepts the IP-literal Host %s: rebinding needs a DNS name', (host) => {
      expect(decideAccess(protectedRoute({ host }), policy())).toBeUndefined();
      expect(decideAccess(openRoute({ host }), policy())).toBeUndefined();
    });

    it('refuses a DNS name that is neither loopback nor listed with 403 and the SDK message, on open routes too', () => {
      expect(decideAccess(protectedRoute({ host: 'evil.example:8080' }), policy())).toEqual({ status: 403, message: 'Invalid Host: evil.example:8080' });
      expect(decideAccess(openRoute({ host: 'rebound.attacker.example' }), policy())?.status).toBe(403);
      expect(decideAccess(protectedRoute({}), policy())).toEqual({ status: 403, message: 'Invalid Host: (missing)' });
      expect(decideAccess(openRoute({}), policy())?.status).toBe(403);
    });

    it('accepts hosts listed in --allowed-hosts (any case), or any with *', () => {
      const listed = policy({ allowedHosts: { any: false, names: ['cli-mcp.tarsy.svc'] } });
      expect(decideAccess(protectedRoute({ host: 'CLI-MCP.tarsy.svc:8443' }), listed)).toBeUndefined();
      expect(decideAccess(protectedRoute({ host: 'other.svc' }), listed)?.status).toBe(403);
      expect(decideAccess(protectedRoute({ host: 'anything.example' }), policy({ allowedHosts: { any: true } }))).toBeUndefined();
    });

    it('checks a present Origin on every route: loopback or listed, an IP literal is no excuse', () => {
      expect(decideAccess(protectedRoute({ host: 'localhost', origin: 'http://localhost:3000' }), policy())).toBeUndefined();
      expect(decideAccess(protectedRoute({ host: 'localhost', origin: 'http://127.0.0.1:6274' }), policy())).toBeUndefined();
      expect(decideAccess(protectedRoute({ host: 'localhost', origin: 'https://evil.example' }), policy())).toEqual({
        status: 403,
        message: 'Invalid Origin: https://evil.example',
      });
      expect(decideAccess(openRoute({ host: '10.1.2.3:8080', origin: 'http://10.9.9.9' }), policy())?.status).toBe(403);
      expect(decideAccess(protectedRoute({ host: '127.0.0.1', origin: 'null' }), policy())?.status).toBe(403);
    });
  });

  describe('bearer auth (C-HTTP-5): every route not marked open', () => {
    const auth = policy({ authToken: 's3cret' });

    it('requires the exact bearer token', () => {
      expect(decideAccess(protectedRoute({ host: 'localhost', authorization: 'Bearer s3cret' }), auth)).toBeUndefined();
      for (const authorization of ['Bearer wrong', 'bearer s3cret', 'Basic s3cret', 'Bearer  s3cret', '']) {
        expect(decideAccess(protectedRoute({ host: 'localhost', authorization }), auth)).toEqual({
          status: 401,
          message: 'Unauthorized: missing or invalid bearer token',
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      expect(decideAccess(protectedRoute({ host: 'localhost' }), auth)?.status).toBe(401);
    });

    it('leaves open routes (probes, metrics) without a token, with a pod-IP Host', () => {
      expect(decideAccess(openRoute({ host: '10.1.2.3:8080' }), auth)).toBeUndefined();
    });

    it('checks the host before the token (403 before 401)', () => {
      expect(decideAccess(protectedRoute({ host: 'evil.example' }), auth)?.status).toBe(403);
    });

    it('needs no token without --auth-token-file', () => {
      expect(decideAccess(protectedRoute({ host: 'localhost' }), policy())).toBeUndefined();
    });
  });

  it('refuses protected routes while draining, but not open ones', () => {
    const draining = policy({ draining: () => true });
    expect(decideAccess(protectedRoute({ host: 'localhost' }), draining)).toMatchObject({ status: 503 });
    expect(decideAccess(openRoute({ host: 'localhost' }), draining)).toBeUndefined();
  });

  it('renders the JSON-RPC error body of the SDK middleware', () => {
    expect(jsonRpcErrorBody('Invalid Host: x')).toBe('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Invalid Host: x"},"id":null}');
  });
});

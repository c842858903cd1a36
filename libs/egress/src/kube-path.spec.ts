import { describe, expect, it } from 'vitest';
import { checkKubePath } from './kube-path.js';

// C-EGR-5: the path as the API server's RequestInfo parser reads it.
describe('checkKubePath', () => {
  it.each([
    '/', '/api', '/api/v1', '/version', '/openapi/v2', '/apis/apps/v1/namespaces/default/deployments',
    '/api/v1/namespaces/default/pods/p/log', '/api/v1/namespaces/default/pods/p/status', '/api/v1/namespaces/proxy',
    '/api/v1/namespaces/exec/pods/attach', '/api/v1/namespaces/ns/finalize', '/api/v1/watch/namespaces/default/pods',
    '/apis/proxy/v1/things', '/api/v1/namespaces/default/pods/p/', '/api/v1/namespaces/default/pods/p/ephemeralcontainers',
  ])('allows %s', (path) => {
    expect(() => checkKubePath(path)).not.toThrow();
  });

  it.each([
    '/api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/attach', '/api/v1/namespaces/d/pods/p/portforward',
    '/api/v1/namespaces/d/pods/p/proxy', '/api/v1/namespaces/d/pods/p/proxy/x/y', '/api/v1/namespaces/d/services/s:80/proxy/',
    '/api/v1/nodes/n/proxy/stats', '/api/v1/proxy/nodes/n', '/api/v1/watch/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/%65xec',
    '/api/v1/namespaces/d/pods/p%2Fexec', '/api/v1/namespaces/d/pods/p/exec/', '/apis/g.example/v1/namespaces/d/things/t/proxy',
    '/apis/g/v1/things/t/exec',
  ])('denies %s', (path) => {
    expect(() => checkKubePath(path)).toThrow(expect.objectContaining({ code: 'path_denied', status: 403 }));
  });

  it.each([
    '/api/v1/namespaces/d/pods/p/exec;x', '//api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/exec/..',
    '/api/v1/namespaces/d/pods/p/../p/exec', '/api/v1/namespaces/d/pods/p/./exec', '/api/v1/namespaces/d/pods/p/%2565xec',
    '/api/v1/namespaces/d/pods/p\\exec', '/api/v1/namespaces/d/pods/p/%zz', '/api/v1/%00', 'api/v1', '/api/v1//namespaces',
  ])('refuses the ambiguous path %j', (path) => {
    expect(() => checkKubePath(path)).toThrow(expect.objectContaining({ code: 'bad_path', status: 400 }));
  });
});

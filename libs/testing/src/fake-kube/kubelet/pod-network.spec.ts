import { randomInt } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ENDPOINT_SLICES } from '../api/builtin-resources.js';
import { KubeApi } from '../api/kube-api.js';
import { ObjectStore } from '../api/object-store.js';
import { eventually } from '../../eventually.js';
import { PodNetwork, serviceEndpoint } from './pod-network.js';

function slice(api: KubeApi, service: string, address: string, port: number, ready = true): void {
  api.create(ENDPOINT_SLICES, 'ns', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${service}-${randomInt(1e6)}`, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4', endpoints: [{ addresses: [address], conditions: { ready } }], ports: [{ port }],
  });
}

/** A random pod address and a port for the Service: distinct per test and per parallel run. */
const podIp = (): string => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

describe(PodNetwork.name, () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('rewrites Service addresses to the pod IP, one Service per port; other text is left alone', () => {
    const network = new PodNetwork('127.0.0.9', new ObjectStore());
    expect(network.rewrite('http://gw.ns.svc:3128')).toBe('http://127.0.0.9:3128');
    expect(network.rewrite('proxy-url: http://gw.ns.svc.cluster.local:3128/')).toBe('proxy-url: http://127.0.0.9:3128/');
    expect(network.rewrite('http://other.ns.svc:3128')).toBe('http://other.ns.svc:3128');
    expect(network.rewrite('https://example.com:443 gw.ns.svc')).toBe('https://example.com:443 gw.ns.svc');
  });

  it('serviceEndpoint: the first ready endpoint of the Service\'s slices, with the slice port', () => {
    const store = new ObjectStore();
    const api = new KubeApi(store);
    slice(api, 'gw', '127.0.0.5', 1000, false);
    expect(serviceEndpoint(store, 'ns', 'gw')).toBeUndefined();
    slice(api, 'gw', '127.0.0.6', 2000);
    expect(serviceEndpoint(store, 'ns', 'gw')).toEqual({ host: '127.0.0.6', port: 2000 });
    expect(serviceEndpoint(store, 'other', 'gw')).toBeUndefined();
  });

  it('forwards a connection to the endpoint FROM the pod IP; without a ready endpoint the connect is refused', async () => {
    const sources: string[] = [];
    const endpoint: Server = createServer((socket) => {
      sources.push(String(socket.remoteAddress));
      socket.end('hello');
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => endpoint.close(() => resolve())));
    const store = new ObjectStore();
    const api = new KubeApi(store);
    const ip = podIp();
    const network = new PodNetwork(ip, store);
    cleanup.push(() => network.close());
    const port = 20_000 + randomInt(20_000);
    expect(network.rewrite(`gw.ns.svc:${port}`)).toBe(`${ip}:${port}`);
    const read = (): Promise<string> => new Promise((resolve) => {
      let text = '';
      const socket = connect({ host: ip, port });
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(`error:${error.code}`));
      socket.on('close', () => resolve(text));
    });
    await network.open();
    expect(await read()).toBe('error:ECONNREFUSED');
    slice(api, 'gw', '127.0.0.1', (endpoint.address() as { port: number }).port);
    await eventually(async () => (await read()) === 'hello', 'the listener follows the new EndpointSlice');
    expect(sources.at(-1)).toBe(ip);
    for (const object of store.list('endpointslices', 'ns')) api.delete(ENDPOINT_SLICES, 'ns', String(object.metadata.name));
    await eventually(async () => (await read()) === 'error:ECONNREFUSED', 'refused once the Service has no endpoint');
  });
});

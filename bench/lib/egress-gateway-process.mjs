// The gateway alone in its own process, so its RSS is its own (goal: ≤ 128 MiB with 100 open tunnels). The parent
// sends {module, upstreamPort, upstreamCa, hosts}; every host resolves to a public test address that the dialer
// maps to the parent's loopback upstream. Replies {port}, then answers 'rss' with process.memoryUsage().rss.
import { connect, createServer } from 'node:net';

process.once('message', async ({ module, upstreamPort, upstreamCa, hosts }) => {
  const egress = await import(module);
  const ca = await egress.RuntimeCa.generate('bench gateway CA');
  const gateway = new egress.EgressGateway({
    routes: new egress.Routes(hosts.map((host) => ({ kind: 'allow', authority: `${host}:443`, ca: upstreamCa }))),
    ca,
    resolver: async () => ['93.184.215.14'],
    dialer: (address) => {
      if (address !== '93.184.215.14') throw new Error(`bench dialer: ${address}`);
      return connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
    },
  });
  const server = createServer();
  gateway.attach(server, () => ({ sessionId: 'bench', instance: 'bench' }));
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port, caPem: ca.certPem }));
  process.on('message', (message) => {
    if (message === 'rss') process.send({ rss: process.memoryUsage().rss });
    if (message === 'stop') gateway.close().then(() => server.close(() => process.exit(0)));
  });
});

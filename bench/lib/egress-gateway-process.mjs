// The gateway alone in its own process, so its RSS is its own (goal: ≤ 128 MiB with 100 open tunnels). The parent
// sends {module, upstreamPort, upstreamCa, hosts}; every host resolves to a public test address that the dialer
// maps to the parent's loopback upstream. With `socketPath` it also listens there, as the local backend's per-sandbox
// socket does, and a third listener for the flood's session. Replies {port, floodPort, caPem}, then answers 'rss' with process.memoryUsage().rss.
import { connect, createServer } from 'node:net';

process.once('message', async ({ module, upstreamPort, upstreamCa, hosts, socketPath }) => {
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
  // The flood's session (bench/lib/egress-flood.mjs): a third listener, so its connections count against a session
  // of their own, as a hostile sandbox's would.
  const flood = createServer();
  gateway.attach(flood, () => ({ sessionId: 'bench-flood', instance: 'bench' }));
  await new Promise((resolve) => flood.listen(0, '127.0.0.1', resolve));
  const unix = createServer();
  gateway.attach(unix, () => ({ sessionId: 'bench-local', instance: 'bench' }));
  if (socketPath) await new Promise((resolve) => unix.listen(socketPath, resolve));
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port, floodPort: flood.address().port, caPem: ca.certPem }));
  process.on('message', (message) => {
    if (message === 'rss') process.send({ rss: process.memoryUsage().rss });
    if (message === 'stop') gateway.close().then(() => flood.close(() => server.close(() => (unix.listening ? unix.close(() => process.exit(0)) : process.exit(0)))));
  });
});

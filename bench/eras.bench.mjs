// Protocol eras benchmark (C-MCP-12): what serving each era costs. (1) The built server, local backend, warm
// session: tools/call bash `true` in the 2025 era (our transport) and in 2026-07-28 (the SDK v2 handler).
// (2) Transports alone, in process, a tool that returns at once: our StatelessHttpTransport + SDK v1 Server vs the
// SDK v2 handler's own stateless 2025 serving (`createMcpHandler`, legacy: 'stateless') vs its 2026 serving.
// Loopback only; bounded.
import { createServer } from 'node:http';
import { createMcpHandler, Server as ServerV2 } from '@modelcontextprotocol/server';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StatelessHttpTransport } from '../dist/apps/mcp-server/src/http/stateless-http-transport.js';
import { isLegacyPost, serveModernPost, webRequestOf } from '../dist/apps/mcp-server/src/http/modern-exchange.js';
import { callBash, callBashModern, closeConnections, startServer } from './lib/server-process.mjs';
import { median, ms, percentile, printTable, timeCalls } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_ERA_CALLS ?? 2000);
const RESULT = { content: [{ type: 'text', text: 'ok' }] };

function listen(handler) {
  return new Promise((resolve) => {
    const http = createServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      await handler(req, res, JSON.parse(text));
    }).listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${http.address().port}/mcp`, close: () => new Promise((r) => { http.closeAllConnections(); http.close(r); }) }));
  });
}

const ours = (req, res, body) => {
  const server = new ServerV1({ name: 'b', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, () => RESULT);
  const transport = new StatelessHttpTransport(res);
  res.on('close', () => void server.close());
  return server.connect(transport).then(() => transport.handle({ headers: req.headers, url: new URL('http://127.0.0.1/mcp'), body }));
};

function sdkHandler() {
  return createMcpHandler(() => {
    const server = new ServerV2({ name: 'b', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/call', () => RESULT);
    return server;
  });
}

async function transportsAlone() {
  const rows = [];
  const variants = [
    ['2025, our StatelessHttpTransport + SDK v1 Server', ours, callBash],
    ['2025, SDK v2 createMcpHandler (legacy: stateless)', null, callBash],
    ['2026-07-28, SDK v2 createMcpHandler', null, callBashModern],
  ];
  for (const [name, own, call] of variants) {
    const handler = own ?? ((h) => async (req, res, body) => {
      const web = webRequestOf(new URL('http://127.0.0.1/mcp'), req.headers, res);
      await isLegacyPost(web, body);
      await serveModernPost(h, web, body, res);
    })(sdkHandler());
    const server = await listen(handler);
    const cpu = process.cpuUsage();
    const durations = await timeCalls(() => call(server.url, 'bench', 'true'), CALLS, 200);
    const used = process.cpuUsage(cpu);
    await server.close();
    rows.push([name, ms(median(durations)), ms(percentile(durations, 99)), `${((used.user + used.system) / 1000 / (CALLS + 200)).toFixed(3)} ms`]);
  }
  return rows;
}

async function builtServer() {
  const server = await startServer();
  await callBash(server.url, 'bench-eras', 'true');
  const legacy = await timeCalls(() => callBash(server.url, 'bench-eras', 'true'), CALLS, 200);
  const modern = await timeCalls(() => callBashModern(server.url, 'bench-eras', 'true'), CALLS, 200);
  await server.stop();
  return [
    ['2025 (our transport)', ms(median(legacy)), ms(percentile(legacy, 99))],
    ['2026-07-28 (SDK v2 handler)', ms(median(modern)), ms(percentile(modern, 99))],
  ];
}

export async function runErasBench() {
  const built = await builtServer();
  const alone = await transportsAlone();
  closeConnections();
  printTable(`Protocol eras: built server, local backend, warm session, tools/call bash "true" (${CALLS} calls)`, ['era', 'p50', 'p99'], built);
  printTable(`Protocol eras: transports alone, in process, a tool that returns at once (${CALLS} calls; CPU = client + server)`, ['transport', 'p50', 'p99', 'CPU per call'], alone);
}

if (import.meta.url === `file://${process.argv[1]}`) await runErasBench();

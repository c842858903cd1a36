// `npm run bench`: runs every benchmark and prints its tables. Benchmarks import the built code (dist/).
import { existsSync } from 'node:fs';
import { printGoals } from './lib/goals.mjs';
import { describeMachine } from './lib/machine.mjs';

const suites = [
  ['agent', './agent.bench.mjs', 'runAgentBench'],
  ['agent-client', './agent-client.bench.mjs', 'runAgentClientBench'],
  ['agent-footprint', './agent-footprint.bench.mjs', 'runAgentFootprintBench'],
  ['server', './server.bench.mjs', 'runServerBench'],
  ['server-start', './server-start.bench.mjs', 'runServerStartBench'],
  ['kubernetes', './kubernetes.bench.mjs', 'runKubernetesBench'],
  ['eager', './eager.bench.mjs', 'runEagerBench'],
  ['eras', './eras.bench.mjs', 'runErasBench'],
  ['controller', './controller.bench.mjs', 'runControllerBench'],
  ['operator', './operator.bench.mjs', 'runOperatorBench'],
  ['peer', './peer.bench.mjs', 'runPeerBench'],
  ['egress', './egress.bench.mjs', 'runEgressBench'],
  ['images', './images.bench.mjs', 'runImagesBench'],
];
const only = process.argv.slice(2);
console.log(`Machine: ${describeMachine()}`);
for (const [name, file, fn] of suites) {
  if (only.length > 0 && !only.includes(name)) continue;
  if (!existsSync(new URL(file, import.meta.url))) continue;
  const module = await import(file);
  await module[fn]();
}
printGoals();

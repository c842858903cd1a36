/**
 * `npm run dev:cluster -- --operator`: the CliMcpInstance CRD installed, the investigation kubeconfig Secret of
 * instance `oc` seeded, a stand-in Deployment controller (the fake has none: server Deployments get pods and an
 * Available status, so an instance can become Ready), and a BUILT `sandbox-controller --operator` watching the
 * namespace. Prints the sample CR to apply.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DeploymentSimulator } from './deployment-simulator.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from './fake-kube/api/crd/crd-definitions.js';
import { SECRETS } from './fake-kube/api/resources.js';
import type { FakeCluster } from './fake-kube/fake-cluster.js';

export interface DevOperatorOptions {
  readonly root: string;
  readonly namespace: string;
  readonly log: (message: string) => void;
}

/** Installs the CRD and starts the operator; returns its process and the Deployment stand-in. */
export async function startDevOperator(cluster: FakeCluster, options: DevOperatorOptions): Promise<{ child: ChildProcess | undefined; deployments: DeploymentSimulator }> {
  const { root, namespace, log } = options;
  const crd = parse(readFileSync(join(root, 'deploy/operator/crd.yaml'), 'utf8')) as { metadata: { name: string } };
  cluster.api.create(CUSTOM_RESOURCE_DEFINITIONS, '', crd);
  await cluster.waitFor('customresourcedefinitions', undefined, crd.metadata.name, (o) => JSON.stringify(o?.['status'] ?? {}).includes('"type":"Established","status":"True"'));
  cluster.api.create(SECRETS, namespace, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-oc-kubeconfig' }, stringData: { kubeconfig: readFileSync(cluster.kubeconfigPath, 'utf8') } });
  const deployments = new DeploymentSimulator(cluster, namespace);
  const entry = join(root, 'dist', 'sandbox-controller', 'main.js');
  if (!existsSync(entry)) {
    log(`--operator: ${entry} does not exist; build it (node scripts/build.mjs sandbox-controller)`);
    return { child: undefined, deployments };
  }
  const env = { ...process.env, WATCH_NAMESPACE: namespace, RELATED_IMAGE_SERVER: 'quay.io/example/cli-mcp-server:dev', RELATED_IMAGE_SANDBOX: 'quay.io/example/cli-mcp-sandbox:dev', RELATED_IMAGE_EGRESS: 'quay.io/example/cli-mcp-egress:dev' };
  const child = spawn(process.execPath, [join(root, 'bin', 'sandbox-controller.js'), '--operator', '--kubeconfig', cluster.kubeconfigPath, '--identity', 'dev-operator', '--address', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  child.once('exit', (code, signal) => log(`operator exited (${signal ?? code})`));
  log(`operator: watching namespace ${namespace} (pid ${child.pid}; its "listening" log line names /health); the CRD climcpinstances.cli-mcp.redhat.com is installed`);
  log(`Secret cli-mcp-oc-kubeconfig is seeded; apply this sample (kubectl -n ${namespace} apply --validate=false -f deploy/operator/samples/climcpinstance.yaml):`);
  for (const line of readFileSync(join(root, 'deploy/operator/samples/climcpinstance.yaml'), 'utf8').split('\n').filter((l) => !l.startsWith('#') && l !== '')) log(`  ${line}`);
  log(`then: kubectl -n ${namespace} wait --for=condition=Ready climcpinstance/oc && kubectl -n ${namespace} get climcpinstances -o wide`);
  return { child, deployments };
}

/**
 * `npm run dev:cluster`: the fake Kubernetes API server + kubelet simulator as a standalone process, so the
 * Kubernetes backend can be tried without a cluster. Prints the kubeconfig's absolute path on stdout (one line);
 * everything else goes to stderr. Runs until SIGINT/SIGTERM, then stops every agent.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { KubeObject } from './fake-kube/api/types.js';
import { startDevController } from './dev-controller.js';
import { startDevOperator } from './dev-operator.js';
import { startFakeCluster } from './fake-kube/fake-cluster.js';
import { builtAgentCommand, builtAgentExists, repoRoot, standInAgentCommand, AGENT_ENTRY } from './fake-kube/kubelet/agent-locator.js';

const HELP = `Usage: npm run dev:cluster -- [options]

Starts a fake Kubernetes API server (pods, secrets, leases, CRDs and the kinds an operator writes) with a
kubelet simulator that runs a real sandbox-agent process per pod on 127.0.0.N:8090. Prints the kubeconfig path
on stdout.

Options:
  --port <n>          API server port (default: random free port)
  --host <addr>       listen address (default 127.0.0.1)
  --kubeconfig <path> where to write the kubeconfig (default <repo>/.cli-mcp/dev-cluster/kubeconfig)
  --namespace <ns>    default namespace of the kubeconfig context (default "default")
  --token <t>         require this bearer token (user fake-kube-admin); the kubeconfig carries it
  --user <t>=<name>   accept token <t> as user <name> (repeatable; turns authentication and HTTPS on; the
                      kubeconfig carries --token, else the first --user token)
  --tls               HTTPS with a CA generated at start, carried by the kubeconfig (kubectl sends bearer
                      tokens only over HTTPS)
  --agent <path>      sandbox-agent entry (default <repo>/${AGENT_ENTRY})
  --stand-in-agent    use the tiny built-in stand-in agent instead of the real one
  --no-kubelet        API server only (pods stay Pending)
  --speedup <n>       divide probe delays/periods and restart back-off by n (default 1)
  --verbose           forward the agents' output to stderr
  --controller        also run the built sandbox-controller for instance "dev" (warm pool, idle GC) and print the
                      matching server command line; with --warm-pool-size <n> (default 2), --idle-timeout <d> (5m)
  --operator          install the CliMcpInstance CRD and run the built operator (sandbox-controller --operator) for
                      the namespace, with a stand-in Deployment controller; prints a sample CR to apply
  -h, --help          show this help
`;

function log(message: string): void {
  process.stderr.write(`[dev-cluster] ${message}\n`);
}

function describePod(pod: KubeObject): string {
  const status = (pod['status'] ?? {}) as { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { restartCount?: number; state?: { waiting?: { reason?: string } } }[] };
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  const waiting = status.containerStatuses?.[0]?.state?.waiting?.reason;
  const terminating = pod.metadata.deletionTimestamp ? ' terminating' : '';
  return `phase=${status.phase ?? '?'} ready=${ready}${status.podIP ? ` ip=${status.podIP}` : ''}${waiting ? ` waiting=${waiting}` : ''} restarts=${status.containerStatuses?.[0]?.restartCount ?? 0}${terminating}`;
}

/** `--user TOKEN=NAME` values as a token table (undefined when none is given). */
function parseUsers(values: string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const users: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0 || eq === value.length - 1) throw new Error(`--user must be TOKEN=NAME, got ${JSON.stringify(value)}`);
    users[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return users;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      kubeconfig: { type: 'string' },
      namespace: { type: 'string' },
      token: { type: 'string' },
      user: { type: 'string', multiple: true },
      tls: { type: 'boolean' },
      agent: { type: 'string' },
      'stand-in-agent': { type: 'boolean' },
      'no-kubelet': { type: 'boolean' },
      speedup: { type: 'string' },
      verbose: { type: 'boolean' },
      controller: { type: 'boolean' },
      operator: { type: 'boolean' },
      'warm-pool-size': { type: 'string' },
      'idle-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  const speedup = values.speedup === undefined ? 1 : Number(values.speedup);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0…65535, got ${values.port}`);
  if (!Number.isFinite(speedup) || speedup < 1) throw new Error(`--speedup must be ≥ 1, got ${values.speedup}`);
  const users = parseUsers(values.user ?? []);
  const root = repoRoot();
  const kubeconfig = resolve(values.kubeconfig ?? join(root, '.cli-mcp', 'dev-cluster', 'kubeconfig'));

  let agent = values['stand-in-agent'] ? standInAgentCommand() : builtAgentCommand(values.agent ? resolve(values.agent) : undefined);
  if (!values['stand-in-agent'] && !values['no-kubelet'] && !builtAgentExists(values.agent ? resolve(values.agent) : undefined)) {
    log(`warning: ${values.agent ?? AGENT_ENTRY} does not exist; pods will crash-loop (build it, or pass --stand-in-agent)`);
  }
  if (values['no-kubelet']) agent = standInAgentCommand();

  const cluster = await startFakeCluster({
    host: values.host,
    port,
    token: values.token,
    users: users && values.token !== undefined ? { [values.token]: 'fake-kube-admin', ...users } : users,
    tls: values.tls || users !== undefined,
    kubeconfig,
    namespace: values.namespace ?? 'default',
    kubelet: values['no-kubelet']
      ? false
      : {
          agent, speedup, onAgentOutput: values.verbose ? (pod, _stream, text) => process.stderr.write(`[${pod}] ${text}`) : undefined,
          // The operator's server pods are the Deployment stand-in's: they stay Pending (no server process runs).
          ...(values.operator ? { pendingForever: (pod: KubeObject) => pod.metadata.labels?.['cli-mcp.redhat.com/component'] === 'server' } : {}),
        },
  });
  process.stdout.write(`${cluster.kubeconfigPath}\n`);
  log(`API server ${cluster.url} (kubeconfig ${cluster.kubeconfigPath})`);
  log(values['no-kubelet'] ? 'kubelet disabled' : `kubelet: node fake-node, agent ${agent.args[0] === '-e' ? '(stand-in)' : agent.args.join(' ')}`);
  log(`try: KUBECONFIG=${cluster.kubeconfigPath} kubectl get pods -A (use --validate=false with kubectl create -f)`);

  const controller = values.controller
    ? startDevController(cluster.api, {
        root, kubeconfig: cluster.kubeconfigPath, namespace: values.namespace ?? 'default',
        warmPoolSize: values['warm-pool-size'] ?? '2', idleTimeout: values['idle-timeout'] ?? '5m', log,
      })
    : values.operator
      ? (await startDevOperator(cluster, { root, namespace: values.namespace ?? 'default', log })).child
      : undefined;

  cluster.store.subscribe((event) => {
    if (event.resource !== 'pods') return;
    const key = `${event.object.metadata.namespace}/${event.object.metadata.name}`;
    log(event.type === 'DELETED' ? `pod ${key} deleted` : `pod ${key} ${describePod(event.object)}`);
  });

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping (killing agents)`);
    // The controller (or operator) releases its Lease on SIGTERM: the API server must outlive it (bounded wait).
    const controllerGone = new Promise<void>((resolve) => {
      if (!controller || controller.exitCode !== null) return resolve();
      controller.once('exit', () => resolve());
      controller.kill('SIGTERM');
      setTimeout(resolve, 5000).unref();
    });
    controllerGone.then(() => cluster.stop()).then(
      () => process.exit(0),
      (error: unknown) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

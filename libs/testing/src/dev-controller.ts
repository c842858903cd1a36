/**
 * `npm run dev:cluster -- --controller`: a BUILT sandbox-controller beside the fake cluster, for instance `dev`,
 * with the same Kubernetes flags a server needs (printed), so the warm pool and idle GC can be tried locally.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeApi } from './fake-kube/api/kube-api.js';
import { SECRETS } from './fake-kube/api/resources.js';

export interface DevControllerOptions {
  readonly root: string;
  readonly kubeconfig: string;
  readonly namespace: string;
  readonly warmPoolSize: string;
  readonly idleTimeout: string;
  readonly log: (message: string) => void;
}

/** The flags a server (and this controller) need for instance `dev` on the fake cluster. */
export function devKubernetesFlags(kubeconfig: string, namespace: string): string[] {
  return [
    '--kubeconfig', kubeconfig, '--namespace', namespace, '--instance-name', 'dev', '--sandbox-image', 'any',
    '--kubeconfig-secret', 'dev-kubeconfig', '--sandbox-service-account', 'dev-sandbox',
  ];
}

/** Seeds the sandboxes' (empty) investigation kubeconfig Secret and starts the controller; returns its process. */
export function startDevController(api: KubeApi, options: DevControllerOptions): ChildProcess | undefined {
  const entry = join(options.root, 'dist', 'apps', 'sandbox-controller', 'src', 'main.js');
  if (!existsSync(entry)) {
    options.log(`--controller: ${entry} does not exist; build it (node scripts/build.mjs sandbox-controller)`);
    return undefined;
  }
  try {
    api.create(SECRETS, options.namespace, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dev-kubeconfig' }, stringData: { kubeconfig: '' } });
  } catch {
    // it exists already (a restart with the same store is not possible, but be lenient)
  }
  const flags = devKubernetesFlags(options.kubeconfig, options.namespace);
  const args = [...flags, '--warm-pool-size', options.warmPoolSize, '--idle-timeout', options.idleTimeout, '--identity', 'dev-controller'];
  const child = spawn(process.execPath, [join(options.root, 'bin', 'sandbox-controller.js'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  options.log(`controller: warm pool ${options.warmPoolSize}, idle timeout ${options.idleTimeout} (pid ${child.pid}); /health on 127.0.0.1:8081`);
  options.log(`server:     npx cli-mcp-server --transport http --backend kubernetes ${flags.join(' ')} --hmac-key-file <a key file>`);
  child.once('exit', (code, signal) => options.log(`controller exited (${signal ?? code})`));
  return child;
}

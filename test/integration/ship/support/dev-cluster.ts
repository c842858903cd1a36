import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { assembleImage, REPO_ROOT, type AssembledImage, type ImageName } from './image-harness.js';
import { TestNetns } from './netns.js';

export interface DevCluster {
  /** The kubeconfig `npm run dev:cluster` wrote (server http(s)://127.0.0.1:<port>, reachable inside the netns). */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/**
 * `npm run dev:cluster`'s program (the fake Kubernetes API server, API only) inside `netns`, so an image started in
 * the same namespace reaches it on loopback. Resolves once it printed its kubeconfig path. `args` are more of its
 * options (`--tls`: HTTPS with its own CA and a bearer token, as a real API server; the egress gateway accepts no
 * other investigation kubeconfig).
 */
export async function startDevCluster(netns: TestNetns, dir: string, args: readonly string[] = []): Promise<DevCluster> {
  const kubeconfig = join(dir, 'kubeconfig');
  const argv = netns.wrap([process.execPath, join(REPO_ROOT, 'dist/libs/testing/src/dev-cluster.main.js'), '--no-kubelet', '--kubeconfig', kubeconfig, ...args]);
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('\n')) resolve();
    });
    void exited.then(() => reject(new Error(`dev cluster exited before it was ready:\n${stderr}`)));
  });
  readFileSync(kubeconfig); // written before the path is printed
  return {
    kubeconfig,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What an image test file shares: the assembled images, a scratch folder, a netns with the dev cluster. */
export interface ClusterStage {
  /** The assembled image `name` (one of those the stage was asked for). */
  image(name: ImageName): AssembledImage;
  scratch: string;
  netns: TestNetns;
  cluster: DevCluster;
}

/**
 * Registers beforeAll/afterAll that assemble each image of `mountPoints` (image → the container paths its pods
 * mount), make a scratch folder the pod's UIDs can read, a network namespace and the dev cluster inside it (started
 * with `devClusterArgs`); the returned object is filled then.
 */
export function useClusterStage(mountPoints: () => Partial<Record<ImageName, string[]>>, devClusterArgs: readonly string[] = []): ClusterStage {
  const images = new Map<ImageName, AssembledImage>();
  const stage = {
    image: (name: ImageName) => {
      const image = images.get(name);
      if (!image) throw new Error(`the ${name} image was not assembled for this stage`);
      return image;
    },
  } as ClusterStage;
  beforeAll(async () => {
    for (const [name, paths] of Object.entries(mountPoints()) as Array<[ImageName, string[]]>) images.set(name, await assembleImage(name, paths));
    stage.scratch = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-cluster-'));
    chmodSync(stage.scratch, 0o755);
    stage.netns = await TestNetns.create();
    stage.cluster = await startDevCluster(stage.netns, stage.scratch, devClusterArgs);
  }, 300_000);
  afterAll(async () => {
    await stage.cluster?.stop();
    await stage.netns?.remove();
    for (const image of images.values()) image.remove();
    if (stage.scratch) rmSync(stage.scratch, { recursive: true, force: true });
    // Stopping the cluster and removing assembled images (thousands of files) on a loaded machine: a hang bound.
  }, 120_000);
  return stage;
}

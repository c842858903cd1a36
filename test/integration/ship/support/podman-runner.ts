import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { findEngine, ULIMIT_FLAGS } from '../../../../scripts/image-engine.mjs';
import type { ContainerRun, RunningContainer } from './pod-runner.js';
import { watchContainer } from './pod-runner.js';
import { REPO_ROOT } from './image-harness.js';

const run = promisify(execFile);

/** Why real images cannot be built and run here (no podman, or podman cannot start a container), else undefined. */
export function podmanProblem(): string | undefined {
  const engine = findEngine();
  if (!engine?.[0]?.endsWith('podman')) return 'podman is not installed (apt-get install podman runc; docs/operations.md "Images built by CI")';
  if (process.getuid?.() !== 0) return 'needs root (podman joins the test\'s own network namespace)';
  const info = spawnSync(engine[0], [...engine.slice(1), 'info', '--format', '{{.Host.OCIRuntime.Name}}'], { encoding: 'utf8' });
  return info.status === 0 ? undefined : `podman info failed: ${info.stderr.trim()}`;
}

export function podman(): string[] {
  return findEngine()!;
}

/**
 * Builds (or reuses, by content hash) the CI images of `names` with scripts/images-build.mjs and returns name → tag.
 * The base image note (stand-in or official) is printed, so every run says what the images stand on.
 */
export async function ciImages(names: readonly string[]): Promise<Map<string, string>> {
  const { stdout } = await run(process.execPath, ['scripts/images-build.mjs', '--json', ...names], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { stderr?: string; message: string }) => {
      throw new Error(`scripts/images-build.mjs failed: ${error.message}\n${(error.stderr ?? '').slice(-4000)}`);
    });
  const result = JSON.parse(stdout) as { base: { ref: string; standIn?: string }; images: Array<{ name: string; tag: string }> };
  console.warn(`[images] base: ${result.base.standIn ?? `${result.base.ref} (official)`}`);
  return new Map(result.images.map((image) => [image.name, image.tag]));
}

/**
 * Runs `tag` as the pod would (C-SHIP-1/2, for real): `run`'s argv, env, UID with GID 0, emptyDirs as fresh
 * world-writable tmpfs and Secret folders read-only, on a read-only root with no other writable path (podman's
 * own /tmp, /var/tmp and /run tmpfs are off), no capabilities, in the test's network namespace. podman's own
 * /etc/passwd entry for `--user` is off too: a kubelet adds none, so a random UID stays nameless as on OpenShift.
 */
export function startPodman(tag: string, run: ContainerRun): RunningContainer & { name: string } {
  const name = `cli-mcp-ship-${randomBytes(4).toString('hex')}`;
  const args = ['run', '--rm', '--name', name, '--read-only', '--read-only-tmpfs=false', '--passwd=false', '--user', `${run.uid}:0`, '--cap-drop=ALL',
    '--security-opt', 'no-new-privileges', '--network', `ns:${run.netns.path()}`, ...ULIMIT_FLAGS, '--workdir', run.workdir];
  for (const dir of run.emptyDirs) args.push('--tmpfs', `${dir}:rw,mode=1777`);
  for (const file of run.files) args.push('-v', `${file.host}:${file.path}:ro`);
  for (const [key, value] of run.env) args.push('-e', `${key}=${value}`);
  args.push('--entrypoint', JSON.stringify(run.argv), tag);
  const engine = podman();
  const child = spawn(engine[0]!, [...engine.slice(1), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const container = watchContainer(child, async () => {
    await run_(['kill', name]).catch(() => undefined);
  });
  return Object.assign(container, { name });
}

/** `podman exec` in a running container (the pod's exec probe); resolves with stdout, rejects on a non-zero exit. */
export async function podmanExec(name: string, argv: readonly string[]): Promise<string> {
  return (await run_(['exec', name, ...argv])).stdout;
}

async function run_(args: readonly string[]): Promise<{ stdout: string }> {
  const engine = podman();
  return run(engine[0]!, [...engine.slice(1), ...args], { maxBuffer: 16 * 1024 * 1024 });
}

/**
 * The image's root filesystem, mounted read-only for `read` (podman image mount; root only), unmounted after.
 */
export async function withImageRoot<T>(tag: string, read: (root: string) => T | Promise<T>): Promise<T> {
  const root = (await run_(['image', 'mount', tag])).stdout.trim();
  try {
    return await read(root);
  } finally {
    await run_(['image', 'unmount', tag]);
  }
}

// The container engine the image scripts drive, and the flags this project's machines need with it
// (docs/operations.md, "Images built by CI"). podman, else docker; CONTAINER_ENGINE picks one.
//  - podman runs containers with runc when runc is installed (CLI_MCP_PODMAN_RUNTIME overrides): crun fails on
//    hybrid-cgroup kernels such as CI's;
//  - `build` and `run` get explicit ulimits: podman's defaults copy the host's hard limits, which an unprivileged
//    container manager may not set ("setrlimit: Operation not permitted").
import { spawnSync } from 'node:child_process';

const onPath = (command) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;

/** The engine's argv prefix, e.g. ['podman', '--runtime', 'runc'], or undefined when none is installed. */
export function findEngine() {
  const engine = process.env.CONTAINER_ENGINE || ['podman', 'docker'].find(onPath);
  if (!engine) return undefined;
  if (!engine.endsWith('podman')) return [engine];
  const runtime = process.env.CLI_MCP_PODMAN_RUNTIME ?? (onPath('runc') ? 'runc' : undefined);
  return runtime ? [engine, '--runtime', runtime] : [engine];
}

/** `findEngine()`, or an error naming what to install. */
export function engineCommand() {
  const engine = findEngine();
  if (!engine) throw new Error('neither podman nor docker is on PATH (set CONTAINER_ENGINE to another engine with a compatible build command)');
  return engine;
}

/** Limits passed to every `build` and `run`: the pod's, well above what the images use. */
export const ULIMIT_FLAGS = ['--ulimit', 'nofile=1024:4096', '--ulimit', 'nproc=1024:4096'];

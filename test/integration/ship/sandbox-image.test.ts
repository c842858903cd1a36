/**
 * C-SHIP-1/2, the sandbox image as a pod runs it: the runtime stage of docker/Containerfile.sandbox assembled from a
 * clean build, started with the pod spec libs/podspec really builds (env from the session Secret, /workspace and
 * /tmp emptyDirs, the kubeconfig Secret) on a read-only root, as UID 1001 and as a random UID with GID 0. The agent
 * must answer the pod's own readiness probe and run commands, in pipe and tty mode. Dropping a COPY must break it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isTestSupport } from './support/build-output.js';
import { assembleImage, type AssembledImage } from './support/image-harness.js';
import { listTree } from './support/image-root.js';
import { TestNetns } from './support/netns.js';
import { containerRun, mountPaths, type ClusterInputs } from './support/pod-container.js';
import { containerRunProblem, startContainer, type RunningContainer } from './support/pod-runner.js';
import { describeWhenReady, firstProblem } from '../../support/prerequisites.js';
import { agentBuiltProblem } from './support/build-state.js';
import { sandboxPod, sandboxSecrets, SANDBOX_TOKEN } from './support/image-pods.js';

const TOKEN = SANDBOX_TOKEN;
const { pod, container, tokenSecret, probe } = sandboxPod();

describeWhenReady('sandbox image (docker/Containerfile.sandbox) run as its pod', firstProblem(agentBuiltProblem, containerRunProblem), () => {
  let image: AssembledImage;
  let scratch: string;
  beforeAll(async () => {
    image = await assembleImage('sandbox', mountPaths(container));
    scratch = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-sandbox-'));
    chmodSync(scratch, 0o755); // the kubelet's Secret volumes are readable by the pod's UID
  }, 300_000);
  afterAll(() => {
    image?.remove();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function runPod(uid: number, root = image.root): Promise<{ agent: RunningContainer; netns: TestNetns; done: () => Promise<void> }> {
    const netns = await TestNetns.create();
    const inputs: ClusterInputs = { secrets: sandboxSecrets(tokenSecret), fieldRefs: {}, scratch };
    const agent = startContainer(containerRun(image.runtime, root, pod, container, inputs, uid, netns));
    return { agent, netns, done: async () => {
      await agent.stop();
      await netns.remove();
    } };
  }

  const exec = (netns: TestNetns, body: Record<string, unknown>) =>
    netns.http({ method: 'POST', url: 'http://127.0.0.1:8090/exec', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each([
    ['UID 1001 (the image USER)', 1001],
    ['a random UID without a passwd entry (OpenShift)', 100_000 + Math.floor(Math.random() * 800_000)],
  ])('as %s: passes the readiness probe, runs commands in a writable /workspace, tty mode works', async (_name, uid) => {
    const { agent, netns, done } = await runPod(uid);
    try {
      await agent.waitFor(/"msg":"listening"/);
      const [command, ...args] = netns.wrap(probe);
      expect(JSON.parse(execFileSync(command!, args, { encoding: 'utf8' }))).toMatchObject({ status: 'ok', assigned: true, nonDumpable: true });
      const pipe = await exec(netns, { command: 'id -u; pwd; echo "$HOME"; echo data > notes && cat notes; touch /opt/x 2>&1 || echo ro-root; cat /proc/$PPID/environ >/dev/null 2>&1 && echo agent-environ-read || echo agent-environ-denied' });
      expect(pipe.status).toBe(200);
      const result = JSON.parse(pipe.body) as { stdout: string; exit_code: number };
      expect(result.stdout.split('\n')).toEqual([String(uid), '/workspace', '/workspace', 'data', expect.stringContaining('Read-only file system'), 'ro-root', 'agent-environ-denied']);
      const tty = JSON.parse((await exec(netns, { command: 'test -t 1 && echo terminal', tty: true })).body) as { stdout: string; exit_code: number };
      expect(tty).toMatchObject({ stdout: 'terminal', exit_code: 0 });
    } finally {
      await done();
    }
  }, 60_000);

  it('fails without the agent bundle: a recipe that forgets COPY dist/sandbox-agent never becomes healthy', async () => {
    const broken = await assembleImage('sandbox', mountPaths(container), (copy) => copy.sources.some((s) => s.endsWith('dist/sandbox-agent')));
    const { agent, done } = await runPod(1001, broken.root);
    try {
      expect(await agent.exited).not.toBe(0);
      expect(agent.output()).not.toContain('"msg":"listening"');
      // The ENTRYPOINT names the bundle itself (no launcher), so node reports the missing file by path.
      expect(agent.output()).toContain("Cannot find module '/opt/sandbox-agent/dist/sandbox-agent/main.js'");
    } finally {
      await done();
      broken.remove();
    }
  }, 60_000);

  it('holds runtime files only: the agent bundle, node-pty and the prctl addon (no launcher: the ENTRYPOINT runs the bundle) — no sources, no test support', () => {
    const ours = listTree(join(image.root, 'opt/sandbox-agent')).filter((path) => !path.startsWith('node_modules/'));
    expect(ours.filter((path) => path.endsWith('.ts') || isTestSupport(path))).toEqual([]);
    expect(ours).toContain('dist/sandbox-agent/main.js');
    expect(ours.filter((path) => path.startsWith('bin/'))).toEqual([]);
    expect(listTree(join(image.root, 'opt/sandbox-agent/node_modules')).map((path) => path.split('/')[0])).toEqual(expect.arrayContaining(['node-pty']));
    expect(new Set(listTree(join(image.root, 'opt/sandbox-agent/node_modules')).map((path) => path.split('/')[0]))).toEqual(new Set(['node-pty', '@cli-mcp']));
    // The prctl addon (native/non-dumpable) as files, not npm's link into the sources: package.json and the module.
    expect(listTree(join(image.root, 'opt/sandbox-agent/node_modules/@cli-mcp')).sort()).toEqual(['non-dumpable/build/Release/non_dumpable.node', 'non-dumpable/package.json']);
  });
});

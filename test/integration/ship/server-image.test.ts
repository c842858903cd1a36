/**
 * C-SHIP-1/2, the server image: the runtime stage of docker/Containerfile.server assembled from a clean build runs
 * its ENTRYPOINT on a read-only root as UID 1001 and as a random UID (GID 0): `--help` works, and with the image's
 * own CMD plus the settings an operator passes by env (CLI_MCP_*) and mounted files it serves /live, /health
 * against the dev cluster and MCP behind the bearer. Dropping a COPY must break it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { agentBuiltProblem } from './support/build-state.js';
import { serverPod, serverSecrets, SERVER_BEARER } from './support/image-pods.js';
import { useClusterStage } from './support/dev-cluster.js';
import { assembleImage, REPO_ROOT } from './support/image-harness.js';
import { productionFileProblems } from './support/production-files.js';
import { containerRun, mountPaths } from './support/pod-container.js';
import { containerRunProblem, startContainer } from './support/pod-runner.js';
import { describeWhenReady, firstProblem } from '../../support/prerequisites.js';

const BEARER = SERVER_BEARER;
const POD_HOST = '10.244.0.7:8080'; // what a kubelet probe sends as Host: the pod IP

describeWhenReady('server image (docker/Containerfile.server)', firstProblem(agentBuiltProblem, containerRunProblem), () => {
  const stage = useClusterStage(() => ({ server: mountPaths(serverPod().container) }));

  const inputs = () => ({
    secrets: serverSecrets(readFileSync(stage.cluster.kubeconfig, 'utf8')),
    fieldRefs: {},
    scratch: stage.scratch,
  });
  const start = (uid: number, root = stage.image('server').root, args?: string[]) => {
    const { pod, container } = serverPod(args);
    return startContainer(containerRun(stage.image('server').runtime, root, pod, container, inputs(), uid, stage.netns));
  };

  it('prints --help with every flag and exits 0', async () => {
    const server = start(1001, undefined, ['--help']);
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/--transport[\s\S]*--sandbox-image[\s\S]*CLI_MCP_/);
  });

  it.each([
    ['UID 1001 (the image USER)', 1001],
    ['a random UID without a passwd entry (OpenShift)', 100_000 + Math.floor(Math.random() * 800_000)],
  ])('as %s: the image CMD serves /live, /health against the dev cluster, and MCP behind the bearer', async (_name, uid) => {
    const server = start(uid);
    try {
      await server.waitFor(/"msg":"listening"/);
      expect(await stage.netns.http({ url: 'http://127.0.0.1:8080/live', host: POD_HOST })).toMatchObject({ status: 200 });
      expect(await stage.netns.http({ url: 'http://127.0.0.1:8080/health', host: POD_HOST })).toMatchObject({ status: 200 });
      const mcp = { url: 'http://127.0.0.1:8080/mcp', method: 'POST', host: 'cli-mcp-server:8080', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
      expect(await stage.netns.http({ ...mcp, headers })).toMatchObject({ status: 401 });
      const listed = await stage.netns.http({ ...mcp, headers: { ...headers, authorization: `Bearer ${BEARER}` } });
      expect(listed.status).toBe(200);
      expect(listed.body).toContain('"name":"bash"');
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('--backend local in this image fails at start, saying the image is for Kubernetes and what it lacks (issue 22 item 7)', async () => {
    const server = start(1001, undefined, ['--transport=http', '--address=0.0.0.0:8080', '--backend=local']);
    expect(await server.exited).not.toBe(0);
    expect(server.output()).toContain('--backend local cannot run in this installation: it has no sandbox agent bundle (dist/sandbox-agent)');
    expect(server.output()).toContain('The server image is for --backend kubernetes');
    expect(server.output()).not.toContain('npm run build');
    expect(server.output()).not.toContain('"msg":"listening"');
  }, 60_000);

  it('fails when a COPY is dropped: without dist/mcp-server (the bundle) the server never listens', async () => {
    const broken = await assembleImage('server', mountPaths(serverPod().container), (copy) => copy.sources.some((s) => s.endsWith('dist/mcp-server')));
    try {
      const server = start(1001, broken.root);
      expect(await server.exited).not.toBe(0);
      expect(server.output()).toContain('is not built yet');
      expect(server.output()).not.toContain('"msg":"listening"');
    } finally {
      broken.remove();
    }
  }, 60_000);

  it('holds what runs only: no sources, no test support, no node_modules; an SBOM of the production dependencies without node-pty', () => {
    const { problems, sbom } = productionFileProblems(join(stage.image('server').root, 'opt/cli-mcp-server'), join(REPO_ROOT, 'package-lock.json'));
    expect(problems).toEqual([]);
    expect(sbom.has('@kubernetes/client-node')).toBe(true);
    expect(sbom.has('node-pty')).toBe(false);
  });
});

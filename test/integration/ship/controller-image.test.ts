/**
 * C-SHIP-1/2, the controller image: the runtime stage of docker/Containerfile.controller assembled from a clean
 * build runs its ENTRYPOINT on a read-only root without any writable volume, as UID 1001 and as a random UID
 * (GID 0): `--help` works, and with the image's own CMD plus the settings an operator passes by env (CLI_MCP_*)
 * and a mounted kubeconfig it serves /live, /health and /metrics and becomes the instance's leader on the dev
 * cluster. Dropping a COPY must break it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { agentBuiltProblem } from './support/build-state.js';
import { controllerPod } from './support/image-pods.js';
import { useClusterStage } from './support/dev-cluster.js';
import { assembleImage, REPO_ROOT } from './support/image-harness.js';
import { containerRun, mountPaths } from './support/pod-container.js';
import { containerRunProblem, startContainer } from './support/pod-runner.js';
import { describeWhenReady, firstProblem } from '../../support/prerequisites.js';
import { productionFileProblems } from './support/production-files.js';

const POD_HOST = '10.244.0.8:8081'; // what a kubelet probe or a Prometheus scrape sends as Host: the pod IP

describeWhenReady('controller image (docker/Containerfile.controller)', firstProblem(agentBuiltProblem, containerRunProblem), () => {
  const stage = useClusterStage(() => ({ controller: mountPaths(controllerPod('x').container) }));

  const start = (uid: number, namespace: string, root = stage.image('controller').root, args?: string[]) => {
    const { pod, container } = controllerPod(namespace, args);
    const inputs = { secrets: { kube: { config: readFileSync(stage.cluster.kubeconfig, 'utf8') } }, fieldRefs: {}, scratch: stage.scratch };
    return startContainer(containerRun(stage.image('controller').runtime, root, pod, container, inputs, uid, stage.netns));
  };
  const get = (path: string) => stage.netns.http({ url: `http://127.0.0.1:8081${path}`, host: POD_HOST });

  it('prints --help with every flag and exits 0', async () => {
    const controller = start(1001, 'help', undefined, ['--help']);
    expect(await controller.exited).toBe(0);
    expect(controller.output()).toMatch(/--identity[\s\S]*--warm-pool-size[\s\S]*--sandbox-image[\s\S]*CLI_MCP_/);
  });

  it.each([
    ['UID 1001 (the image USER)', 1001, 'ship-uid-1001'],
    ['a random UID without a passwd entry (OpenShift)', 100_000 + Math.floor(Math.random() * 800_000), 'ship-uid-random'],
  ])('as %s: the image CMD serves /live, /health and /metrics and becomes the leader on the dev cluster', async (_name, uid, namespace) => {
    const controller = start(uid, namespace);
    try {
      await controller.waitFor(/"msg":"became leader"/);
      expect(await get('/live')).toMatchObject({ status: 200 });
      const health = await get('/health');
      expect(health.status).toBe(200);
      const { details } = JSON.parse(health.body) as { details: { election: { role: string; identity: string; holder: string } } };
      expect(details.election).toMatchObject({ role: 'leader', holder: details.election.identity });
      const metrics = await get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^cli_mcp_controller_leader 1$/m);
    } finally {
      await controller.stop();
    }
  }, 60_000);

  it('fails when a COPY is dropped: without the bundle (dist/sandbox-controller) the controller never listens', async () => {
    const broken = await assembleImage('controller', mountPaths(controllerPod('x').container), (copy) => copy.sources.some((s) => s.endsWith('dist/sandbox-controller')));
    try {
      const controller = start(1001, 'broken', broken.root);
      expect(await controller.exited).not.toBe(0);
      expect(controller.output()).toContain('sandbox-controller is not built yet');
      expect(controller.output()).not.toContain('"msg":"listening"');
    } finally {
      broken.remove();
    }
  }, 60_000);

  it('holds what runs only: no sources, no test support, no node_modules; an SBOM of the production dependencies without node-pty', () => {
    const { problems, sbom } = productionFileProblems(join(stage.image('controller').root, 'opt/sandbox-controller'), join(REPO_ROOT, 'package-lock.json'));
    expect(problems).toEqual([]);
    expect(sbom.has('@kubernetes/client-node')).toBe(true);
    expect(sbom.has('node-pty')).toBe(false);
  });
});

/**
 * Issue 22 items 5–7 and C-SHIP-1/2/5 on real images: every docker/Containerfile.* is built with podman
 * (scripts/images-build.mjs: reused by content hash, so .ci/run builds once for both passes; the base is the
 * official node image or a stand-in, printed as such), then started as its pod starts it — read-only root, no
 * capabilities, emptyDirs and Secrets mounted, as UID 1001 and as a random UID with GID 0 — in a network namespace
 * of the test's own where the dev cluster (the fake API server) listens on loopback. Each must become ready, and
 * carry only what runs: no source maps, no node_modules the bundle does not load, node-pty without foreign
 * prebuilds, an SBOM. A machine without podman skips with the reason; under CI=true that is a failure.
 * Generic over the images: each docker/Containerfile.<name> needs a profile below (how its pod runs, what ready is).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useClusterStage, type ClusterStage } from './support/dev-cluster.js';
import { controllerPod, egressPod, sandboxPod, sandboxSecrets, serverPod, serverSecrets, SANDBOX_TOKEN, SERVER_BEARER, type PodUnderTest } from './support/image-pods.js';
import { readRecipe, REPO_ROOT, type ImageName } from './support/image-harness.js';
import { listTree } from './support/image-root.js';
import { containerRun, type ClusterInputs } from './support/pod-container.js';
import { ciImages, podmanExec, podmanProblem, startPodman, withImageRoot } from './support/podman-runner.js';
import { describeWhenReady } from '../../support/prerequisites.js';

type Started = ReturnType<typeof startPodman>;

interface ImageProfile {
  /** The app's folder in the image. */
  readonly appDir: string;
  /** node_modules entries the app loads at run time (none for a bundle). */
  readonly modules: readonly string[];
  /** The pod (and its Secrets) for one run; `run` numbers runs (unique namespaces, leases). */
  pod(stage: ClusterStage, run: number): PodUnderTest & { secrets: ClusterInputs['secrets'] };
  /** Resolves once the started container is ready as its probes see it, and checks it works. */
  ready(started: Started, stage: ClusterStage, uid: number): Promise<void>;
}

const kubeconfig = (stage: ClusterStage) => readFileSync(stage.cluster.kubeconfig, 'utf8');
const sandbox = sandboxPod();

const PROFILES: Record<string, ImageProfile> = {
  server: {
    appDir: '/opt/cli-mcp-server',
    modules: [],
    pod: (stage) => ({ ...serverPod(), secrets: serverSecrets(kubeconfig(stage)) }),
    ready: async (started, stage) => {
      await started.waitFor(/"msg":"listening"/);
      expect(await stage.netns.http({ url: 'http://127.0.0.1:8080/health', host: '10.244.0.7:8080' })).toMatchObject({ status: 200 });
      const mcp = await stage.netns.http({
        url: 'http://127.0.0.1:8080/mcp', method: 'POST', host: 'cli-mcp-server:8080', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${SERVER_BEARER}` },
      });
      expect(mcp.body).toContain('"name":"bash"');
    },
  },
  controller: {
    appDir: '/opt/sandbox-controller',
    modules: [],
    pod: (stage, run) => ({ ...controllerPod(`podman-${run}`), secrets: { kube: { config: kubeconfig(stage) } } }),
    ready: async (started, stage) => {
      await started.waitFor(/"msg":"became leader"/);
      const health = await stage.netns.http({ url: 'http://127.0.0.1:8081/health', host: '10.244.0.8:8081' });
      expect(health.status).toBe(200);
      expect(health.body).toContain('"role":"leader"');
    },
  },
  egress: {
    appDir: '/opt/cli-mcp-egress',
    modules: [],
    pod: (stage, run) => ({ ...egressPod(`podman-${run}`), secrets: { kube: { config: kubeconfig(stage) }, routes: { 'routes.json': '{"allow": ["pypi.org:443"]}' } } }),
    ready: async (started, stage) => {
      await started.waitFor(/"msg":"published the sandbox ConfigMap"/);
      // Ready once its pod informer has listed the namespace: polled, the probe's way.
      const readyz = () => stage.netns.http({ url: 'http://127.0.0.1:9090/readyz', host: '10.244.0.9:9090' });
      let last = await readyz();
      for (const deadline = Date.now() + 30_000; last.status !== 200 && Date.now() < deadline; last = await readyz()) await new Promise((r) => setTimeout(r, 200));
      expect(last).toMatchObject({ status: 200 });
      // The proxy port is up, and a connection from an address no pod has belongs to no session.
      const refused = await stage.netns.http({ url: 'http://127.0.0.1:3128/', host: 'pypi.org' });
      expect(refused).toMatchObject({ status: 403, body: expect.stringContaining('this connection belongs to no session') });
    },
  },
  sandbox: {
    appDir: '/opt/sandbox-agent',
    modules: ['@cli-mcp', 'node-pty'],
    pod: (stage) => ({ ...sandbox, secrets: sandboxSecrets(sandbox.tokenSecret, kubeconfig(stage)) }),
    ready: async (started, stage, uid) => {
      await started.waitFor(/"msg":"listening"/);
      // The pod's own readiness probe, inside the container (curl is part of the image's contract).
      expect(JSON.parse(await podmanExec(started.name, sandbox.probe))).toMatchObject({ status: 'ok', nonDumpable: true });
      const exec = async (body: Record<string, unknown>) => JSON.parse((await stage.netns.http({
        method: 'POST', url: 'http://127.0.0.1:8090/exec', headers: { authorization: `Bearer ${SANDBOX_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      })).body) as { stdout: string; exit_code: number };
      // A name for any UID (issue 22 item 7), a writable /workspace on a read-only root, the CLIs on PATH, kubectl
      // reaching the dev cluster through the mounted kubeconfig.
      const pipe = await exec({ command: 'id -u; whoami; id -un; echo x > /workspace/f && cat /workspace/f; touch /opt/x 2>/dev/null || echo ro-root; jq --version >/dev/null && yq --version >/dev/null && echo tools; kubectl get namespaces -o name >/dev/null && echo kubectl' });
      expect(pipe.stdout.split('\n')).toEqual([String(uid), 'sandbox', 'sandbox', 'x', 'ro-root', 'tools', 'kubectl']);
      expect(await exec({ command: 'test -t 1 && echo terminal', tty: true })).toMatchObject({ stdout: 'terminal', exit_code: 0 });
    },
  },
};

const names = readdirSync(join(REPO_ROOT, 'docker')).filter((file) => file.startsWith('Containerfile.')).map((file) => file.slice('Containerfile.'.length)).sort();
const RANDOM_UID = 100_000 + Math.floor(Math.random() * 800_000);

describeWhenReady('images built and run with podman (docker/Containerfile.*)', podmanProblem(), () => {
  const stage = useClusterStage(() => ({}));
  let tags = new Map<string, string>();
  beforeAll(async () => {
    tags = await ciImages(names);
  }, 45 * 60_000);

  it('every Containerfile has a run profile here', () => {
    expect(names.filter((name) => PROFILES[name] === undefined)).toEqual([]);
  });

  let runs = 0;
  describe.each(names.filter((name) => PROFILES[name] !== undefined))('%s', (name) => {
    const profile = PROFILES[name]!;

    it.each([
      ['UID 1001 (the image USER)', 1001],
      ['a random UID without a passwd entry (OpenShift)', RANDOM_UID],
    ])('runs read-only as %s against the dev cluster and becomes ready', async (_label, uid) => {
      const { pod, container, secrets } = profile.pod(stage, ++runs);
      const runtime = readRecipe(name as ImageName).at(-1)!;
      const started = startPodman(tags.get(name)!, containerRun(runtime, '', pod, container, { secrets, fieldRefs: {}, scratch: stage.scratch }, uid, stage.netns));
      try {
        await profile.ready(started, stage, uid);
      } finally {
        await started.stop();
      }
    }, 120_000);

    it('carries only what runs: no source maps, no node_modules the app does not load, node-pty and the prctl addon without foreign builds or sources, an SBOM', async () => {
      await withImageRoot(tags.get(name)!, (root) => {
        const files = listTree(join(root, profile.appDir));
        expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
        expect([...new Set(files.filter((path) => path.startsWith('node_modules/')).map((path) => path.split('/')[1]))].sort()).toEqual(profile.modules);
        const pty = files.filter((path) => path.startsWith('node_modules/node-pty/'));
        expect(pty.filter((path) => !/^node_modules\/node-pty\/(package\.json|LICENSE|lib\/.*\.js|build\/Release\/pty\.node)$/.test(path))).toEqual([]);
        if (profile.modules.includes('node-pty')) expect(pty).toContain('node_modules/node-pty/build/Release/pty.node');
        // The prctl addon (native/non-dumpable): its package.json and the module compiled in the build, nothing else.
        const addon = files.filter((path) => path.startsWith('node_modules/@cli-mcp/'));
        if (profile.modules.includes('@cli-mcp')) expect(addon.sort()).toEqual(['node_modules/@cli-mcp/non-dumpable/build/Release/non_dumpable.node', 'node_modules/@cli-mcp/non-dumpable/package.json']);
        const sbom = JSON.parse(readFileSync(join(root, profile.appDir, 'sbom.cdx.json'), 'utf8')) as { bomFormat: string; components: unknown[] };
        expect(sbom.bomFormat).toBe('CycloneDX');
        expect(sbom.components.length).toBeGreaterThan(10);
      });
    }, 60_000);
  });
});

// Image benchmark (issue 22 item 6): the images CI builds (scripts/images-build.mjs, reused by content hash), their
// size over the base image and the idle RSS of each app inside its image, run as its pod runs it (read-only root,
// UID 1001, GID 0) against the fake API server. Goals: server and controller add ≤ 40 MB over the base, the
// sandbox ≤ 150 MB; idle RSS server ≤ 100 MB, controller ≤ 80 MB. BENCH_IMAGES_BEFORE=<repository prefix> adds
// the images built from an older checkout under that prefix (e.g. localhost/before-cli-mcp-) as "before" rows.
// Needs podman and root; skipped with the reason otherwise. Loopback only (host network, ephemeral ports).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeCluster } from '../dist/libs/testing/src/index.js';
import { buildImages } from '../scripts/images-build.mjs';
import { findEngine, ULIMIT_FLAGS } from '../scripts/image-engine.mjs';
import { quantityGoal } from './lib/goals.mjs';
import { median, printTable } from './lib/stats.mjs';

const IDLE_MS = Number(process.env.BENCH_IMAGES_IDLE_MS ?? 10_000);
// Idle RSS of one start varies by ±5 MB (when V8's background compiles and GCs happen during start-up), so each
// figure is the median of several starts.
const STARTS = Number(process.env.BENCH_IMAGES_STARTS ?? 3);
const MB = 1e6;
const SIZE_GOALS = { server: 40, controller: 40, sandbox: 150 };
const RSS_GOALS = { server: 100, controller: 80 };

/** How each image runs for the measurement: args, env and mounts of its pod, on an ephemeral loopback port. */
function podOf(name, dir, kubeconfig) {
  const kube = join(dir, 'kube');
  writeFileSync(join(dir, 'token'), 'bench-bearer-token-0123456789abcdef\n');
  writeFileSync(join(dir, 'key'), 'k'.repeat(64));
  writeFileSync(kube, kubeconfig);
  for (const file of ['token', 'key', 'kube']) chmodSync(join(dir, file), 0o644);
  const common = { CLI_MCP_KUBECONFIG: '/etc/cli-mcp/kube', CLI_MCP_NAMESPACE: 'default', CLI_MCP_INSTANCE_NAME: 'bench', CLI_MCP_SANDBOX_IMAGE: 'cli-mcp-sandbox:bench', CLI_MCP_KUBECONFIG_SECRET: 'investigation', CLI_MCP_SANDBOX_SERVICE_ACCOUNT: 'sandbox' };
  if (name === 'server') {
    return { args: ['--transport=http', '--address=127.0.0.1:0', '--backend=kubernetes'], env: { ...common, CLI_MCP_AUTH_TOKEN_FILE: '/etc/cli-mcp/token', CLI_MCP_HMAC_KEY_FILE: '/etc/cli-mcp/key' },
      mounts: [[join(dir, 'token'), '/etc/cli-mcp/token'], [join(dir, 'key'), '/etc/cli-mcp/key'], [kube, '/etc/cli-mcp/kube']], tmpfs: ['/tmp'], ready: 'listening' };
  }
  if (name === 'controller') return { args: ['--address=127.0.0.1:0'], env: common, mounts: [[kube, '/etc/cli-mcp/kube']], tmpfs: [], ready: 'became leader' };
  if (name === 'sandbox') return { args: undefined, env: { SANDBOX_AUTH_TOKEN: 'f'.repeat(64), SANDBOX_AGENT_PORT: '0', SANDBOX_AGENT_HOST: '127.0.0.1' }, mounts: [], tmpfs: ['/tmp', '/workspace'], ready: 'listening' };
  return undefined;
}

function podman(args, options = {}) {
  const engine = findEngine();
  return spawnSync(engine[0], [...engine.slice(1), ...args], { encoding: 'utf8', ...options });
}

/** The median idle RSS of STARTS starts of `tag` (one after the other). */
async function medianIdleRss(tag, pod) {
  const samples = [];
  for (let i = 0; i < STARTS; i++) samples.push(await idleRss(tag, pod));
  return median(samples);
}

/** Starts `tag` as its pod, waits for its ready log line, idles IDLE_MS, returns the app's RSS in MB. */
async function idleRss(tag, pod) {
  const name = `cli-mcp-bench-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
  const engine = findEngine();
  const args = ['run', '--rm', '--name', name, '--read-only', '--read-only-tmpfs=false', '--user', '1001:0', '--cap-drop=ALL', '--network', 'host', ...ULIMIT_FLAGS];
  for (const dir of pod.tmpfs) args.push('--tmpfs', `${dir}:rw,mode=1777`);
  for (const [host, path] of pod.mounts) args.push('-v', `${host}:${path}:ro`);
  for (const [key, value] of Object.entries(pod.env)) args.push('-e', `${key}=${value}`);
  // To try Node flags on the images as built (e.g. heap sizes), without rebuilding them.
  if (process.env.BENCH_IMAGES_NODE_OPTIONS) args.push('-e', `NODE_OPTIONS=${process.env.BENCH_IMAGES_NODE_OPTIONS}`);
  args.push(tag, ...(pod.args ?? []));
  const child = spawn(engine[0], [...engine.slice(1), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes(`"msg":"${pod.ready}"`)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', () => reject(new Error(`${tag} exited before "${pod.ready}":\n${output.slice(-2000)}`)));
  });
  try {
    await Promise.race([ready, sleep(60_000).then(() => Promise.reject(new Error(`${tag}: not ready in 60 s:\n${output.slice(-2000)}`)))]);
    await sleep(IDLE_MS);
    const pid = podman(['inspect', '--format', '{{.State.Pid}}', name]).stdout.trim();
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return (rssKb * 1024) / MB;
  } finally {
    podman(['kill', name]);
    if (child.exitCode === null) await new Promise((resolve) => child.on('close', resolve));
  }
}

const imageSize = (tag) => Number(podman(['image', 'inspect', '--format', '{{.Size}}', tag]).stdout.trim()) / MB;

/** The newest `ci-*` tag of `<prefix><name>`, if any. */
function latestTag(prefix, name) {
  const out = podman(['images', '--sort', 'created', '--format', '{{.Repository}}:{{.Tag}}', `${prefix}${name}`]).stdout;
  return out.split('\n').find((tag) => tag.includes(':ci-'));
}

export async function runImagesBench() {
  const engine = findEngine();
  if (!engine?.[0].endsWith('podman') || process.getuid?.() !== 0) {
    console.log('\nImages benchmark skipped: needs podman and root (docs/operations.md, "Images built by CI").');
    return;
  }
  const started = Date.now();
  const { base, images } = buildImages({ log: () => {} });
  const buildSeconds = (Date.now() - started) / 1000;
  const baseSize = imageSize(base.ref);
  const beforePrefix = process.env.BENCH_IMAGES_BEFORE;
  const dir = mkdtempSync(join(tmpdir(), 'images-bench-'));
  chmodSync(dir, 0o755);
  const cluster = await startFakeCluster({ kubelet: false });
  const rows = [];
  try {
    for (const { name, tag, cached } of images) {
      const pod = podOf(name, dir, readFileSync(cluster.kubeconfigPath, 'utf8'));
      const before = beforePrefix ? latestTag(beforePrefix, name) : undefined;
      const measure = async (t) => ({ size: imageSize(t), rss: pod ? await medianIdleRss(t, pod) : NaN });
      rows.push({ name, cached, after: await measure(tag), before: before ? await measure(before) : undefined });
    }
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const mb = (value) => (Number.isNaN(value) ? '—' : `${value.toFixed(1)} MB`);
  console.log(`\nBase: ${base.standIn ?? `${base.ref} (official)`}; ${mb(baseSize)}. Images ${images.every((i) => i.cached) ? 'reused (content hash)' : 'built'} in ${buildSeconds.toFixed(0)} s.`);
  printTable(`Images: size over the base and idle RSS (UID 1001, read-only root, ${IDLE_MS / 1000} s after ready, median of ${STARTS} starts)`,
    ['image', 'size', 'added over base', 'goal (added)', 'idle RSS', 'goal (RSS)'],
    rows.map(({ name, after }) => [name, mb(after.size), mb(after.size - baseSize), SIZE_GOALS[name] ? `≤ ${SIZE_GOALS[name]} MB` : '—', mb(after.rss), RSS_GOALS[name] ? `≤ ${RSS_GOALS[name]} MB` : '—']));
  if (rows.some((row) => row.before)) {
    printTable(`Before (${beforePrefix}*) and after (this checkout)`, ['image', 'added over base: before', 'after', 'idle RSS: before', 'after'],
      rows.filter((row) => row.before).map(({ name, before, after }) => [name, mb(before.size - baseSize), mb(after.size - baseSize), mb(before.rss), mb(after.rss)]));
  }
  for (const { name, after } of rows) {
    if (SIZE_GOALS[name]) quantityGoal('images', `${name} image adds over the base`, after.size - baseSize, { unit: 'MB', atMost: SIZE_GOALS[name] });
    if (RSS_GOALS[name]) quantityGoal('images', `${name} idle RSS in the image`, after.rss, { unit: 'MB', atMost: RSS_GOALS[name] });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runImagesBench();

import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Prefix of this worktree's namespaces: other checkouts on the machine use their own. */
const PREFIX = `cmship-${createHash('sha256').update(process.cwd()).digest('hex').slice(0, 6)}-`;
let counter = 0;

/**
 * A network namespace of the test's own, with only `lo` up: a pod's private network, so images can bind their
 * real ports (8080, 8090 on 0.0.0.0) without meeting anything else on this machine. Needs root (`ip netns`).
 */
export class TestNetns {
  private constructor(readonly name: string) {}

  static async create(): Promise<TestNetns> {
    removeLeftovers();
    const netns = new TestNetns(`${PREFIX}${process.pid}-${++counter}`);
    await run('ip', ['netns', 'add', netns.name]);
    await run('ip', ['-n', netns.name, 'link', 'set', 'lo', 'up']);
    return netns;
  }

  /** `argv` prefixed so that it runs inside this namespace. */
  wrap(argv: readonly string[]): string[] {
    return ['ip', 'netns', 'exec', this.name, ...argv];
  }

  /**
   * One HTTP request from inside the namespace with curl (a client independent of the code under test). `host`
   * sets the Host header — what a kubelet probe or a Prometheus scrape sends is `<pod IP>:<port>`.
   */
  async http(request: { url: string; method?: string; host?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
    const args = ['-sS', '--max-time', '10', '-o', '-', '-w', '\n%{http_code}', '-X', request.method ?? 'GET'];
    if (request.host !== undefined) args.push('-H', `Host: ${request.host}`);
    for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}: ${value}`);
    if (request.body !== undefined) args.push('--data-binary', request.body);
    const [command, ...rest] = this.wrap(['curl', ...args, request.url]);
    const { stdout } = await run(command!, rest, { maxBuffer: 16 * 1024 * 1024 });
    const at = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
  }

  async remove(): Promise<void> {
    await run('ip', ['netns', 'delete', this.name]).catch(() => undefined);
  }
}

/** Namespaces this worktree's earlier test processes left behind (killed before their afterAll). */
function removeLeftovers(): void {
  let names: string[];
  try {
    names = readdirSync('/run/netns');
  } catch {
    return;
  }
  for (const name of names.filter((n) => n.startsWith(PREFIX))) {
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (pid !== process.pid && !processAlive(pid)) spawnSync('ip', ['netns', 'delete', name]);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

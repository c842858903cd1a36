import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A network namespace of the test's own, with only `lo` up: a pod's private network, so images can bind their
 * real ports (8080, 8090 on 0.0.0.0) without meeting anything else on this machine. Held by a child process
 * that lives as long as the test process (it ends on stdin EOF), so nothing is left behind even after a kill -9;
 * no name in /run/netns, whose shared set-up races between parallel `ip netns add`. Needs root (nsenter).
 */
export class TestNetns {
  private constructor(private readonly holder: ChildProcess) {}

  static async create(): Promise<TestNetns> {
    const holder = spawn('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && echo ready && read _'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    holder.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`could not make a network namespace (unshare exited ${code}): ${stderr}`)));
    });
    return new TestNetns(holder);
  }

  /** The namespace as a path, for tools that join one by path (`podman run --network ns:<path>`). */
  path(): string {
    return `/proc/${this.holder.pid}/ns/net`;
  }

  /** `argv` prefixed so that it runs inside this namespace. */
  wrap(argv: readonly string[]): string[] {
    return ['nsenter', `--net=${this.path()}`, '--', ...argv];
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
    if (this.holder.exitCode !== null || this.holder.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.holder.once('exit', () => resolve()));
    this.holder.stdin!.end();
    await exited;
  }
}

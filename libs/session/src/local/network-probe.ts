import { SANDBOX_PATH } from './launch-spec.js';
import { describeExit, type ProcessLauncher } from './process-launcher.js';
import type { NetworkAttacher } from './slirp-network.js';

/** A check that answers undefined when it works, else what failed. */
export type NetworkProbe = () => Promise<string | undefined>;

export interface NetworkProbeDeps {
  launcher: ProcessLauncher;
  attacher: NetworkAttacher;
  /** The real two-level bubblewrap command for `isolated`, with an info fd and a command that waits. */
  command: { command: string; args: string[] };
  timeoutMs: number;
}

/**
 * Whether an isolated sandbox network can really be made here (C-SEC-2, C-SEC-4): one throw-away sandbox, built
 * exactly as the real ones are, gets slirp4netns attached, then both end. `slirp4netns --version` alone proves
 * nothing: on a laptop the attach fails for reasons only an attach shows — `/dev/net/tun` not readable and
 * writable by the server's user, a network namespace owned by a user namespace slirp4netns cannot join — and
 * then every command of every session would fail, while `/health` said "isolated". Costs one sandbox start
 * (≈ 20–50 ms), once, at server start.
 */
export async function probeIsolatedNetwork(deps: NetworkProbeDeps): Promise<string | undefined> {
  const child = deps.launcher.launch({ ...deps.command, env: { PATH: SANDBOX_PATH }, cwd: '/', extraFds: [{ kind: 'info' }] });
  child.readyLine.catch(() => undefined); // the probe sandbox runs no agent
  try {
    const pid = await child.sandboxPid;
    if (pid === undefined) return `the probe sandbox did not start (${describeExit(await child.exited)}): ${child.stderrTail().trim()}`;
    const network = await deps.attacher.attach(pid, AbortSignal.timeout(deps.timeoutMs));
    await network.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    child.kill('SIGKILL');
    await child.exited;
  }
}

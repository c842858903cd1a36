import type { AgentEndpoints } from './agent-endpoint.js';
import { agentEndpoints } from './agent-endpoint.js';
import { buildBwrapCommand, type SandboxNetworkMode, type SandboxUser } from './bwrap-command.js';
import type { CommandRunner } from './command-runner.js';
import type { HostFs, RootEntry } from './host-fs.js';
import { PROBE_TIMEOUT_MS, resolvePosture, type SandboxPosture } from './isolation.js';
import { probeIsolatedNetwork, type NetworkProbe } from './network-probe.js';
import { NodeProcessLauncher } from './node-process-launcher.js';
import { FIRST_EXTRA_FD } from './process-launcher.js';
import type { LocalIsolation, LocalNetwork } from './local-backend.options.js';
import { checkReadOnlyBinds } from './read-only-binds.js';
import { sandboxResolvConf } from './sandbox-dns.js';
import type { SpawnerPlan } from './sandbox-spawner.js';
import { PRIVATE_DIRS, planViewBase, type SandboxView, type ViewBase } from './sandbox-view.js';
import { Slirp4netnsAttacher, type NetworkAttacher } from './slirp-network.js';

/** The uid/gid sandboxes of a root server run as: `nobody`, present on every distribution. */
export const ROOT_SANDBOX_USER: SandboxUser = { uid: 65534, gid: 65534 };

export interface SandboxPlanInput {
  isolation: LocalIsolation;
  network: LocalNetwork;
  /** Resolved: undefined = the server's own user. */
  sandboxUser?: SandboxUser;
  /** The server process's uid/gid. */
  serverUser: SandboxUser;
  bwrapPath: string;
  slirpPath: string;
  setprivPath: string;
  agentEntry: string;
  stateDir: string;
  readOnlyBinds: readonly string[];
  /** Sizes of the private tmpfs directories (the probes use them too, so a bubblewrap without `--size` is caught at start). */
  tmpfsSizes?: Readonly<Record<string, number>>;
  secretPaths: readonly string[];
  runner: CommandRunner;
  hostFs: HostFs;
  /** Overrides for tests; default from the resolved network. */
  endpoints?: AgentEndpoints;
  attacher?: NetworkAttacher;
  /** Overrides the real attach probe; with a fake `attacher` and no probe, none runs. */
  networkProbe?: NetworkProbe;
}

/**
 * Decides once, at start, how every sandbox of this server is built: the posture (what works here, C-SEC-4), the
 * deny-by-default view (C-SEC-1) and the network (C-SEC-2). Configuration problems throw SessionErrors naming
 * their flag.
 */
export interface SandboxPlan extends Omit<SpawnerPlan, 'launch'> {
  /** The bubblewrap probe `/health` repeats (C-HTTP-2); unset without bubblewrap. */
  healthProbe?: { command: string; args: string[] };
}

export async function planSandboxes(input: SandboxPlanInput): Promise<SandboxPlan> {
  const bwrapBase = {
    bwrapPath: input.bwrapPath, setprivPath: input.setprivPath, dropTo: input.sandboxUser, serverUser: input.serverUser, tmpfsSizes: input.tmpfsSizes,
  };
  const rootEntries = await input.hostFs.listRoot();
  const bwrapProbe = (network: SandboxNetworkMode) =>
    buildBwrapCommand({ ...bwrapBase, network, view: probeView(rootEntries), fileFds: [], command: ['true'] });
  const slirp = (): NetworkAttacher => new Slirp4netnsAttacher(input.slirpPath, input.sandboxUser === undefined);
  const networkProbe = input.networkProbe ?? (input.attacher ? undefined : () => probeIsolatedNetwork({
    launcher: new NodeProcessLauncher(), attacher: slirp(), timeoutMs: PROBE_TIMEOUT_MS,
    command: buildBwrapCommand({
      ...bwrapBase, network: 'isolated', view: probeView(rootEntries), fileFds: [], infoFd: FIRST_EXTRA_FD, command: ['sleep', '60'],
    }),
  }));
  const posture: SandboxPosture = await resolvePosture(input.isolation, input.network, {
    runner: input.runner, slirpPath: input.slirpPath, dropTo: input.sandboxUser, bwrapProbe, networkProbe,
  });
  const endpoints = input.endpoints ?? agentEndpoints(input.stateDir);
  if (posture.isolation === 'none') return { posture, endpoints };
  const extraReadOnly = await checkReadOnlyBinds(input.readOnlyBinds, {
    hostFs: input.hostFs, stateDir: input.stateDir, secretPaths: input.secretPaths,
  });
  const hostResolvConf = (await input.hostFs.readText('/etc/resolv.conf')) ?? '';
  const viewBase: ViewBase = await planViewBase({
    hostFs: input.hostFs, agentEntry: input.agentEntry, extraReadOnly,
    resolvConf: sandboxResolvConf(hostResolvConf, posture.network),
  });
  const attacher = posture.network === 'isolated' ? (input.attacher ?? slirp()) : undefined;
  return { posture, viewBase, bwrap: bwrapBase, endpoints, attacher, healthProbe: bwrapProbe(posture.network) };
}

/** The probe runs the real two-level command over the system entries only (no agent, no workspace). */
function probeView(rootEntries: readonly RootEntry[]): SandboxView {
  const mounts = rootEntries
    .filter((entry) => ['usr', 'bin', 'lib', 'lib64', 'sbin'].includes(entry.name))
    .map((entry) => (entry.symlinkTarget !== undefined
      ? { kind: 'symlink' as const, target: entry.symlinkTarget, dest: `/${entry.name}` }
      : { kind: 'ro-bind' as const, source: `/${entry.name}`, dest: `/${entry.name}` }));
  return { mounts, files: [], privateDirs: PRIVATE_DIRS, agentEntry: 'true' };
}

import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SandboxNetworkMode, SandboxUser } from './bwrap-command.js';
import type { CommandRunner } from './command-runner.js';
import type { LocalIsolation, LocalNetwork } from './local-backend.options.js';
import type { NetworkProbe } from './network-probe.js';

/** Bound of every start-up probe (bubblewrap, slirp4netns, the attach probe). */
export const PROBE_TIMEOUT_MS = 10_000;

/** What the sandboxes of this server really get, once `auto` is resolved; `/health` shows it (C-SEC-4). */
export interface SandboxPosture {
  readonly isolation: 'bwrap' | 'none';
  readonly network: SandboxNetworkMode;
  /** Who sandbox commands run as: the server's own user, or an unprivileged one (server running as root). */
  readonly user: 'server' | SandboxUser;
  /** One loud sentence per protection that is off, each naming what to install or set (C-SEC-2, C-SEC-4). */
  readonly warnings: readonly string[];
}

export interface PostureProbes {
  runner: CommandRunner;
  /** The real two-level bubblewrap command with `true` as the sandbox command, for the given network. */
  bwrapProbe(network: SandboxNetworkMode): { command: string; args: string[] };
  slirpPath: string;
  /** Attaches slirp4netns to a throw-away isolated sandbox (network-probe.ts); unset where tests fake the network. */
  networkProbe?: NetworkProbe;
  /** Set when the server runs as root (sandboxes then run as this user). */
  dropTo?: SandboxUser;
}

export const NO_ISOLATION_WARNING =
  'local sandboxes run WITHOUT isolation: commands run as the server\'s own user, see its whole filesystem (the ' +
  'HMAC key included, so one session can act as any other) and its network; install bubblewrap (Debian package ' +
  '"bubblewrap") and allow unprivileged user namespaces, or use --backend kubernetes';
export const HOST_NETWORK_WARNING =
  'local sandboxes share the host network: a command can reach this server\'s port, other sandboxes\' agents and ' +
  'every service on the host\'s loopback; install slirp4netns (Debian package "slirp4netns") for ' +
  '--local-network isolated';

/**
 * Resolves `--local-isolation` and `--local-network` against what works here (C-SEC-2, C-SEC-4): `auto` falls
 * back — loudly — where a tool is missing; an explicit choice that cannot be honoured is a configuration error
 * naming its flag, since silently running with less isolation than asked for is worse than not starting.
 */
export async function resolvePosture(isolation: LocalIsolation, network: LocalNetwork, probes: PostureProbes): Promise<SandboxPosture> {
  if (isolation === 'none' && network === 'proxy') throw unusable(PROXY_NEEDS_BUBBLEWRAP('--local-isolation=none turns it off'));
  if (isolation === 'none') return withoutIsolation();
  const wanted: SandboxNetworkMode = network === 'auto' ? 'isolated' : network;
  const probe = probes.bwrapProbe(wanted);
  const bwrap = await probes.runner.run(probe.command, probe.args, PROBE_TIMEOUT_MS);
  if (!bwrap.ok) {
    if (isolation === 'bwrap') {
      throw unusable(`--local-isolation=bwrap but bubblewrap is not usable: ${bwrap.detail}; install bubblewrap (and allow unprivileged user namespaces) or use --local-isolation=none`);
    }
    // Egress through the gateway is only enforced by a sandbox without any other network (C-EGR-1).
    if (network === 'proxy') throw unusable(PROXY_NEEDS_BUBBLEWRAP(`it is not usable here: ${bwrap.detail}`));
    if (network === 'isolated' || network === 'none') {
      // Without bubblewrap nothing can take the network away: refuse rather than run sandboxes with it.
      throw unusable(`--local-network=${network} needs bubblewrap isolation, which is not usable here: ${bwrap.detail}; install bubblewrap (and allow unprivileged user namespaces) or use --local-network=host`);
    }
    return withoutIsolation(`bubblewrap is not usable (${bwrap.detail})`);
  }
  const user = probes.dropTo ?? 'server';
  if (wanted !== 'isolated') return { isolation: 'bwrap', network: wanted, user, warnings: wanted === 'host' ? [HOST_NETWORK_WARNING] : [] };
  const slirp = await probes.runner.run(probes.slirpPath, ['--version'], PROBE_TIMEOUT_MS);
  if (!slirp.ok) {
    if (network === 'isolated') {
      throw unusable(`--local-network=isolated needs slirp4netns, which is not usable here: ${slirp.detail}; install it (Debian package "slirp4netns") or use --local-network=host or none`);
    }
    return { isolation: 'bwrap', network: 'host', user, warnings: [`${HOST_NETWORK_WARNING} (--local-network=auto: slirp4netns is not usable: ${slirp.detail})`] };
  }
  const attach = await probes.networkProbe?.();
  if (attach === undefined) return { isolation: 'bwrap', network: 'isolated', user, warnings: [] };
  const problem = `slirp4netns cannot attach to a sandbox here: ${attach}${tunHint(attach)}`;
  if (network === 'isolated') throw unusable(`--local-network=isolated: ${problem}; fix that or use --local-network=host or none`);
  return { isolation: 'bwrap', network: 'host', user, warnings: [`${HOST_NETWORK_WARNING} (--local-network=auto: ${problem})`] };
}

const PROXY_NEEDS_BUBBLEWRAP = (why: string): string =>
  `--local-network=proxy (the egress gateway, also implied by any --egress-* flag) needs bubblewrap to keep sandboxes off every other network, but ${why}; ` +
  'install bubblewrap (Debian package "bubblewrap") and allow unprivileged user namespaces';

/** The usual cause on a workstation, said plainly: the tun device's mode (udev's default makes it 0666). */
function tunHint(detail: string): string {
  return /\/dev\/net\/tun/.test(detail) ? ' — /dev/net/tun must be readable and writable by the server\'s user (udev makes it mode 0666 by default)' : '';
}

function withoutIsolation(reason?: string): SandboxPosture {
  const why = reason ? ` (--local-isolation=auto: ${reason})` : ' (--local-isolation=none)';
  return { isolation: 'none', network: 'host', user: 'server', warnings: [`${NO_ISOLATION_WARNING}${why}`, HOST_NETWORK_WARNING] };
}

function unusable(message: string): SessionError {
  return new SessionError(SessionErrorCode.SandboxUnavailable, message);
}

export async function probeBash(runner: CommandRunner): Promise<string | undefined> {
  const probe = await runner.run('bash', ['-c', 'true'], PROBE_TIMEOUT_MS);
  return probe.ok ? undefined : `bash cannot start: ${probe.detail}`;
}

export async function probeCommand(runner: CommandRunner, command: { command: string; args: string[] }, what: string): Promise<string | undefined> {
  const probe = await runner.run(command.command, command.args, PROBE_TIMEOUT_MS);
  return probe.ok ? undefined : `${what} is not usable: ${probe.detail}`;
}

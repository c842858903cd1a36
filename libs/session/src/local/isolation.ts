import { SessionError, SessionErrorCode } from '../session-error.js';
import type { CommandRunner } from './command-runner.js';
import type { LocalIsolation, LocalNetwork } from './local-backend.options.js';

const PROBE_TIMEOUT_MS = 10_000;

/** The namespaces the sandboxes use, so the probe fails where sandboxes would (e.g. no user namespaces). */
export function bwrapProbeArgs(network: LocalNetwork = 'host'): string[] {
  const net = network === 'none' ? ['--unshare-net'] : [];
  return ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', ...net, '--ro-bind', '/', '/', 'true'];
}

export interface ResolvedIsolation {
  mode: 'bwrap' | 'none';
  /** Why `auto` fell back to none. */
  fallbackReason?: string;
}

/**
 * `auto` → bwrap when it is installed and actually works here (containers often forbid namespaces), else none;
 * `bwrap` that does not work → a configuration error naming the flag.
 */
export async function resolveIsolation(
  requested: LocalIsolation, runner: CommandRunner, bwrapPath: string, network: LocalNetwork = 'host',
): Promise<ResolvedIsolation> {
  if (requested === 'none') return { mode: 'none' };
  const probe = await runner.run(bwrapPath, bwrapProbeArgs(network), PROBE_TIMEOUT_MS);
  if (probe.ok) return { mode: 'bwrap' };
  if (network === 'none') {
    // Without bubblewrap nothing can take the network away: refuse rather than run sandboxes with it.
    throw new SessionError(
      SessionErrorCode.SandboxUnavailable,
      `--local-network=none needs bubblewrap isolation, which is not usable here: ${probe.detail}; install ` +
        'bubblewrap (and allow unprivileged user namespaces) or use --local-network=host',
    );
  }
  if (requested === 'auto') return { mode: 'none', fallbackReason: `bubblewrap is not usable (${probe.detail})` };
  throw new SessionError(
    SessionErrorCode.SandboxUnavailable,
    `--local-isolation=bwrap but bubblewrap is not usable: ${probe.detail}; install bubblewrap (and allow ` +
      'unprivileged user namespaces) or use --local-isolation=none',
  );
}

export async function probeBwrap(runner: CommandRunner, bwrapPath: string): Promise<string | undefined> {
  const probe = await runner.run(bwrapPath, bwrapProbeArgs(), PROBE_TIMEOUT_MS);
  return probe.ok ? undefined : `bubblewrap is not usable: ${probe.detail}`;
}

export async function probeBash(runner: CommandRunner): Promise<string | undefined> {
  const probe = await runner.run('bash', ['-c', 'true'], PROBE_TIMEOUT_MS);
  return probe.ok ? undefined : `bash cannot start: ${probe.detail}`;
}

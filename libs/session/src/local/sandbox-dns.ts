import type { SandboxNetworkMode } from './bwrap-command.js';

/** slirp4netns's DNS forwarder: it relays to the resolvers of the host's own resolv.conf. */
export const SLIRP_DNS = '10.0.2.3';

/**
 * The sandbox's /etc/resolv.conf (docs/local-backend.md "DNS"). `isolated`: the host's nameservers are often on
 * its loopback (systemd-resolved's 127.0.0.53), which the sandbox cannot reach by design, so it asks slirp4netns's
 * forwarder instead; the host's `search`, `domain` and `options` lines are kept so short names resolve alike.
 * `host` and `none`: the host's file as it is — given as content, because it is often a symlink into the host's
 * /run, which sandboxes do not see.
 */
export function sandboxResolvConf(hostText: string, network: SandboxNetworkMode): string {
  if (network !== 'isolated') return hostText;
  const kept = hostText.split('\n').filter((line) => /^\s*(search|domain|options)\s/.test(line));
  return [`nameserver ${SLIRP_DNS}`, ...kept].join('\n') + '\n';
}

import ipaddr from 'ipaddr.js';

/**
 * Whether an address the gateway resolved may be dialled on a non-Kubernetes route (C-EGR-3). Deny by default:
 * only what ipaddr.js classifies as global `unicast` passes, so loopback, private, link-local (169.254.169.254),
 * unique-local (fd00:ec2::254), CGNAT (100.100.100.200), multicast, unspecified, broadcast and the reserved and
 * documentation ranges are all refused. IPv6 forms that carry an IPv4 address (v4-mapped, v4-compatible, NAT64
 * 64:ff9b::/96 and 64:ff9b:1::/48, 6to4) are judged by the IPv4 address inside; Teredo is refused outright since
 * its embedded address is obfuscated. ipaddr.js rather than node:net BlockList: BlockList cannot unwrap these forms
 * and would need every range listed by hand, where ipaddr.js ships the IANA special-purpose table.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast';
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = v6.parts;
  const low = (): ipaddr.IPv4 => new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6052') return low();
  // v4-compatible ::a.b.c.d (deprecated, still routed by some stacks) and the local-use NAT64 prefix 64:ff9b:1::/48.
  if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1)) return low();
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts[2] === 1) return low();
  if (range === '6to4') return new ipaddr.IPv4([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff]);
  if (range === 'teredo') return new ipaddr.IPv4([0, 0, 0, 0]);
  return null;
}

import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.js';

// C-EGR-3: what a resolved name may point at on a non-Kubernetes route.
describe('isPublicAddress', () => {
  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1', '127.255.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200',
    '224.0.0.1', '0.0.0.0', '255.255.255.255', '192.0.2.1', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1',
    'ff02::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::7f00:1',
    '64:ff9b:1::a00:1', '2002:7f00:1::', '2002:a9fe:a9fe::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'not-an-address', '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

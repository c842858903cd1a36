import { describe, expect, it } from 'vitest';
import { parseAuthority } from './authority.js';

// C-EGR-2: one canonical key per host:port, everything ambiguous refused.
describe('parseAuthority', () => {
  it.each([
    ['api.example.com:443', 'api.example.com:443'],
    ['API.Example.COM:443', 'api.example.com:443'],
    ['api.example.com.:6443', 'api.example.com:6443'],
    ['bücher.example:443', 'xn--bcher-kva.example:443'],
    ['10.0.0.1:6443', '10.0.0.1:6443'],
    ['[2001:DB8:0:0::1]:443', '[2001:db8::1]:443'],
    ['[::ffff:10.0.0.1]:443', '[::ffff:a00:1]:443'],
    ['a_b.example:1', 'a_b.example:1'],
  ])('canonicalises %s as %s', (input, key) => {
    expect(parseAuthority(input).key).toBe(key);
  });

  it.each([
    'user@api.example.com:443', 'api.example.com:443@evil', 'api.example.com', 'api.example.com:', 'api.example.com:0443',
    'api.example.com:0', 'api.example.com:65536', 'api.example.com:+443', 'api.example.com:0x1bb', 'api.example.com:443 ',
    '[fe80::1%eth0]:443', '[fe80::1%25eth0]:443', '[::1]x:443', '[::1', '::1:443', '[not-v6]:443', '127.1:443',
    '0x7f.0.0.1:443', '2130706433:443', '01.2.3.4:443', 'api..example.com:443', '.api.example.com:443', 'api.example.com..:443',
    'api.example.com/x:443', 'api.example.com\r\n:443', '*.example.com:443', `${'a'.repeat(64)}.example:443`, '',
  ])('refuses %j', (input) => {
    expect(() => parseAuthority(input)).toThrow(expect.objectContaining({ code: 'bad_authority', status: 400 }));
  });

  it('takes a default port only when the caller has one (absolute-form http://)', () => {
    expect(parseAuthority('api.example.com', 80).key).toBe('api.example.com:80');
  });
});

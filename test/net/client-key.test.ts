import { describe, expect, it } from 'vitest';
import { clientKey, networkKey } from '../../src/net/client-key.ts';

describe('client keys', () => {
  it('counts an IPv4 client by its address and its network by the /24', () => {
    expect(clientKey('192.0.2.17')).toBe('192.0.2.17');
    expect(networkKey('192.0.2.17')).toBe('192.0.2.0/24');
    expect(networkKey('192.0.2.200')).toBe(networkKey('192.0.2.1'));
  });

  it('counts every address of one IPv6 /64 as one client', () => {
    const a = clientKey('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe(a);
    expect(clientKey('2001:db8:1:3::1')).not.toBe(a);
    expect(networkKey('2001:db8:1:2:abcd::9')).toBe(a);
  });

  it('reads IPv4-mapped IPv6 as IPv4 and keeps anything unparseable as given', () => {
    expect(clientKey('::ffff:192.0.2.5')).toBe('192.0.2.5');
    expect(clientKey('not-an-ip')).toBe('not-an-ip');
  });
});

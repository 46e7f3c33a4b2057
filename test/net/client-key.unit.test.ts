import { describe, expect, it } from 'vitest';
import ipaddr from 'ipaddr.js';
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

  it('gives a canonical IPv4 address the keys ipaddr.js reads in it, and parses every other form', () => {
    for (let i = 0; i < 2000; i++) {
      const octets = [0, 0, 0, 0].map(() => Math.floor(Math.random() * 256));
      // Edges as well as random values: 0, 9, 10, 99, 100, 199, 200, 249, 250, 255.
      if (i < 40) octets[i % 4] = [0, 9, 10, 99, 100, 199, 200, 249, 250, 255][i % 10];
      const ip = octets.join('.');
      const parsed = ipaddr.parse(ip) as ipaddr.IPv4;
      expect(clientKey(ip)).toBe(parsed.toString());
      expect(networkKey(ip)).toBe(`${parsed.octets.slice(0, 3).join('.')}.0/24`);
      expect(clientKey(`::ffff:${ip}`)).toBe(clientKey(ip));
    }
    // Not canonical: still read as ipaddr.js reads them (octal, hex, short forms, spaces).
    expect(clientKey('010.1.1.1')).toBe('8.1.1.1');
    expect(clientKey('0x7f.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('127.1')).toBe('127.0.0.1');
    expect(clientKey(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(networkKey('1.2.3.04')).toBe('1.2.3.0/24');
    expect(clientKey('256.1.1.1')).toBe('256.1.1.1');
  });
});

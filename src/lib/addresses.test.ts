import { describe, expect, it } from 'vitest';
import { clientKeys, isLoopbackAddress, localUrlOf } from './addresses.js';

describe('clientKeys', () => {
  it('counts an IPv4-mapped IPv6 address as its IPv4 address, in either spelling', () => {
    expect(clientKeys('::ffff:10.1.2.3')).toEqual({ address: '10.1.2.3' });
    expect(clientKeys('::FFFF:0a01:0203')).toEqual({ address: '10.1.2.3' });
    expect(clientKeys('10.1.2.3')).toEqual({ address: '10.1.2.3' });
  });

  it('spells every IPv6 form of one address the same, and names its /64', () => {
    const keys = { address: 'fd77:0:1:0:0:0:0:2', network: 'fd77:0:1:0::/64' };
    for (const text of ['fd77:0:1::2', 'FD77:0000:0001:0:0:0:0:0002', '[fd77:0:1::2]', 'fd77:0:1::0.0.0.2']) expect(clientKeys(text), text).toEqual(keys);
    expect(clientKeys('fd77:0:1::3').network).toBe(keys.network);
    expect(clientKeys('fd77:0:2::2').network).not.toBe(keys.network);
  });

  it('reads the edges of the grammar: ::, a trailing ::, a dotted tail, a zone id', () => {
    expect(clientKeys('::')).toEqual({ address: '0:0:0:0:0:0:0:0', network: '0:0:0:0::/64' });
    expect(clientKeys('1::').address).toBe('1:0:0:0:0:0:0:0');
    expect(clientKeys('1:2:3:4:5:6:1.2.3.4').address).toBe('1:2:3:4:5:6:102:304');
    expect(clientKeys('::1.2.3.4').address).toBe('0:0:0:0:0:0:102:304');
    expect(clientKeys('fe80::1%eth0')).toEqual({ address: 'fe80:0:0:0:0:0:0:1', network: 'fe80:0:0:0::/64' });
  });

  it('keys text that is no address as it is', () => {
    expect(clientKeys('unknown')).toEqual({ address: 'unknown' });
  });
});

describe('isLoopbackAddress', () => {
  it('is 127.0.0.0/8 and ::1, mapped or not', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '::ffff:127.0.0.2', '::1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'fd77::1', undefined]) expect(isLoopbackAddress(a), String(a)).toBe(false);
  });
});

describe('localUrlOf', () => {
  it('reaches a wildcard bind over loopback, and brackets IPv6 addresses', () => {
    for (const host of ['0.0.0.0', '::', '[::]', '']) expect(localUrlOf(host, 18300), host).toBe('http://127.0.0.1:18300');
    expect(localUrlOf('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(localUrlOf('::1', 8080)).toBe('http://[::1]:8080');
    expect(localUrlOf('[::1]', 8080)).toBe('http://[::1]:8080');
    expect(localUrlOf('192.168.1.20', 9000)).toBe('http://192.168.1.20:9000');
  });
});

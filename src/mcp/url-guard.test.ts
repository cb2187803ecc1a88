import { describe, expect, it } from 'vitest';
import { allowListed, guardFor, refusedTarget, urlRefusal } from './url-guard.js';

const LISTEN = [{ host: '0.0.0.0', port: 8080 }];

describe('allowListed', () => {
  it('matches a host on any port, a host:port on that port only, spelled the WHATWG way', () => {
    const at = (url: string, entries: string[]) => allowListed(new URL(url), entries);
    expect(at('http://Tools.LAN:9000/mcp', ['tools.lan'])).toBe(true);
    expect(at('http://tools.lan:9000/mcp', ['tools.lan:9000'])).toBe(true);
    expect(at('http://tools.lan:9001/mcp', ['tools.lan:9000'])).toBe(false);
    expect(at('http://tools.lan/mcp', ['tools.lan:80'])).toBe(true);
    expect(at('https://tools.lan/mcp', ['tools.lan:80'])).toBe(false);
    expect(at('http://[::ffff:127.0.0.1]/', ['[::ffff:7f00:1]'])).toBe(true);
    expect(at('http://2130706433/', ['127.0.0.1'])).toBe(true);
    expect(at('http://evil.tools.lan/', ['tools.lan'])).toBe(false);
    expect(at('http://tools.lan/', [])).toBe(false);
  });
});

describe('refusedTarget', () => {
  it('refuses this host\'s own addresses and the gateway\'s listeners, nothing else', () => {
    expect(refusedTarget('127.0.0.1', 9, [])).toMatch(/loopback/);
    expect(refusedTarget('::ffff:169.254.169.254', 80, [])).toMatch(/link-local/);
    expect(refusedTarget('::', 80, [])).toMatch(/unspecified/);
    expect(refusedTarget('10.1.2.3', 8080, [{ host: '10.1.2.3', port: 8080 }])).toMatch(/own listener/);
    expect(refusedTarget('10.1.2.3', 8081, [{ host: '10.1.2.3', port: 8080 }])).toBeNull();
    expect(refusedTarget('10.1.2.3', 8080, [])).toBeNull();
    expect(refusedTarget('192.0.2.7', 8080, LISTEN)).toBeNull();
  });
});

describe('urlRefusal', () => {
  it('resolves a listed name before it decides', async () => {
    expect(await urlRefusal('http://localhost:9/mcp', ['localhost'], LISTEN)).toMatch(/^localhost resolves to .* loopback/);
    expect(await urlRefusal('http://tools.lan:9/mcp', ['other.lan'], LISTEN)).toBe('tools.lan:9 is not in [mcp].allowed_hosts');
    expect(await urlRefusal('http://192.0.2.7:9/mcp', ['192.0.2.7'], LISTEN)).toBeNull();
    expect(await urlRefusal('not a url', [], LISTEN)).toBeNull();
  });

  it('guards the connections of a listed host only', () => {
    expect(guardFor('http://192.0.2.7/mcp', [], () => LISTEN)).toBeNull();
    expect(guardFor('http://localhost:9/mcp', ['localhost'], () => LISTEN)?.('127.0.0.1', 9)).toMatch(/loopback/);
  });
});

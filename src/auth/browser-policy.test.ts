import { describe, expect, it } from 'vitest';
import { browserRefusal, compileBrowserRules, normalizeOrigin } from './browser-policy.js';

const rules = compileBrowserRules(['svc.lan', '*.home.arpa', 'FD00::0:1'], ['http://localhost:3000', 'https://chat.example.org:443/'], 'svc.local');
const refusal = (method: string, headers: Record<string, string>, localAddress = '127.0.0.1') => browserRefusal({ method, headers, localAddress }, rules)?.code;
const json = { 'content-type': 'application/json' };

describe('Host', () => {
  it.each([
    '127.0.0.1:8080', '127.9.9.9', '[::1]:8080', 'localhost:8080', 'LOCALHOST', 'app.localhost:8080', 'localhost.', 'svc.lan', 'SVC.LAN:8080',
    'a.home.arpa', 'b.c.home.arpa:80', 'svc.local', '[fd00::1]:8080',
  ])('answers to %s', (host) => {
    expect(refusal('GET', { host })).toBeUndefined();
  });

  it.each([
    'attacker.example:8080', 'svc.lan.attacker.example', 'home.arpa', 'xhome.arpa', '10.0.0.9:8080', '', ' ', 'a@svc.lan', 'svc.lan/x', '[fd00::2]',
  ])('refuses %j on every method, reads included', (host) => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE']) expect(refusal(method, { host, ...json }), `${method} ${host}`).toBe('request.unknown_host');
  });

  it('refuses a request with no Host at all', () => {
    expect(refusal('GET', {})).toBe('request.unknown_host');
  });

  it('answers to the address the connection arrived on, and only that one', () => {
    expect(refusal('GET', { host: '10.0.0.9:8080' }, '10.0.0.9')).toBeUndefined();
    expect(refusal('GET', { host: '10.0.0.9:8080' }, '::ffff:10.0.0.9')).toBeUndefined();
    expect(refusal('GET', { host: '10.0.0.8:8080' }, '10.0.0.9')).toBe('request.unknown_host');
  });

  it('takes the auth-mode hostname only when one is given', () => {
    const none = compileBrowserRules([], [], undefined);
    expect(browserRefusal({ method: 'GET', headers: { host: 'svc.local' }, localAddress: '127.0.0.1' }, none)?.code).toBe('request.unknown_host');
  });
});

describe('cross-site mutations', () => {
  const host = '127.0.0.1:8080';
  it('lets the same origin and clients without Origin through', () => {
    expect(refusal('POST', { host, ...json })).toBeUndefined();
    expect(refusal('POST', { host, origin: 'http://127.0.0.1:8080', ...json })).toBeUndefined();
    expect(refusal('POST', { host: 'svc.local', origin: 'https://svc.local', ...json })).toBeUndefined();
    expect(refusal('POST', { host, 'sec-fetch-site': 'same-origin', ...json })).toBeUndefined();
  });

  it.each([
    ['another site', { origin: 'http://attacker.example' }],
    ['another port of this host', { origin: 'http://127.0.0.1:3001' }],
    ['an opaque origin', { origin: 'null' }],
    ['Sec-Fetch-Site alone', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a mutation from %s', (_label, headers) => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect(refusal(method, { host, ...json, ...headers })).toBe('request.cross_site');
  });

  it('does not refuse reads from another origin (CORS keeps their answers from the page)', () => {
    expect(refusal('GET', { host, origin: 'http://attacker.example' })).toBeUndefined();
  });

  it('decides an Origin once per Host, the same way every time, and keeps at most 256 decisions', () => {
    const fresh = compileBrowserRules([], ['http://localhost:3000']);
    const decide = (origin: string) => browserRefusal({ method: 'POST', headers: { host, origin, ...json }, localAddress: '127.0.0.1' }, fresh)?.code;
    for (let round = 0; round < 2; round++) {
      expect([decide('http://127.0.0.1:8080'), decide('HTTP://127.0.0.1:8080/'), decide('http://localhost:3000'), decide('http://attacker.example')]).toEqual([undefined, undefined, undefined, 'request.cross_site']);
    }
    for (let i = 0; i < 1000; i++) expect(decide(`http://a${i}.example`)).toBe('request.cross_site');
    expect(fresh.placed.size).toBeLessThanOrEqual(256);
    expect(fresh.listed.size).toBeLessThanOrEqual(256);
  });

  it('lets listed origins through, in any spelling of the same origin', () => {
    expect(refusal('POST', { host, origin: 'http://localhost:3000', ...json })).toBeUndefined();
    expect(refusal('POST', { host, origin: 'https://chat.example.org', 'sec-fetch-site': 'cross-site', ...json })).toBeUndefined();
    expect(refusal('POST', { host, origin: 'http://localhost:3001', ...json })).toBe('request.cross_site');
  });
});

describe('form-like posts', () => {
  const host = 'localhost:8080';
  const simple = [
    ['no Content-Type', {}],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a multipart form', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['text/plain', { 'content-type': 'text/plain;charset=UTF-8' }],
  ] as const;

  it.each(simple)('serves a tool\'s POST with %s: no browser header says a page sent it', (_label, headers) => {
    expect(refusal('POST', { host, ...headers })).toBeUndefined();
    // What curl, an SDK or node's fetch add (fetch says Sec-Fetch-Mode: cors, which a page's form or no-cors fetch never does).
    expect(refusal('POST', { host, 'user-agent': 'curl/8.5.0', accept: '*/*', ...headers })).toBeUndefined();
    expect(refusal('POST', { host, 'user-agent': 'node', 'sec-fetch-mode': 'cors', 'accept-language': '*', ...headers })).toBeUndefined();
  });

  it.each(simple)('serves this origin\'s own page posting %s (a form on the dashboard\'s origin, or one the user started)', (_label, headers) => {
    const own: Record<string, string>[] = [
      { origin: 'http://localhost:8080', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors' },
      { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
      { referer: 'http://localhost:8080/slots', 'upgrade-insecure-requests': '1' },
      { referer: 'http://localhost:3000/chat' }, // a listed origin
    ];
    for (const marks of own) expect(refusal('POST', { host, ...marks, ...headers }), JSON.stringify(marks)).toBeUndefined();
  });

  it.each(simple)('refuses a POST with %s that a browser marks as sent from elsewhere', (_label, headers) => {
    for (const [marker, marks] of [
      ['sec-fetch-site', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' }],
      ['sec-fetch-site', { 'sec-fetch-site': 'same-site', referer: 'http://localhost:8080/' }],
      // Browsers without Sec-Fetch-* and without Origin on a form (Firefox before 70, Internet Explorer).
      ['referer', { referer: 'http://attacker.example/cats' }],
      ['referer', { referer: 'http://localhost:8081/' }],
      ['sec-fetch-mode', { 'sec-fetch-mode': 'no-cors', 'user-agent': 'Mozilla/5.0' }],
      ['sec-fetch-mode', { 'sec-fetch-mode': 'navigate' }],
      ['upgrade-insecure-requests', { 'upgrade-insecure-requests': '1', 'user-agent': 'Mozilla/5.0' }],
    ] as const) {
      const refused = browserRefusal({ method: 'POST', headers: { host, ...marks, ...headers }, localAddress: '127.0.0.1' }, rules);
      expect([refused?.code, refused?.details.marker], JSON.stringify(marks)).toEqual(['request.form_post', marker]);
    }
  });

  it('leaves an Origin to the cross-site rule: another one is refused there, this one or a listed one is served', () => {
    expect(refusal('POST', { host, origin: 'null', 'content-type': 'text/plain' })).toBe('request.cross_site');
    expect(refusal('POST', { host, origin: 'http://attacker.example', 'sec-fetch-mode': 'no-cors' })).toBe('request.cross_site');
    expect(refusal('POST', { host, origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site', 'content-type': 'multipart/form-data; boundary=x' })).toBeUndefined();
  });

  it('lets PUT, DELETE and PATCH through: no page can send them without a preflight', () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) expect(refusal(method, { host, 'sec-fetch-site': 'same-site', referer: 'http://attacker.example/' })).toBeUndefined();
  });

  it.each([
    ['JSON', { 'content-type': 'application/json; charset=utf-8' }],
    ['another non-simple type', { 'content-type': 'application/octet-stream' }],
    ['a bearer token', { authorization: 'Bearer x' }],
    ['an X- header', { 'x-svc-actor': 'cli' }],
    ['multipart with a bearer (OpenAI clients)', { 'content-type': 'multipart/form-data; boundary=x', authorization: 'Bearer sk-x' }],
  ])('lets %s through whatever the markers say: a page cannot send it without a preflight', (_label, headers) => {
    expect(refusal('POST', { host, referer: 'http://attacker.example/', 'sec-fetch-mode': 'no-cors', ...headers })).toBeUndefined();
  });

  it('repeats at most 200 characters of the header that gave the page away', () => {
    const refused = browserRefusal({ method: 'POST', headers: { host, referer: `http://attacker.example/${'a'.repeat(5000)}` }, localAddress: '127.0.0.1' }, rules);
    expect((refused?.details.value as string).length).toBe(200);
  });
});

describe('normalizeOrigin', () => {
  it('keeps scheme, host and a non-default port', () => {
    expect(normalizeOrigin('HTTPS://Chat.Example.org:443/')).toBe('https://chat.example.org');
    expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeOrigin('null')).toBeUndefined();
    expect(normalizeOrigin('file:///etc')).toBeUndefined();
  });
});

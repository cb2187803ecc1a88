import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PUBLIC_PATHS } from '../../protocol/access.js';
import { isLocalHostname, renderCaddyfile } from './caddyfile.js';
import { findProgram } from '../../deploy/systemd.js';

const input = {
  hostname: 'svc.local', email: 'ops@example.test', adminUser: 'admin', passwordHash: '$2b$12$abcdefghijklmnopqrstuuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01',
  api: '127.0.0.1:8080', chat: '127.0.0.1:3001', proxySecret: 'the-proxy-secret-value', dataDir: '/var/lib/svc/caddy',
};
const caddy = findProgram('caddy');
if (!caddy && process.env.CI === 'true') throw new Error('caddy is not installed; CI must install it (.ci/run)');

/** The lines of the block that starts with `opening` (up to its closing brace at the same depth). */
function block(text: string, opening: string): string {
  const start = text.indexOf(opening);
  expect(start, opening).toBeGreaterThanOrEqual(0);
  let depth = 0;
  for (let i = text.indexOf('{', start); i < text.length; i++) {
    if (text[i] === '{') depth += 1;
    if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error(`unclosed block ${opening}`);
}

describe('the rendered Caddyfile', () => {
  const text = renderCaddyfile(input);

  it('uses Caddy\'s own CA for a local name and ACME for a public one', () => {
    expect(text).toMatch(/^\ttls internal$/m);
    expect(renderCaddyfile({ ...input, hostname: 'svc.example.com' })).toMatch(/^\ttls ops@example\.test$/m);
    for (const local of ['svc.local', 'localhost', 'box', 'svc.lan', 'svc.home.arpa', '192.168.1.5']) expect(isLocalHostname(local), local).toBe(true);
    expect(isLocalHostname('svc.example.com')).toBe(false);
  });

  it('strips inbound identity and secret headers before anything else', () => {
    for (const name of ['X-Forwarded-Email', 'X-Forwarded-User', 'X-Svc-Proxy-Secret', 'X-Svc-Actor']) expect(text).toContain(`\trequest_header -${name}\n`);
  });

  it('passes the public paths and /v1 without basic auth or identity', () => {
    expect(text).toContain(`@public path ${PUBLIC_PATHS.join(' ')}`);
    for (const opening of ['handle @public {', 'handle /v1/* {']) {
      const section = block(text, opening);
      expect(section).not.toContain('basicauth');
      expect(section).not.toContain('header_up');
    }
  });

  it('puts basic auth before the API and the chat front end, forwarding the user; only the API gets the secret', () => {
    const api = block(text, '\thandle {');
    expect(api).toMatch(/basicauth \{\s+admin \S+\s+\}/);
    expect(api).toContain('header_up X-Forwarded-Email {http.auth.user.id}');
    expect(api).toContain('header_up X-Svc-Proxy-Secret the-proxy-secret-value');
    const chat = block(text, 'handle_path /chat/* {');
    expect(chat).toContain('basicauth');
    expect(chat).toContain('reverse_proxy 127.0.0.1:3001');
    expect(chat).toContain('header_up X-Forwarded-Email {http.auth.user.id}');
    expect(chat).not.toContain('the-proxy-secret-value');
  });

  it('holds the bcrypt hash base64-encoded (Caddy 2.6), keeps its state under svc, and leaves the system trust store alone', () => {
    expect(text).toContain(Buffer.from(input.passwordHash).toString('base64'));
    expect(text).not.toContain(input.passwordHash);
    expect(text).toContain('root /var/lib/svc/caddy');
    expect(text).toMatch(/^\tskip_install_trust$/m);
    expect(text).toMatch(/^\tadmin off$/m);
    expect(renderCaddyfile({ ...input, httpPort: 18080, httpsPort: 18443 })).toMatch(/http_port 18080\n\thttps_port 18443/);
  });

  it.skipIf(!caddy)('is a configuration Caddy accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-caddyfile-'));
    const file = join(dir, 'Caddyfile');
    for (const hostname of ['svc.local', 'svc.example.com']) {
      writeFileSync(file, renderCaddyfile({ ...input, hostname, dataDir: join(dir, 'data') }));
      const result = spawnSync(caddy!, ['validate', '--config', file, '--adapter', 'caddyfile'], { encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir } });
      expect(result.status, `${hostname}: ${result.stderr}`).toBe(0);
    }
  });
});

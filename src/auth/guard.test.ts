import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePaths } from '../config/paths.js';
import { SerialQueue } from '../lib/serial-queue.js';
import type { RouteAccess } from '../protocol/access.js';
import { SvcError } from '../protocol/errors.js';
import type { Decision } from './guard.js';
import { GatewayAuth } from './gateway-auth.js';

const SECRET = 'guard-test-secret-0123456789abcdef';
const proxied = { 'x-forwarded-email': 'ada@example.test', 'x-svc-proxy-secret': SECRET };

let auth: GatewayAuth;
let enabled: boolean;

beforeEach(async () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-guard-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  mkdirSync(paths.configRoot, { recursive: true });
  writeFileSync(paths.proxySecret, `${SECRET}\n`);
  enabled = true;
  auth = new GatewayAuth(paths, new SerialQueue(), () => enabled, () => undefined);
  await auth.open();
});
afterEach(() => auth.close());

const check = (access: RouteAccess, headers: Record<string, string>, peer = '127.0.0.1'): Promise<Decision> => Promise.resolve(auth.guard.check({ access, headers, peer }));
const code = (decision: Decision) => (decision instanceof SvcError ? decision.code : decision.kind);

describe('the auth guard', () => {
  it('in default mode admits everyone except to token management from another host', async () => {
    enabled = false;
    expect(code(await check('write', {}, '192.0.2.9'))).toBe('anonymous');
    expect(code(await check('token-admin', {}, '127.0.0.1'))).toBe('anonymous');
    expect(code(await check('token-admin', {}, '::ffff:127.0.0.1'))).toBe('anonymous');
    expect(code(await check('token-admin', {}, '192.0.2.9'))).toBe('auth.required');
    const { token } = await auth.store.create('boss', 'admin');
    expect(code(await check('token-admin', { authorization: `Bearer ${token}` }, '192.0.2.9'))).toBe('token');
  });

  it('refuses an unlisted route to everyone, in both modes', async () => {
    expect(code(await check('unlisted', proxied))).toBe('auth.forbidden');
    enabled = false;
    expect(code(await check('unlisted', {}))).toBe('auth.forbidden');
  });

  it('accepts the proxy identity only from loopback with the secret', async () => {
    expect(await check('write', proxied)).toEqual({ kind: 'proxy', label: 'ada@example.test', scope: 'admin' });
    expect(code(await check('write', proxied, '192.0.2.9'))).toBe('auth.required');
    expect(code(await check('write', { ...proxied, 'x-svc-proxy-secret': 'nope' }))).toBe('auth.required');
    expect(code(await check('write', { 'x-forwarded-email': 'ada@example.test' }))).toBe('auth.required');
    enabled = false;
    // Default mode never turns the header into an identity (nothing to gain, nothing to forge).
    expect(auth.guard.identify({ headers: proxied, peer: '127.0.0.1' })).toEqual({ kind: 'anonymous' });
  });

  it('lets a bearer win over the proxy identity, and an invalid bearer fail even with one', async () => {
    const { token } = await auth.store.create('reader', 'read-only');
    expect(code(await check('write', { ...proxied, authorization: `Bearer ${token}` }))).toBe('auth.forbidden');
    expect(code(await check('write', { ...proxied, authorization: `Bearer ${token.slice(0, -1)}x` }))).toBe('auth.invalid');
    expect(code(await check('write', { ...proxied, authorization: 'Basic YTpi' }))).toBe('proxy');
  });

  it('answers a verified token without waiting, and a revoked one no more', async () => {
    const { token, row } = await auth.store.create('fast', 'all');
    const headers = { authorization: `Bearer ${token}` };
    expect(auth.guard.check({ access: 'read', headers, peer: '127.0.0.1' })).toBeInstanceOf(Promise);
    expect(code(await check('read', headers))).toBe('token');
    const second = auth.guard.check({ access: 'read', headers, peer: '127.0.0.1' });
    expect(second).not.toBeInstanceOf(Promise);
    expect(code(second as Decision)).toBe('token');
    await auth.store.revoke(row.id);
    expect(code(await check('read', headers))).toBe('auth.invalid');
    expect(auth.verifier.stats.argon2).toBe(1);
  });

  it('keeps public routes open in auth mode whatever is sent', async () => {
    expect(code(await check('public', { authorization: 'Bearer garbage' }))).toBe('anonymous');
    expect(code(await check('v1-read', {}))).toBe('auth.required');
  });
});

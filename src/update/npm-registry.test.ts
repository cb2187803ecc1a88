// The version order the update code relies on, which the `semver` package gives it: the
// newest-first list of a registry's versions, "is the channel's tag newer than what runs"
// (routes/updates.ts, service.ts) and the downgrade guard (service.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compare, gt, rcompare, valid } from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageInfo } from './npm-registry.js';

describe('the version order svc relies on (semver 2.0.0, section 11)', () => {
  it('orders major, minor and patch as numbers', () => {
    expect(compare('0.10.0', '0.9.0')).toBe(1);
    expect(compare('1.0.0', '0.99.99')).toBe(1);
    expect(compare('0.1.10', '0.1.9')).toBe(1);
    expect(compare('0.1.0', '0.1.0')).toBe(0);
  });

  it('puts a pre-release (a nightly) before its release and after the release before it', () => {
    expect(compare('1.3.0-nightly.4', '1.3.0')).toBe(-1);
    expect(compare('1.3.0-nightly.4', '1.2.9')).toBe(1);
    // The nightly channel's "newer than what runs": a later nightly of the same release.
    expect(gt('1.3.0-nightly.10', '1.3.0-nightly.9')).toBe(true);
    expect(gt('1.3.0', '1.3.0-nightly.10')).toBe(true);
  });

  it('compares pre-release identifiers: numbers as numbers, below words; more identifiers sort later', () => {
    expect(compare('1.0.0-2', '1.0.0-10')).toBe(-1);
    expect(compare('1.0.0-alpha', '1.0.0-beta')).toBe(-1);
    expect(compare('1.0.0-1', '1.0.0-alpha')).toBe(-1);
    expect(compare('1.0.0-alpha', '1.0.0-alpha.1')).toBe(-1);
    expect(compare('1.0.0-rc.1', '1.0.0-beta.11')).toBe(1);
  });

  it('ignores build metadata and accepts a leading "v"', () => {
    expect(compare('1.0.0+build.5', '1.0.0+build.4')).toBe(0);
    expect(compare('v1.2.3', '1.2.3')).toBe(0);
  });

  it('tells a version from anything else, and throws when asked to compare one that is not', () => {
    for (const version of ['1.2.3', 'v1.2.3', '1.3.0-nightly.4', '1.0.0+sha.abc']) expect(valid(version), version).not.toBeNull();
    for (const text of ['1.2', 'latest', '01.2.3', '1.2.3-01', '1.2.3-a..b', '../../etc', '']) expect(valid(text), text).toBeNull();
    expect(() => compare('latest', '1.0.0')).toThrow();
  });

  it('sorts a list newest first', () => {
    expect(['0.9.0', '1.0.0-nightly.2', '0.10.0', '1.0.0', '1.0.0-nightly.10'].sort(rcompare)).toEqual(['1.0.0', '1.0.0-nightly.10', '1.0.0-nightly.2', '0.10.0', '0.9.0']);
  });
});

describe('packageInfo', () => {
  let server: Server;
  let registry: string;
  const documents = new Map<string, { status: number; body: unknown }>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const answer = documents.get(req.url ?? '') ?? { status: 404, body: { error: 'not found' } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('lists the versions newest first and leaves out keys that are not versions', async () => {
    const versions = Object.fromEntries(['0.9.0', '0.10.0', '1.0.0-nightly.2', '1.0.0-nightly.10', 'not-a-version', '1.0'].map((v) => [v, {}]));
    documents.set('/svc-gateway', { status: 200, body: { 'dist-tags': { latest: '0.10.0', nightly: '1.0.0-nightly.10' }, versions } });
    expect(await packageInfo(registry, 'svc-gateway')).toEqual({
      published: true,
      distTags: { latest: '0.10.0', nightly: '1.0.0-nightly.10' },
      versions: ['1.0.0-nightly.10', '1.0.0-nightly.2', '0.10.0', '0.9.0'],
    });
  });

  it('says a package the registry does not have is unpublished, and a scoped name is escaped', async () => {
    expect(await packageInfo(registry, 'nothing-here')).toEqual({ published: false, distTags: {}, versions: [] });
    documents.set('/@svc%2fgateway', { status: 200, body: { 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': {} } } });
    expect((await packageInfo(registry, '@svc/gateway')).versions).toEqual(['1.0.0']);
  });
});

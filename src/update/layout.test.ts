import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFacts, resolvePaths } from '../config/paths.js';
import { INSTALL_MARKER, installedVersions, pruneVersions, readCurrent, readPrevious, switchCurrent, versionDir, writePrevious } from './layout.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'svc-layout-'));
const version = (prefix: string, v: string, finished = true) => {
  const dir = versionDir(prefix, v);
  mkdirSync(dir, { recursive: true });
  if (finished) writeFileSync(join(dir, INSTALL_MARKER), '{}');
  return dir;
};

describe('the version layout', () => {
  it('links current relatively under the prefix and absolutely outside it, replacing the link in one rename', async () => {
    const prefix = scratch();
    expect(await readCurrent(prefix)).toBeNull();
    const v1 = version(prefix, '1.0.0');
    await switchCurrent(prefix, v1);
    expect(readlinkSync(join(prefix, 'current'))).toBe(join('versions', '1.0.0'));
    expect(await readCurrent(prefix)).toBe(v1);
    const elsewhere = scratch();
    await switchCurrent(prefix, elsewhere);
    expect(readlinkSync(join(prefix, 'current'))).toBe(elsewhere);
    expect(lstatSync(join(prefix, 'current')).isSymbolicLink()).toBe(true);
    await switchCurrent(prefix, null);
    expect(existsSync(join(prefix, 'current'))).toBe(false);
  });

  it('records the previous tree in the state root and forgets it', async () => {
    const paths = resolvePaths(hostFacts({ SVC_HOME: scratch() }));
    expect(await readPrevious(paths)).toBeNull();
    await writePrevious(paths, { version: '1.0.0', path: '/opt/svc/versions/1.0.0' });
    expect(await readPrevious(paths)).toEqual({ version: '1.0.0', path: '/opt/svc/versions/1.0.0' });
    await writePrevious(paths, null);
    expect(await readPrevious(paths)).toBeNull();
  });

  it('lists finished versions only, and prunes everything it is not told to keep, unfinished ones included', async () => {
    const prefix = scratch();
    const keep = [version(prefix, '1.0.0'), version(prefix, '1.1.0')];
    version(prefix, '0.9.0');
    version(prefix, '1.2.0', false);
    mkdirSync(join(prefix, 'versions', '.staging-1.3.0-123'));
    expect(await installedVersions(prefix)).toEqual(['0.9.0', '1.0.0', '1.1.0']);
    const removed = await pruneVersions(prefix, keep);
    expect(removed.map((p) => p.slice(prefix.length + 1)).sort()).toEqual(['versions/.staging-1.3.0-123', 'versions/0.9.0', 'versions/1.2.0']);
    expect(await installedVersions(prefix)).toEqual(['1.0.0', '1.1.0']);
  });

  it('prunes nothing through a link it finds in versions/', async () => {
    const prefix = scratch();
    const outside = scratch();
    writeFileSync(join(outside, 'keep-me'), 'x');
    mkdirSync(join(prefix, 'versions'));
    symlinkSync(outside, join(prefix, 'versions', 'evil'));
    await pruneVersions(prefix, []);
    expect(existsSync(join(outside, 'keep-me'))).toBe(true);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTar, TarError, unsafeTarPath, writeTar } from './tar.js';

/** A header built by hand: what a hostile archive holds (our writer refuses to make one). */
function entry(path: string, type: string, data = Buffer.alloc(0), linkname = ''): Buffer {
  const header = Buffer.alloc(512);
  header.write(path, 0, 100);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write(type, 156, 1);
  header.write(linkname, 157, 100);
  header.write('ustar\u000000', 257);
  header.write(`${header.reduce((a, b) => a + b, 0).toString(8).padStart(6, '0')}\0 `, 148);
  return Buffer.concat([header, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
const archive = (...entries: Buffer[]) => Buffer.concat([...entries, Buffer.alloc(1024)]);
const refusal = (tar: Buffer) => {
  try {
    readTar(tar);
    return 'accepted';
  } catch (error) {
    return error instanceof TarError ? error.message : `other: ${(error as Error).message}`;
  }
};

describe('the tar reader', () => {
  it('reads what GNU tar writes, and GNU tar reads what it writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tar-'));
    mkdirSync(join(dir, 'registry'));
    writeFileSync(join(dir, 'registry/registry.toml'), '[models.a]\npath = "/m/a.gguf"\n');
    execFileSync('tar', ['-cf', join(dir, 'gnu.tar'), '-C', dir, 'registry']);
    expect(readTar(readFileSync(join(dir, 'gnu.tar'))).map((e) => [e.path, e.type])).toEqual([['registry', 'directory'], ['registry/registry.toml', 'file']]);
    const long = `${'d/'.repeat(70)}f.toml`;
    writeFileSync(join(dir, 'ours.tar'), writeTar([{ path: 'registry/registry.toml', data: Buffer.from('x = 1\n') }, { path: long, data: Buffer.from('y') }]));
    expect(execFileSync('tar', ['-tf', join(dir, 'ours.tar')], { encoding: 'utf8' }).trim().split('\n')).toEqual(['registry/registry.toml', long]);
    expect(readTar(readFileSync(join(dir, 'ours.tar'))).map((e) => e.path)).toEqual(['registry/registry.toml', long]);
  });

  it('refuses the whole archive for a link, a device, a fifo, an absolute path or ..', () => {
    const ok = entry('registry.toml', '0', Buffer.from('x = 1\n'));
    expect(refusal(archive(ok, entry('registry/evil', '2', Buffer.alloc(0), '/etc/passwd')))).toMatch(/symbolic link \(registry\/evil\)/);
    expect(refusal(archive(ok, entry('hard', '1', Buffer.alloc(0), 'registry.toml')))).toMatch(/hard link/);
    expect(refusal(archive(entry('dev/sda', '4'), ok))).toMatch(/block device/);
    expect(refusal(archive(entry('null', '3'), ok))).toMatch(/character device/);
    expect(refusal(archive(entry('pipe', '6'), ok))).toMatch(/fifo/);
    expect(refusal(archive(entry('/etc/cron.d/x', '0', Buffer.from('x')), ok))).toMatch(/absolute path/);
    expect(refusal(archive(entry('registry/../../x', '0', Buffer.from('x')), ok))).toMatch(/"\.\." part/);
    expect(refusal(archive(ok))).toBe('accepted');
  });

  it('refuses what is not a tar at all', () => {
    expect(refusal(Buffer.from('hello, not a tar'.repeat(64)))).toMatch(/not a tar archive/);
    expect(refusal(Buffer.alloc(0))).toMatch(/no entries/);
    expect(unsafeTarPath('a/b')).toBeNull();
  });

  it('reads GNU and POSIX archives; an old GNU header\'s times are not a name prefix', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tar-'));
    writeFileSync(join(dir, 'registry.toml'), 'x = 1\n');
    for (const format of ['gnu', 'posix', 'ustar']) {
      execFileSync('tar', [`--format=${format}`, '-cf', join(dir, `${format}.tar`), '-C', dir, 'registry.toml']);
      expect(readTar(readFileSync(join(dir, `${format}.tar`))).map((e) => e.path), format).toEqual(['registry.toml']);
    }
    const gnu = entry('registry.toml', '0', Buffer.from('x = 1\n'));
    gnu.write('ustar  \0', 257);
    gnu.write('14712345670\0', 345); // atime, where POSIX keeps the prefix
    gnu.write('        ', 148);
    gnu.write(`${gnu.subarray(0, 512).reduce((a, b) => a + b, 0).toString(8).padStart(6, '0')}\0 `, 148);
    expect(readTar(archive(gnu)).map((e) => e.path)).toEqual(['registry.toml']);
  });

  it('refuses a symlink GNU tar stored', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tar-'));
    symlinkSync('/etc/passwd', join(dir, 'registry.toml'));
    execFileSync('tar', ['-cf', join(dir, 'link.tar'), '-C', dir, 'registry.toml']);
    expect(refusal(readFileSync(join(dir, 'link.tar')))).toMatch(/symbolic link/);
  });
});

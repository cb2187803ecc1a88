import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlotError } from '../../protocol/errors.js';
import { findLlamaServer, findRuntime, searchPath } from './binary.js';

let root: string;
const dir = (name: string) => join(root, name);

async function fake(path: string, executable = true) {
  await writeFile(path, '#!/bin/sh\nexit 0\n');
  await chmod(path, executable ? 0o755 : 0o644);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-binary-'));
  for (const d of ['config', 'env', 'path1', 'path2', 'noexec', 'isdir/llama-server']) await mkdir(dir(d), { recursive: true });
  await fake(join(dir('config'), 'llama-server'));
  await fake(join(dir('env'), 'llama-server'));
  await fake(join(dir('path2'), 'llama-server'));
  await fake(join(dir('path2'), 'podman'));
  await fake(join(dir('noexec'), 'llama-server'), false);
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('findLlamaServer', () => {
  it('prefers [engines].llama_server, then SVC_LLAMA_SERVER, then PATH', async () => {
    const PATH = [dir('path1'), dir('path2')].join(':');
    const SVC_LLAMA_SERVER = join(dir('env'), 'llama-server');
    expect(await findLlamaServer(join(dir('config'), 'llama-server'), { PATH, SVC_LLAMA_SERVER })).toEqual({ path: join(dir('config'), 'llama-server'), from: 'config' });
    expect(await findLlamaServer('', { PATH, SVC_LLAMA_SERVER })).toEqual({ path: SVC_LLAMA_SERVER, from: 'env' });
    expect(await findLlamaServer('', { PATH })).toEqual({ path: join(dir('path2'), 'llama-server'), from: 'path' });
  });

  it('skips non-executable files, directories and relative or empty PATH entries', async () => {
    const PATH = ['', 'relative', dir('noexec'), dir('isdir'), dir('path2')].join(':');
    expect(await searchPath('llama-server', PATH)).toBe(join(dir('path2'), 'llama-server'));
  });

  it('is slot.binary_missing, saying how to get one, when nothing is found', async () => {
    const error = await findLlamaServer('', { PATH: [dir('path1'), dir('noexec')].join(':') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotError);
    expect((error as SlotError).code).toBe('slot.binary_missing');
    // In this checkout the build script is there to name (an installed package is told of llama.cpp instead: how-to-get.test.ts).
    expect((error as SlotError).message).toMatch(/npm run llama-server/);
    expect((error as SlotError).message).toMatch(/SVC_LLAMA_SERVER/);
  });

  it('does not fall through when a configured source is broken', async () => {
    const PATH = dir('path2');
    await expect(findLlamaServer(join(dir('noexec'), 'llama-server'), { PATH })).rejects.toThrow(/\[engines\]\.llama_server .* not an executable/);
    await expect(findLlamaServer('', { PATH, SVC_LLAMA_SERVER: join(dir('config'), 'missing') })).rejects.toMatchObject({ code: 'slot.binary_missing' });
  });
});

describe('findRuntime', () => {
  it('finds podman on PATH or says it is missing', async () => {
    expect(await findRuntime('podman', { PATH: dir('path2') })).toBe(join(dir('path2'), 'podman'));
    await expect(findRuntime('docker', { PATH: dir('path2') })).rejects.toMatchObject({ code: 'slot.binary_missing' });
  });
});

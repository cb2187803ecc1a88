// The roots scan and file inspection, on real files in a temp directory.
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_MODEL_SHAPE, writeTinyModel } from '../engines/gguf/tiny-model.js';
import { gguf, writeGguf } from '../engines/gguf/writer.js';
import { findSidecar, inspectModelFile } from './inspect.js';
import { effectiveStore } from '../config/model-store.js';
import { scanModelRoots, scanRoots } from './scan.js';

const EXTENSIONS = ['.gguf', '.safetensors'];
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-scan-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fresh(name: string): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  return root;
}

/** A file of `bytes` bytes; a .gguf one starts with the GGUF magic (the scan skips one without it), its header past that unreadable. */
function put(path: string, bytes = 16): string {
  mkdirSync(join(path, '..'), { recursive: true });
  const fill = Buffer.alloc(bytes, 1);
  if (path.endsWith('.gguf') && bytes >= 4) fill.write('GGUF', 0, 'latin1');
  writeFileSync(path, fill);
  return path;
}

describe('inspectModelFile', () => {
  it('reads the context length of a GGUF and its size', async () => {
    const root = fresh('inspect-tiny');
    const path = join(root, 'tiny.gguf');
    const size = await writeTinyModel(path);
    const facts = await inspectModelFile(path, statSync(path).size, EXTENSIONS);
    expect(facts).toMatchObject({ size_bytes: size, files: [], missing_parts: [], mmproj: null, context_length: TINY_MODEL_SHAPE.contextLength, tags: [], warnings: [] });
  });

  it('tags a GGUF with nextn (MTP) layers, and a file named with an mtp marker', async () => {
    const root = fresh('inspect-mtp');
    const path = join(root, 'glm.gguf');
    await writeGguf(path, {
      metadata: { 'general.architecture': gguf.string('glm4moe'), 'glm4moe.context_length': gguf.uint32(131072), 'glm4moe.nextn_predict_layers': gguf.uint32(1) },
      tensors: [],
    });
    const facts = await inspectModelFile(path, statSync(path).size, EXTENSIONS);
    expect(facts.context_length).toBe(131072);
    expect(facts.tags).toEqual(['mtp']);
    const named = put(join(root, 'qwen3-mtp-q4.safetensors'));
    expect((await inspectModelFile(named, 16, EXTENSIONS)).tags).toEqual(['mtp']);
  });

  it('warns, and carries on, when a .gguf has the magic but no readable header', async () => {
    const path = put(join(fresh('inspect-bad'), 'junk.gguf'), 64);
    const facts = await inspectModelFile(path, 64, EXTENSIONS);
    expect(facts.context_length).toBeNull();
    expect(facts.not_gguf).toBeNull();
    expect(facts.warnings[0]).toMatch(/could not read the GGUF header/);
  });

  it('says what a .gguf without the GGUF magic starts with; the scan skips it', async () => {
    const root = fresh('inspect-not-gguf');
    const page = join(root, 'page.gguf');
    writeFileSync(page, '<!DOCTYPE html><html></html>');
    const facts = await inspectModelFile(page, statSync(page).size, EXTENSIONS);
    expect(facts.not_gguf).toEqual({ found: 'it starts with "<!DOCTYP" (3c 21 44 4f 43 54 59 50), not the GGUF magic "GGUF": text that looks like an HTML or XML page (a download that saved an error page?)', first_bytes: '3c 21 44 4f 43 54 59 50' });
    const pointer = join(root, 'pointer.gguf');
    writeFileSync(pointer, 'version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n');
    expect((await inspectModelFile(pointer, statSync(pointer).size, EXTENSIONS)).not_gguf?.found).toMatch(/a Git LFS pointer, not the model/);
    const empty = join(root, 'empty.gguf');
    writeFileSync(empty, '');
    expect((await inspectModelFile(empty, 0, EXTENSIONS)).not_gguf).toEqual({ found: 'the file is empty', first_bytes: '' });
    const outcome = await scanModelRoots([root], EXTENSIONS);
    expect(outcome.models).toEqual([]);
    expect(outcome.skipped.map((s) => s.path).sort()).toEqual([empty, page, pointer]);
    expect(outcome.skipped[0]!.reason).toMatch(/^not a GGUF file: /);
  });

  it('collects the parts of a split model and their total size, and names missing parts', async () => {
    const root = fresh('inspect-split');
    const first = put(join(root, 'big-00001-of-00003.gguf'), 10);
    put(join(root, 'big-00002-of-00003.gguf'), 20);
    const missing = await inspectModelFile(first, 10, EXTENSIONS);
    expect(missing.missing_parts).toEqual([join(root, 'big-00003-of-00003.gguf')]);
    put(join(root, 'big-00003-of-00003.gguf'), 30);
    const complete = await inspectModelFile(first, 10, EXTENSIONS);
    expect(complete.size_bytes).toBe(60);
    expect(complete.files).toEqual([join(root, 'big-00002-of-00003.gguf'), join(root, 'big-00003-of-00003.gguf')]);
  });

  it('finds the first mmproj sidecar of the resolved directory', async () => {
    const root = fresh('inspect-sidecar');
    put(join(root, 'vl.gguf'));
    put(join(root, 'mmproj-vl-f32.gguf'));
    put(join(root, 'MMPROJ-vl-f16.gguf'));
    put(join(root, 'mmproj-notes.txt'));
    expect(await findSidecar(root, EXTENSIONS)).toBe(join(root, 'MMPROJ-vl-f16.gguf'));
    symlinkSync(root, join(dir, 'sidecar-link'));
    expect(await findSidecar(join(dir, 'sidecar-link'), EXTENSIONS)).toBe(join(root, 'MMPROJ-vl-f16.gguf'));
    expect(await findSidecar(join(dir, 'nowhere'), EXTENSIONS)).toBeNull();
  });
});

describe('scanModelRoots', () => {
  it('finds model files under the roots, attaches sidecars and skips what is not a model', async () => {
    const root = fresh('scan-a');
    await writeTinyModel(join(root, 'Tiny-Chat.gguf'));
    put(join(root, 'vision', 'qwen2-vl.gguf'));
    put(join(root, 'vision', 'mmproj-qwen2-vl-f16.gguf'));
    put(join(root, 'readme.txt'));
    put(join(root, '.tmp', 'pulling.gguf'));
    put(join(root, '.hidden.gguf'));
    put(join(root, 'shards', 'w-00001-of-00002.safetensors'), 5);
    put(join(root, 'shards', 'w-00002-of-00002.safetensors'), 7);
    put(join(root, 'orphans', 'x-00002-of-00002.gguf'));
    put(join(root, 'broken', 'y-00001-of-00002.gguf'));
    put(join(root, 'deep', 'a', 'b', 'c', 'nested.gguf'));
    symlinkSync(root, join(root, 'loop'));

    const result = await scanModelRoots([root, join(dir, 'no-such-root')], EXTENSIONS);
    expect(result.missing_roots).toEqual([join(dir, 'no-such-root')]);
    const byId = Object.fromEntries(result.models.map((m) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual(['nested', 'qwen2-vl', 'tiny-chat', 'w']);
    expect(byId['tiny-chat']).toMatchObject({ path: join(root, 'Tiny-Chat.gguf'), context_length: TINY_MODEL_SHAPE.contextLength, mmproj: null });
    expect(byId['qwen2-vl']!.mmproj).toBe(join(root, 'vision', 'mmproj-qwen2-vl-f16.gguf'));
    expect(byId.w).toMatchObject({ size_bytes: 12, files: [join(root, 'shards', 'w-00002-of-00002.safetensors')] });
    expect(result.sidecars).toEqual([join(root, 'vision', 'mmproj-qwen2-vl-f16.gguf')]);
    expect(result.skipped.map((s) => s.path).sort()).toEqual([join(root, 'broken', 'y-00001-of-00002.gguf'), join(root, 'orphans', 'x-00002-of-00002.gguf')]);
    expect(result.skipped.find((s) => s.path.includes('orphans'))!.reason).toMatch(/first part is missing/);
  });

  it('counts a file reachable from two roots once', async () => {
    const root = fresh('scan-b');
    put(join(root, 'store', 'one.gguf'));
    const result = await scanModelRoots([root, join(root, 'store')], EXTENSIONS);
    expect(result.models.map((m) => m.id)).toEqual(['one']);
  });
});

describe('roots and store', () => {
  it('scans the roots and then the store; the effective store is the store, else the first root', () => {
    expect(scanRoots({ roots: ['/a', '/b'], store: '' })).toEqual(['/a', '/b']);
    expect(scanRoots({ roots: ['/a'], store: '/s' })).toEqual(['/a', '/s']);
    expect(scanRoots({ roots: ['/a'], store: '/a/' })).toEqual(['/a']);
    expect(effectiveStore({ roots: ['/a', '/b'], store: '' })).toBe('/a');
    expect(effectiveStore({ roots: ['/a'], store: '/s' })).toBe('/s');
    expect(effectiveStore({ roots: [], store: '' })).toBeNull();
  });
});

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { resolvePaths } from './paths.js';
import { formatProblem } from './problems.js';
import { updateSlotFile } from './slot-files.js';

function paths(files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'svc-slotfile-'));
  const p = resolvePaths({ env: { SVC_HOME: root }, isRoot: false, homeDir: root, exists: () => false });
  mkdirSync(p.slotsDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(p.slotsDir, name), text);
  return p;
}

const CHAT = `[slot]
name = "chat"
port = 8081
added_by_a_newer_svc = "keep me"

[model]
default = "tiny"
rope_freq_base = 500000.0

[vendor_tool]
note = "not ours"
`;

describe('updateSlotFile', () => {
  it('keeps unknown keys, unknown sections and rope_freq_base across a read-modify-write', async () => {
    const p = paths({ 'chat.toml': CHAT });
    const result = await updateSlotFile(p, 'chat', { slot: { port: 8090 }, model: { context_size: 4096 } });
    expect(result.ok).toBe(true);
    const doc = parse(readFileSync(join(p.slotsDir, 'chat.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(doc.slot).toMatchObject({ port: 8090, added_by_a_newer_svc: 'keep me' });
    expect(doc.model).toMatchObject({ default: 'tiny', context_size: 4096, rope_freq_base: 500000 });
    expect(doc.vendor_tool).toEqual({ note: 'not ours' });
  });

  it('refuses an invalid change and leaves the file byte-for-byte unchanged', async () => {
    const p = paths({ 'chat.toml': CHAT, 'embed.toml': '[slot]\nname = "embed"\nport = 8082\n' });
    const before = readFileSync(join(p.slotsDir, 'chat.toml'));
    const result = await updateSlotFile(p, 'chat', { slot: { device: 'gpu', port: 8082, default_voice: 'x' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(formatProblem).sort()).toEqual([
      'slots/chat.toml: slot.default_voice: only allowed on tts slots; this slot\'s type is "llm"',
      'slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"',
      'slots/chat.toml: slot.port: port 8082 is already used by slots/embed.toml',
    ]);
    expect(readFileSync(join(p.slotsDir, 'chat.toml')).equals(before)).toBe(true);
  });

  it('creates a new slot file and refuses names that could escape the slots directory', async () => {
    const p = paths();
    const created = await updateSlotFile(p, 'utility', { slot: { name: 'utility', port: 8083, device: 'cpu' } });
    expect(created).toMatchObject({ ok: true, created: true, config: { slot: { name: 'utility', type: 'llm', workers: 1 } } });
    const escape = await updateSlotFile(p, '../../evil', { slot: { name: 'evil', port: 8084 } });
    expect(escape.ok).toBe(false);
  });
});

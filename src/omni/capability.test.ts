import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/load.js';
import { RegistryFileSchema } from '../config/schema/registry.js';
import { SlotFileSchema } from '../config/schema/slot.js';
import { writeTinyModel } from '../engines/gguf/tiny-model.js';
import { TemplateCache } from '../engines/tool-calling.js';
import { canCallTools, toolCallingInput } from './capability.js';

describe('canCallTools', () => {
  it('takes an upstream only when its entry says tool_calling = true', () => {
    expect(canCallTools({ kind: 'upstream', toolCalling: true })).toBe(true);
    expect(canCallTools({ kind: 'upstream', toolCalling: false })).toBe(false);
  });

  it('lets [slot].tool_calling decide when it is set, whatever the engine and template', () => {
    expect(canCallTools({ kind: 'slot', provider: 'kokoro', toolCalling: true, template: null })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'builtin', toolCalling: false, template: null })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: false, template: '{% for tool in tools %}' })).toBe(false);
  });

  it('detects: the built-in engine can; llama-server when the template mentions tools; other engines cannot', () => {
    expect(canCallTools({ kind: 'slot', provider: 'builtin', toolCalling: null, template: null })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: '{%- if tools %}{{ tools | tojson }}{% endif %}' })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: "{% for m in messages %}{{ m['tool_calls'] }}{% endfor %}" })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: '{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}' })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: null })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'flm', toolCalling: null, template: null })).toBe(false);
  });
});

describe('toolCallingInput', () => {
  const slot = (name: string, extra: Record<string, unknown> = {}) => ({
    name, file: `slots/${name}.toml`,
    config: SlotFileSchema.parse({ slot: { name, port: 8090, device: 'cpu', ...extra }, model: { default: 'tiny' } }),
  });

  it('reads the template of a llama-server slot from its GGUF, once per file; the slot key and upstream entries need no read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-omni-template-'));
    const path = join(dir, 'tiny.gguf');
    await writeTinyModel(path);
    const config = {
      slots: [slot('plain'), slot('forced', { tool_calling: true }), slot('own', { provider: 'builtin' })],
      registry: RegistryFileSchema.parse({ models: { tiny: { path } } }),
      upstreams: { upstreams: { far: { tool_calling: true } } },
    } as unknown as ResolvedConfig;
    const templates = new TemplateCache();
    const plain = await toolCallingInput(config, { kind: 'slot', slot: 'plain', model: 'tiny', via: 'slot-name' }, templates);
    // The tiny model's ChatML template renders no tools: llama-server would drop them.
    expect(plain).toMatchObject({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: expect.stringContaining('<|im_start|>') });
    expect(canCallTools(plain)).toBe(false);
    expect(templates.template(path)).toBe(templates.template(path)); // one read, kept
    expect(canCallTools(await toolCallingInput(config, { kind: 'slot', slot: 'forced', model: 'tiny', via: 'slot-name' }, templates))).toBe(true);
    expect(canCallTools(await toolCallingInput(config, { kind: 'slot', slot: 'own', model: 'tiny', via: 'slot-name' }, templates))).toBe(true);
    expect(canCallTools(await toolCallingInput(config, { kind: 'upstream', upstream: 'far', model: 'x' }, templates))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});

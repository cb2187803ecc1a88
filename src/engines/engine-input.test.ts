import { describe, expect, it } from 'vitest';
import { SEED_PROFILES } from '../config/profiles.js';
import { tokenize } from '../lib/shell-words.js';
import { dialectFor, hostOnlyProfileChanges, hostOnlySlotChanges, profileDialect, type SlotEngineInput } from './engine-input.js';
import { readEngineArgs } from './flag-rules.js';

const llm = { device_class: 'gpu' as const, intent: 'chat', image: '' };
const slot = (extraArgs: string | null, over: Partial<SlotEngineInput> = {}): SlotEngineInput => ({ provider: 'llama-server', profile: null, extraArgs, env: null, ...over });
const added = (extra: string, provider = 'llama-server') => hostOnlySlotChanges(slot(null, { provider }), slot(extra, { provider }));

describe('llama-server flags from the LAN', () => {
  it('lets tuning through', () => {
    expect(added('-t 2 --ctx-size 4096 -ngl 99 -fa on --temp 0.7 --jinja --no-mmproj --alias "my model" --override-kv a=int:1 -c=4096')).toEqual(['flags -c 4096']);
    expect(added('--threads_batch 2 --n_gpu_layers 10 --cache_type_k q8_0')).toEqual([]);
  });

  it.each([
    ['--log-file /tmp/x'], ['--log_file /tmp/x'], ['--slot_save_path /tmp/s'], ['--chat_template_file /tmp/t'], ['--hf_repo a/b'],
    ['-mm /tmp/p.gguf'], ['-mmu http://x/p'], ['--mmproj-url http://x/p'], ['-hff f.gguf'], ['-hfv a/b'], ['-hffv f'], ['--lora /x'],
    ['-m /etc/passwd'], ['--tools all'], ['--agent'], ['--rpc 10.0.0.1:50052'], ['--api-key k'], ['--ui'], ['--models-dir /'], ['--fim-qwen-7b-default'],
    ['--log-file=/tmp/x'], ['--some-future-flag 1'], ['stray-word'],
  ])('keeps %s to the host', (extra) => {
    expect(added(extra)).toHaveLength(1);
  });

  it('reads a value the way llama.cpp does: the next token, whatever it looks like', () => {
    // llama.cpp gives --alias the value "--log-file" and then fails on "/tmp/x": nothing is hidden.
    expect(added('--alias --log-file /tmp/x')).toEqual(['flags /tmp/x']);
    // A boolean LAN flag never swallows the next token.
    expect(added('--jinja --log-file /tmp/x')).toEqual(['flags --log-file /tmp/x']);
  });

  it('compares flag and value: a new value of a host-only flag is a change, a respelling is not', () => {
    const before = slot('--log-file /var/log/a -mm /m/p.gguf');
    expect(hostOnlySlotChanges(before, slot('--log-file /var/log/a -mm /m/p.gguf -t 2'))).toEqual([]);
    expect(hostOnlySlotChanges(before, slot('--log_file /var/log/a --mmproj /m/p.gguf'))).toEqual([]);
    expect(hostOnlySlotChanges(before, slot('--log-file /tmp/other -mm /m/p.gguf'))).toEqual(['flags --log-file /tmp/other']);
  });

  it('approves a profile\'s flags only on the engine it is written for', () => {
    const profile = { ...llm, flags: '--log-file /var/log/p --temp 0.7' };
    expect(hostOnlySlotChanges(undefined, slot(null, { profile }))).toEqual([]);
    // On ComfyUI, argparse reads --temp as --temp-directory, and --log-file is unknown there.
    expect(hostOnlySlotChanges(undefined, slot(null, { profile, provider: 'comfyui' }))).toEqual(['flags --log-file /var/log/p', 'flags --temp 0.7']);
  });

  it('keeps every variable but the device and thread allowlist to the host, and lets a kept one stay', () => {
    expect(hostOnlySlotChanges(undefined, slot(null, { env: { LD_PRELOAD: '/x.so', CUDA_VISIBLE_DEVICES: '0', LLAMA_ARG_RPC: '10.0.0.9:50052' } }))).toEqual(['server.env.LD_PRELOAD', 'server.env.LLAMA_ARG_RPC']);
    expect(hostOnlySlotChanges(undefined, slot(null, { env: { CUDA_VISIBLE_DEVICES: '0;id' } }))).toEqual(['server.env.CUDA_VISIBLE_DEVICES']);
    expect(hostOnlySlotChanges(slot(null, { env: { PATH: '/opt/bin' } }), slot(null, { env: { PATH: '/opt/bin' } }))).toEqual([]);
    expect(hostOnlySlotChanges(slot(null, { env: { PATH: '/opt/bin' } }), slot(null, { env: { PATH: '/tmp' } }))).toEqual(['server.env.PATH']);
    expect(hostOnlySlotChanges(slot(null, { env: { PATH: '/opt/bin' } }), slot(null, { env: null }))).toEqual([]);
  });

  it('judges the host\'s variables again when the slot moves to another engine', () => {
    const env = { PYTHONWARNINGS: 'ignore' };
    expect(hostOnlySlotChanges(slot(null, { env }), slot('-t 2', { env }))).toEqual([]);
    expect(hostOnlySlotChanges(slot(null, { env }), slot(null, { env, provider: 'comfyui' }))).toEqual(['server.env.PYTHONWARNINGS']);
  });
});

describe('profile changes from the LAN', () => {
  it('judges the host\'s flags again when the profile moves to another engine', () => {
    const warm = { device_class: 'cpu' as const, intent: 'chat', image: '', flags: '--temp 0.7' };
    expect(hostOnlyProfileChanges('warm', warm, { ...warm, flags: '--temp 0.7 -t 2' }, new Set())).toEqual([]);
    // ComfyUI reads --temp as --temp-directory: the host never approved a directory.
    expect(hostOnlyProfileChanges('warm', warm, { ...warm, device_class: 'img' }, new Set())).toEqual(['profiles.warm.flags --temp 0.7']);
  });
});

describe('ComfyUI flags from the LAN', () => {
  it.each([
    ['--output-directory /tmp/o'], ['--user-directory /tmp/u'], ['--extra-model-paths-config /tmp/e.yaml'], ['--output /tmp/o'], ['--front-end-version x@latest'],
    ['--enable-manager'], ['--tls-keyfile /k'], ['--fast'], ['--disable-mmap=1'],
  ])('keeps %s to the host', (extra) => {
    expect(added(extra, 'comfyui')).toHaveLength(1);
  });

  it('lets precision and memory modes through', () => {
    expect(added('--disable-mmap --bf16-vae --cache-none --lowvram --reserve-vram 2 --preview-method auto', 'comfyui')).toEqual([]);
  });
});

describe('profiles', () => {
  it('judges every seed profile in its own dialect: only file flags are host-only', () => {
    for (const [name, profile] of Object.entries(SEED_PROFILES)) {
      const args = readEngineArgs(profileDialect(profile), tokenize(profile.flags)).filter((arg) => !arg.lan);
      expect(args.map((arg) => arg.flag), name).toEqual(name.startsWith('tts') ? ['--model_path'] : []);
    }
  });

  it('finds new host-only flags and new images, not kept ones', () => {
    const images = new Set(Object.values(SEED_PROFILES).map((p) => p.image));
    const before = { ...llm, flags: '-ngl 99 --lora /m/a.gguf', image: SEED_PROFILES.vulkan!.image };
    expect(hostOnlyProfileChanges('p', before, { ...before, flags: '-ngl 10 --lora /m/a.gguf' }, images)).toEqual([]);
    expect(hostOnlyProfileChanges('p', before, { ...before, flags: '--lora /m/b.gguf' }, images)).toEqual(['profiles.p.flags --lora /m/b.gguf']);
    expect(hostOnlyProfileChanges('p', before, { ...before, image: SEED_PROFILES.cuda!.image }, images)).toEqual([]);
    expect(hostOnlyProfileChanges('p', before, { ...before, image: 'docker.io/library/busybox' }, images)).toEqual(['profiles.p.image docker.io/library/busybox']);
    expect(hostOnlyProfileChanges('p', undefined, { ...llm, flags: '' }, images)).toEqual([]);
  });
});

describe('dialects', () => {
  it('reads unknown providers like llama-server', () => {
    expect(dialectFor('nope')).toBe(dialectFor('llama-server'));
    expect(dialectFor('builtin')).toBe(dialectFor('llama-server'));
  });
});

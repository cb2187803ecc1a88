import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { createQwen3TtsAdapter, qwen3TtsAdapter } from './adapter.js';

const bin = fakeBin(['python3', 'podman']);
afterAll(() => bin.remove());
const adapter = createQwen3TtsAdapter({ hostDevices: () => HOST_DEVICES });
const tts = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'voice', type: 'tts', device: 'gpu-rocm', provider: 'qwen3tts', port: 8095, gpu_index: 1, ...over.slot },
  svc: { engines: { qwen3tts: 'python3 /opt/qwen3tts/qwen3tts_server.py' }, ...over.svc },
  env: { PATH: bin.dir, ...over.env },
});
const SEED_FLAGS = ['--model_path', '/mnt/ai-models/local/qwen3-tts/Qwen3-TTS-12Hz-1.7B-CustomVoice', '--default_voice', 'Ryan', '--default_language', 'Auto'];

describe('qwen3tts adapter', () => {
  it('process: the command line, the tts-qwen3 flags, 127.0.0.1 and the port; MIOpen cache and GPU visibility in the env', async () => {
    const spec = await adapter.launch(tts());
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('python3'), baseUrl: 'http://127.0.0.1:8095' });
    expect(spec.args).toEqual(['/opt/qwen3tts/qwen3tts_server.py', ...SEED_FLAGS, '--host', '127.0.0.1', '--port', '8095']);
    expect(spec.env).toMatchObject({
      MIOPEN_USER_DB_PATH: '/var/lib/svc/slots/voice/qwen3tts-cache/miopen', MIOPEN_FIND_MODE: 'FAST',
      HIP_VISIBLE_DEVICES: '1', ROCR_VISIBLE_DEVICES: '1',
    });
    expect(spec.env).not.toHaveProperty('HSA_OVERRIDE_GFX_VERSION');
  });

  it('container: GPU devices and groups, the cache at /cache (SVC_QWEN3TTS_CACHE), MIOpen pointed there', async () => {
    const spec = await adapter.launch(tts({ svc: { engines: { runtime: 'podman' } }, env: { SVC_QWEN3TTS_CACHE: '/srv/qwen-cache' } }));
    expect(spec.mode).toBe('container');
    expect(spec.args).toEqual([
      'run', '--rm', '--name=svc-slot-voice', '--replace', '--log-driver=none',
      '--device=/dev/kfd', '--device=/dev/dri/card0', '--device=/dev/dri/renderD128', '--group-add=110', '--group-add=44',
      '--security-opt=apparmor=unconfined', '--security-opt=seccomp=unconfined',
      '--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--volume=/srv/qwen-cache:/cache:z',
      '--env=MIOPEN_USER_DB_PATH=/cache/miopen', '--env=MIOPEN_CUSTOM_CACHE_DIR=/cache/miopen', '--env=MIOPEN_FIND_MODE=FAST',
      '--env=HIP_VISIBLE_DEVICES=1', '--env=ROCR_VISIBLE_DEVICES=1',
      '--publish=127.0.0.1:8095:8095', SEED_PROFILES['tts-qwen3']!.image, ...SEED_FLAGS, '--host', '0.0.0.0', '--port', '8095',
    ]);
  });

  it('without a command: slot.binary_missing naming [engines].qwen3tts and SVC_QWEN3TTS', async () => {
    await expect(adapter.launch(tts({ svc: { engines: { qwen3tts: '' } } }))).rejects.toMatchObject({ code: 'slot.binary_missing', message: /\[engines\]\.qwen3tts and SVC_QWEN3TTS are unset/ });
  });

  it('model id qwen3-tts; tts only; the generic /health probe', async () => {
    expect(qwen3TtsAdapter.defaultModelId!(tts().slot.config)).toBe('qwen3-tts');
    await expect(adapter.launch(tts({ slot: { type: 'transcription' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    expect(await qwen3TtsAdapter.health('http://127.0.0.1:1', new AbortController().signal)).toBe('down');
  });
});

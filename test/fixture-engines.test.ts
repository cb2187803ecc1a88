// The fixture engines against their adapters, without the gateway: each adapter builds the
// command line (process mode, [engines].<x> = the fixture), the fixture is started with it
// (so it accepts every flag the adapter passes, or exits 2), the adapter's own health probe
// waits for it, and every route the adapter declares is answered, not 404. So an adapter
// and the fixture standing in for its engine cannot drift apart.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { flmAdapter } from '../src/engines/flm/adapter.js';
import { kokoroAdapter } from '../src/engines/kokoro/adapter.js';
import { moonshineAdapter } from '../src/engines/moonshine/adapter.js';
import { qwen3TtsAdapter } from '../src/engines/qwen3tts/adapter.js';
import type { EngineAdapter, EngineRoute } from '../src/engines/types.js';
import { audioToolsMissing, fixtureCommand } from './helpers/fixture-engines.js';
import { launchContext } from './helpers/launch-context.js';
import { freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const MISSING = audioToolsMissing();
const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

const WAV = () => spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', '-ar', '16000', '-ac', '1', '-f', 'wav', 'pipe:1'], { encoding: 'buffer' }).stdout;

/** A request that exercises a route the way a client of that engine would. */
function requestFor(purpose: string, route: EngineRoute): RequestInit {
  if (route.method === 'GET') return {};
  if (purpose === 'transcriptions') {
    const form = new FormData();
    form.append('model', 'any');
    form.append('file', new Blob([WAV()], { type: 'audio/wav' }), 'a.wav');
    return { method: 'POST', body: form };
  }
  const bodies: Record<string, unknown> = {
    speech: { model: 'm', input: 'Hello.', response_format: 'wav' },
    chat: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    embeddings: { model: 'm', input: 'hi' },
  };
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bodies[purpose]) };
}

const CASES: Array<{ adapter: EngineAdapter; file: string; slot: Record<string, unknown>; model?: Record<string, unknown>; npu?: Record<string, unknown> }> = [
  { adapter: kokoroAdapter, file: 'kokoro-engine.mjs', slot: { type: 'tts', device: 'cpu' } },
  { adapter: qwen3TtsAdapter, file: 'qwen3tts-engine.mjs', slot: { type: 'tts', device: 'gpu-rocm' } },
  { adapter: moonshineAdapter, file: 'moonshine-engine.mjs', slot: { type: 'transcription', device: 'cpu' }, model: { default: 'moonshine-base-en' } },
  { adapter: flmAdapter, file: 'flm-engine.mjs', slot: { type: 'llm', device: 'npu' }, model: { default: 'gemma3-4b-FLM' }, npu: { embed: true, asr: true } },
];

describe.skipIf(MISSING)('fixture engines speak what their adapters declare', () => {
  for (const c of CASES) {
    it(`${c.adapter.provider}: starts from the adapter's command line, turns healthy, answers every declared route`, async () => {
      const port = await freeSlotPort();
      const ctx = launchContext({
        slot: { name: 'x', provider: c.adapter.provider, port, ...c.slot }, model: c.model ?? {}, npu: c.npu ?? {},
        svc: { engines: { [c.adapter.provider]: fixtureCommand(c.file) } }, env: { PATH: process.env.PATH },
      });
      ctx.model.id = ctx.slot.config.model.default || c.adapter.defaultModelId!(ctx.slot.config);
      // The seed profiles name model files that do not exist here; the fixtures only log them.
      const spec = await c.adapter.launch(ctx);
      const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await waitFor(async () => (child.exitCode === null ? c.adapter.health(spec.baseUrl, AbortSignal.timeout(3_000)) : `exited: ${stderr}`), { what: `${c.adapter.provider} to turn healthy`, until: (h) => h === 'ready', timeout: 15_000 });
      for (const [purpose, route] of Object.entries(c.adapter.routes ?? {})) {
        const response = await fetch(`${spec.baseUrl}${route.path}`, requestFor(purpose, route));
        expect({ purpose, status: response.status }).toEqual({ purpose, status: 200 });
        await response.arrayBuffer();
      }
      expect(Object.keys(c.adapter.routes ?? {}).length).toBeGreaterThanOrEqual(3);
    });
  }
});

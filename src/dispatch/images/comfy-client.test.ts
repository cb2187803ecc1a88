// runComfyWorkflow against the ComfyUI fixture engine (test/fixtures/comfyui-engine.mjs), a
// separate process speaking ComfyUI's HTTP API.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/gateway.js';
import { freePort } from '../../../test/helpers/ports.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { SvcError } from '../../protocol/errors.js';
import { runComfyWorkflow } from './comfy-client.js';
import { normaliseImageRequest } from './request.js';
import { buildWorkflow, curatedImageModel, type ComfyWorkflow } from './workflow.js';

const engines: ChildProcess[] = [];
afterAll(() => engines.forEach((e) => e.kill('SIGKILL')));

async function engine(...flags: string[]): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/comfyui-engine.mjs'), '--listen', '127.0.0.1', '--port', String(port), ...flags], { stdio: 'ignore' });
  engines.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/system_stats`)).ok, { what: 'the comfyui fixture to listen', interval: 25 });
  return url;
}

const graph = (over: Record<string, unknown> = {}): ComfyWorkflow =>
  buildWorkflow(normaliseImageRequest({ prompt: 'a red fox', size: '96x64', n: 2, seed: 3, ...over }, curatedImageModel('sdxl-turbo')!, { default_size: '1024x1024', default_steps: 0 }, () => 1).job, 'svc-test');

const options = (signal = new AbortController().signal) => ({ clientId: 'c1', signal, pollMs: 10, target: { slot: 'img' } });

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('runComfyWorkflow', () => {
  it('submits, polls the history and fetches every output as a PNG of the asked size', async () => {
    const url = await engine();
    const run = await runComfyWorkflow(url, graph(), options());
    expect(run.promptId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.images.map((i) => i.ref.filename)).toEqual(['svc-test_00001_.png', 'svc-test_00002_.png']);
    for (const { png } of run.images) {
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([96, 64]); // IHDR width, height
    }
    // Same seed and prompt, same picture; another seed, another one.
    expect((await runComfyWorkflow(url, graph(), options())).images[0]!.png.equals(run.images[0]!.png)).toBe(true);
    expect((await runComfyWorkflow(url, graph({ seed: 4 }), options())).images[0]!.png.equals(run.images[0]!.png)).toBe(false);
  });

  it('a graph the engine rejects is image.workflow_invalid with its node errors', async () => {
    const url = await engine('--checkpoints', 'other.safetensors');
    const error = await failure(runComfyWorkflow(url, graph(), options()));
    expect(error.code).toBe('image.workflow_invalid');
    expect(JSON.stringify(error.details.node_errors)).toContain('value_not_in_list');
    expect(error.details.slot).toBe('img');
  });

  it('a failed execution is image.generation_failed with the engine messages', async () => {
    const url = await engine('--fail-execution');
    const error = await failure(runComfyWorkflow(url, graph(), options()));
    expect(error.code).toBe('image.generation_failed');
    expect(JSON.stringify(error.details.messages)).toContain('execution failed on cue');
  });

  it('an engine that is not there is dispatch.upstream_unreachable', async () => {
    const error = await failure(runComfyWorkflow(`http://127.0.0.1:${await freePort()}`, graph(), options()));
    expect(error.code).toBe('dispatch.upstream_unreachable');
  });

  it('aborting takes the prompt off the engine queue', async () => {
    const url = await engine('--step-ms', '2000');
    const abort = new AbortController();
    const run = runComfyWorkflow(url, graph(), options(abort.signal)).catch((e: unknown) => e);
    const queue = async () => (await (await fetch(`${url}/queue`)).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
    const running = await waitFor(queue, { what: 'the prompt to run on the engine', until: (q) => q.queue_running.length > 0, interval: 10 });
    expect(running.queue_running).toHaveLength(1);
    abort.abort();
    await run;
    await waitFor(queue, { what: 'the engine queue to empty after the abort', until: (q) => q.queue_running.length + q.queue_pending.length === 0, interval: 10 });
  });
});

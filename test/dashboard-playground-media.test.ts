// The Playground's media tools in real Chromium against a real gateway whose tts,
// transcription and image slots run the fixture engines that speak the real wire formats
// (test/fixtures: kokoro, moonshine, comfyui): Speak gives an <audio> the browser can play
// from a blob: URL (the CSP allows it: no console error); a WAV made by espeak-ng, uploaded
// through the file input, comes back as the transcript the engine wrote for those very
// bytes; Generate shows the engine's PNG as an <img> that decoded (naturalWidth > 0).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';
import { audioToolsMissing, enginesToml, fixtureCommand } from './helpers/fixture-engines.js';
import { freeSlotPort } from './helpers/ports.js';

const skip = chromiumSkipReason() ?? audioToolsMissing();
let dashboard: Dashboard;
let scratch: string;

beforeAll(async () => {
  if (skip) return;
  scratch = mkdtempSync(join(tmpdir(), 'svc-playground-media-'));
  const slot = async (name: string, type: string, provider: string, rest = '') =>
    `[slot]\nname = "${name}"\nport = ${await freeSlotPort()}\ntype = "${type}"\nprovider = "${provider}"\ndevice = "cpu"\n${rest}`;
  dashboard = await startDashboard({
    slots: [],
    env: { SVC_COMFYUI: fixtureCommand('comfyui-engine.mjs') },
    files: {
      'svc.toml': enginesToml(),
      'slots/speaker.toml': await slot('speaker', 'tts', 'kokoro'),
      'slots/ears.toml': await slot('ears', 'transcription', 'moonshine', '\n[model]\ndefault = "moonshine-tiny-en"\n'),
      'slots/img.toml': await slot('img', 'image', 'comfyui', 'profile = "comfyui"\n\n[model]\ndefault = "sdxl-turbo"\n\n[image]\ndefault_size = "128x96"\ndefault_steps = 2\n'),
    },
  });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** One property of a DOM element (the root tsconfig has no DOM types). */
const property = <T>(element: Locator, name: string) => element.evaluate((node, key) => (node as unknown as Record<string, T>)[key], name);

describe.skipIf(skip)('the Playground’s media tools in Chromium', () => {
  it('speaks a text into a playable <audio>, transcribes an uploaded WAV, and shows a generated image', async () => {
    const { page, problems } = await dashboard.open('/playground/speech');
    await expect.poll(() => page.title()).toBe('svc · Playground · Speech');

    // Speech: the engine's default format (mp3) from the kokoro fixture, played from a blob: URL.
    await page.locator('[data-testid="speech-model"] option[value="svc/tts"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByTestId('speech-model').selectOption('svc/tts');
    await page.getByTestId('speech-input').fill('The quick brown fox jumps over the lazy dog.');
    await page.getByTestId('speech-run').click();
    const audio = page.getByTestId('speech-audio');
    await audio.waitFor({ timeout: 60_000 });
    expect(await audio.getAttribute('src')).toMatch(/^blob:/);
    // The browser read the bytes as audio it can play: metadata loaded, a real duration.
    await expect.poll(() => property<number>(audio, 'readyState'), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    expect(await property<number>(audio, 'duration')).toBeGreaterThan(0.5);
    expect(await page.getByTestId('speech-result').textContent()).toContain('audio/mpeg'); // the answer's type, shown beside the player
    expect(await page.getByTestId('speech-timing-ms').textContent()).toMatch(/^\d+(\.\d+)? m?s$/);

    // Transcription: a WAV espeak-ng wrote, uploaded through the file input; the page shows
    // exactly what the engine answers for these bytes (asked again directly to compare).
    await page.getByRole('link', { name: 'Transcription' }).click();
    const wav = join(scratch, 'hello.wav');
    expect(spawnSync('espeak-ng', ['-w', wav, 'hello world']).status).toBe(0);
    await page.locator('[data-testid="transcription-model"] option[value="svc/stt"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByTestId('transcription-model').selectOption('svc/stt');
    expect(await page.getByTestId('transcription-run').isDisabled()).toBe(true); // no file yet
    await page.getByTestId('transcription-file').setInputFiles(wav);
    await page.getByTestId('transcription-run').click();
    const transcript = page.getByTestId('transcription-text');
    await transcript.waitFor({ timeout: 60_000 });
    const form = new FormData();
    form.append('model', 'svc/stt');
    form.append('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'hello.wav');
    const direct = (await (await fetch(`${dashboard.gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer sk-anything' }, body: form })).json()) as { text: string };
    expect(direct.text).toMatch(/^moonshine-tiny-en heard \d+\.\d\d seconds of pcm_s16le audio/);
    expect(await transcript.textContent()).toBe(direct.text);

    // Image: the comfyui fixture's PNG at the slot's default size, shown as a decoded <img>.
    await page.getByRole('link', { name: 'Image' }).click();
    await page.locator('[data-testid="image-model"] option[value="svc/image"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByTestId('image-model').selectOption('svc/image');
    await page.getByTestId('image-prompt').fill('a red fox in the snow');
    await page.getByTestId('image-run').click();
    const image = page.getByTestId('image-output');
    await image.waitFor({ timeout: 60_000 });
    await expect.poll(() => property<boolean>(image, 'complete'), { timeout: 20_000 }).toBe(true);
    expect([await property<number>(image, 'naturalWidth'), await property<number>(image, 'naturalHeight')]).toEqual([128, 96]);
    expect(await image.getAttribute('alt')).toBe('generated from: a red fox in the snow');
    await screenshot(page, 'playground-image');
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);
});

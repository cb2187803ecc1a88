// The Playground in real Chromium against a real gateway whose slots run on the built-in
// engine with the tiny model: a chat answer streams into the page (its text grows over
// several updates, then the turn completes) with svc's overhead from Server-Timing; Stop
// ends a long answer mid-stream and the gateway's slot has nothing in flight afterwards; a
// stopped chat slot is named as such, and its answer says it waited for the load;
// an engine's error is shown with its code and message; embeddings show the vector's length;
// rerank orders the documents by score; a tool with no model of its kind says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api } from './helpers/gateway.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
let dashboard: Dashboard;

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard({
    slots: [
      { name: 'chat', provider: 'builtin', contextSize: 8192 },
      { name: 'embed', provider: 'builtin', type: 'embedding' },
      { name: 'rank', provider: 'builtin', type: 'reranking', model: 'tiny-rerank' },
    ],
  });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

interface Seen {
  status: string;
  length: number;
}

/** Record the last answer's status and text length at every DOM change (the root tsconfig has no DOM types). */
async function watchAnswers(page: Page): Promise<void> {
  await page.getByTestId('panel-chat').evaluate((panel) => {
    const g = globalThis as unknown as { seen: Seen[]; MutationObserver: new (fn: () => void) => { observe(target: unknown, options: object): void } };
    g.seen = [];
    const element = panel as unknown as { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null; querySelector(s: string): { textContent: string | null } | null }> };
    new g.MutationObserver(() => {
      const turns = element.querySelectorAll('[data-testid="assistant-turn"]');
      const last = turns[turns.length - 1];
      if (last) g.seen.push({ status: last.getAttribute('data-status') ?? '', length: last.querySelector('[data-testid="assistant-text"]')?.textContent?.length ?? 0 });
    }).observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

const seenSoFar = (page: Page) => page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen);

async function send(page: Page, message: string, maxTokens: string): Promise<void> {
  await page.getByTestId('chat-max-tokens').fill(maxTokens);
  await page.getByTestId('chat-message').fill(message);
  await page.getByTestId('chat-send').click();
}

describe.skipIf(skip)('the Playground in Chromium', () => {
  it('streams a chat answer with svc’s overhead, stops a long one mid-stream, and keeps the conversation', async () => {
    const { page, problems } = await dashboard.open('/playground');
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    expect(await page.title()).toBe('svc · Playground');
    // The chat slot's alias is listed once the slot is on its way up (the gateway starts it at boot).
    await page.locator('[data-testid="chat-model"] option[value="chat"]').waitFor({ state: 'attached', timeout: 60_000 });
    await expect.poll(() => page.getByTestId('chat-model').inputValue()).toBe('chat');

    // A bad setting is named beside its field as it is typed, and Send waits for a good one.
    await page.getByTestId('chat-temperature').fill('5');
    await page.locator('[data-field="temperature"] .field-problem').filter({ hasText: 'at most 2' }).waitFor();
    await page.getByTestId('chat-message').fill('hello');
    expect(await page.getByTestId('chat-send').isDisabled()).toBe(true);
    await page.getByTestId('chat-temperature').fill('0.8');

    // A stream that has to wait for its slot gets its head (keep-alives) before svc's timing is
    // known, so it carries no Server-Timing (docs/routing.md): chat once the slot is ready.
    await expect.poll(async () => (await api(dashboard.gateway.url, '/api/slots/chat')).json.state, { timeout: 60_000 }).toBe('ready');
    await page.locator('[data-testid="chat-slot-note"]').waitFor({ state: 'detached' });
    await watchAnswers(page);
    // 64 tokens, however early the tiny model would stop on its own: enough to span updates.
    await page.getByTestId('chat-extra').fill('{"ignore_eos": true}');
    await send(page, 'Tell me a story about a cat.', '64');
    const first = page.getByTestId('assistant-turn').first();
    await page.locator('[data-testid="assistant-turn"][data-status="done"]').waitFor({ timeout: 60_000 });
    const seen = await seenSoFar(page);
    const whileStreaming = [...new Set(seen.filter((s) => s.status === 'streaming' && s.length > 0).map((s) => s.length))];
    expect(whileStreaming).toEqual([...whileStreaming].sort((a, b) => a - b)); // it only grows
    const finalText = (await first.getByTestId('assistant-text').textContent()) ?? '';
    expect(finalText.length).toBeGreaterThanOrEqual(Math.max(0, ...whileStreaming));
    // (Whether a 64-token answer shows partly before it ends depends on the engine's speed
    // against the page's reads; the long answer below is where streaming is asserted.)
    expect(await first.getByTestId('turn-note').textContent()).toMatch(/^(finished|cut off at max tokens)/);
    // svc's overhead, from the answer's Server-Timing header.
    expect(await first.getByTestId('chat-timing-ms').textContent()).toMatch(/^\d+(\.\d+)? m?s$/);

    // A long answer (ignore_eos, still in the JSON extra fields), stopped as soon as its text appears.
    await send(page, 'Now a much longer one, please.', '8000');
    const second = page.getByTestId('assistant-turn').nth(1);
    // Streamed: its text is on screen while the answer is still coming.
    await page.locator('[data-testid="assistant-turn"][data-status="streaming"] [data-testid="assistant-text"]:not(:empty)').waitFor({ timeout: 60_000 });
    const partial = ((await second.getByTestId('assistant-text').textContent()) ?? '').length;
    await expect.poll(async () => ((await second.getByTestId('assistant-text').textContent()) ?? '').length).toBeGreaterThan(partial);
    await page.getByTestId('chat-stop').click();
    await page.locator('[data-testid="assistant-turn"][data-status="stopped"]').waitFor();
    expect(await second.getByTestId('turn-note').textContent()).toBe('stopped');
    expect(((await second.getByTestId('assistant-text').textContent()) ?? '').length).toBeGreaterThan(0);
    // The gateway aborted the engine's work: nothing is left in flight on the slot.
    await expect.poll(async () => (await api(dashboard.gateway.url, '/api/slots/chat')).json.in_flight, { timeout: 20_000 }).toBe(0);
    // The conversation is kept: two questions, two answers, and Send works again.
    expect(await page.getByTestId('user-turn').count()).toBe(2);
    expect(await page.getByTestId('assistant-turn').count()).toBe(2);
    expect(await page.getByTestId('chat-send').isDisabled()).toBe(true); // an empty message
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'playground-chat');
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('says when the chat model is stopped, and that the answer waited for it to load', async () => {
    const { page, problems } = await dashboard.open('/playground');
    await page.locator('[data-testid="chat-model"] option[value="chat"]').waitFor({ state: 'attached', timeout: 60_000 });
    expect((await api(dashboard.gateway.url, '/api/slots/chat/unload', { method: 'POST' })).status).toBe(200);
    // A stopped llm slot has no alias in /v1/models; svc/primary still names it, and the note says a request starts it.
    await expect.poll(() => page.getByTestId('chat-model').inputValue(), { timeout: 20_000 }).toBe('svc/primary');
    const note = page.locator('[data-testid="chat-slot-note"][data-state="stopped"]');
    await note.waitFor();
    expect(await note.textContent()).toContain('the first request starts it');
    await send(page, 'hello again', '16');
    await page.locator('[data-testid="assistant-turn"][data-status="done"]').waitFor({ timeout: 60_000 });
    // Within a second the load shows in Server-Timing; a longer one began the stream (keep-alives) before svc's time was known.
    expect(await page.getByTestId('assistant-turn').locator('.playground-timing').textContent()).toMatch(/waited \d.* for the slot to load|no Server-Timing on this answer/);
    await note.waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows an engine error, embeds a text, reranks documents, and says when no model serves a tool', async () => {
    const { page, problems } = await dashboard.open('/playground');
    await page.getByRole('link', { name: 'Embeddings' }).click();
    await expect.poll(() => page.title()).toBe('svc · Playground · Embeddings');
    await page.locator('[data-testid="embeddings-model"] option[value="svc/embed"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByTestId('embeddings-model').selectOption('svc/embed');
    // The engine's own error (a text longer than the slot's 512-token context), with its code and message.
    const text = await page.getByTestId('embeddings-input').inputValue();
    await page.getByTestId('embeddings-input').fill('word '.repeat(700));
    await page.getByTestId('embeddings-run').click();
    const refusal = page.getByTestId('embeddings-tool').locator('.error-note');
    await refusal.waitFor({ timeout: 60_000 });
    expect(await refusal.textContent()).toMatch(/^request\.context_exceeded .*more than the 512 the context holds/);
    await page.getByTestId('embeddings-input').fill(text);
    await page.getByTestId('embeddings-run').click();
    await page.getByTestId('embeddings-length').waitFor({ timeout: 60_000 });
    expect(await refusal.count()).toBe(0);
    const slot = await api(dashboard.gateway.url, '/v1/embeddings', { method: 'POST', body: { model: 'svc/embed', input: 'x', encoding_format: 'float' } });
    expect(await page.getByTestId('embeddings-length').textContent()).toBe(String(slot.json.data[0].embedding.length));
    expect(await page.getByTestId('embeddings-preview').textContent()).toMatch(/^\[-?\d\.\d{4}, .*…\]$/);
    expect(await page.getByTestId('embeddings-timing-ms').textContent()).toMatch(/^\d+(\.\d+)? m?s$/);

    await page.getByRole('link', { name: 'Rerank' }).click();
    await page.locator('[data-testid="rerank-model"] option[value="svc/rerank"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByTestId('rerank-model').selectOption('svc/rerank');
    await page.getByTestId('rerank-run').click();
    await page.getByTestId('rerank-results').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('rerank-row').count()).toBe(4);
    const scores = (await page.getByTestId('rerank-score').allTextContents()).map(Number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBeGreaterThan(1);

    // No tts slot and no remote endpoint: the Speech tab says what would serve it.
    await page.getByRole('link', { name: 'Speech' }).click();
    await page.getByTestId('speech-no-models').waitFor();
    expect(await page.getByTestId('speech-run').isDisabled()).toBe(true);
    // The chat tab kept its place; the embeddings result is still there when going back.
    await page.getByRole('link', { name: 'Embeddings' }).click();
    expect(await page.getByTestId('embeddings-length').isVisible()).toBe(true);
    await screenshot(page, 'playground-embeddings');
    // The one refusal above was asked for; nothing else failed.
    expect(problems).toEqual([expect.stringMatching(/^HTTP 400: POST .*\/v1\/embeddings$/), expect.stringMatching(/^console: Failed to load resource: .* 400/)]);
    await page.close();
  }, 120_000);
});

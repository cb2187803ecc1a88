// `npm start` on a fresh home, the way a user runs it: scripts/start.mjs writes the tiny
// model, creates a chat and an embedding slot on the built-in engine, serves, and answers
// chat with generated text; no llama-server on PATH. A second start leaves the slots alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, svcEnv, tempHome } from './helpers/gateway.js';
import { processAlive } from './helpers/llama.js';
import { freePort } from './helpers/ports.js';

const home = tempHome();
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(home.home, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** `node scripts/start.mjs --port <free>` with SVC_HOME at the temp home and no llama-server on PATH. */
async function npmStart(): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs'), '--port', String(port)], {
    cwd: REPO_ROOT, env: svcEnv(home.home, { PATH: '/usr/bin:/bin' }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await new Promise<void>((done, fail) => {
    const timer = setInterval(() => {
      if (output.includes('svc is up:')) {
        clearInterval(timer);
        done();
      }
    }, 50);
    void exited.then((code) => fail(new Error(`start.mjs exited with ${code}:\n${output}`)));
  });
  return { child, base: `http://127.0.0.1:${port}`, output: () => output, exited };
}

async function stop(started: Started): Promise<number | null> {
  started.child.kill('SIGTERM');
  return started.exited;
}

describe('npm start on a fresh home', () => {
  let slotFiles: Record<string, string>;

  it('writes the tiny model, creates builtin chat and embedding slots, and chats with generated text', async () => {
    const started = await npmStart();
    const output = started.output();
    expect(output).toMatch(/wrote the tiny demo model .*svc-tiny\.gguf/);
    expect(output).toMatch(/created slot chat: llm on the built-in engine, model svc-tiny/);
    expect(output).toMatch(/created slot embed: embedding on the built-in engine, model svc-tiny/);
    expect(output).toContain(`OpenAI base URL: ${started.base}/v1`);
    expect(output).toContain('svc.js model register');
    expect(output).toContain('slot create');

    const client = new OpenAI({ baseURL: `${started.base}/v1`, apiKey: 'none' });
    const answer = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 32 });
    expect(answer.choices[0]!.message.content).toMatch(/[a-z]{2,}/);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
    const embedding = await client.embeddings.create({ model: 'embed', input: 'Hello!' });
    expect(embedding.data[0]!.embedding).toHaveLength(64);

    const slots = (await api(started.base, '/api/slots')).json.slots as { name: string; provider: string; type: string; pid: number | null }[];
    expect(slots.map((s) => [s.name, s.provider, s.type])).toEqual([['chat', 'builtin', 'llm'], ['embed', 'builtin', 'embedding']]);
    const pids = slots.map((s) => s.pid!);
    expect(readdirSync(join(home.stateRoot, 'models'))).toEqual(['svc-tiny.gguf']);
    slotFiles = Object.fromEntries(['chat', 'embed'].map((n) => [n, readFileSync(join(home.configRoot, 'slots', `${n}.toml`), 'utf8')]));

    expect(await stop(started)).toBe(0);
    for (const pid of pids) expect(processAlive(pid)).toBe(false);
  }, 90_000);

  it('a second start keeps the model and the slots as they are, and serves them', async () => {
    home.write('slots/chat.toml', `${slotFiles.chat!}# edited by hand\n`);
    const started = await npmStart();
    expect(started.output()).not.toContain('wrote the tiny demo model');
    expect(started.output()).not.toContain('created slot');
    expect(readFileSync(join(home.configRoot, 'slots/chat.toml'), 'utf8')).toBe(`${slotFiles.chat!}# edited by hand\n`);
    expect(readFileSync(join(home.configRoot, 'slots/embed.toml'), 'utf8')).toBe(slotFiles.embed);
    const answer = await api(started.base, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'again' }], max_tokens: 8 } });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toMatch(/\S/);
    expect(await stop(started)).toBe(0);
  }, 90_000);
});

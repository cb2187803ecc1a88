// `svc run <model>` against the real gateway and the built-in engine on the tiny model: the
// one-shot prompt, piped stdin, and the interactive chat in a real pseudo-terminal (util-linux
// `script`), with the slot it creates for the model made once and reused after.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, svcEnv, SVC_BIN, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { tinyModel } from './helpers/llama.js';
import { freePoolPort, freeSlotPort } from './helpers/ports.js';

let home: TempHome;
let gw: Gateway;
const svc = (args: string[], input?: string) => runSvc(args, { home: home.home, env: { SVC_API_URL: gw.url }, ...(input !== undefined && { input }) });
const slots = async () => (await api(gw.url, '/api/slots')).json.slots as Array<{ name: string; model: string; provider: string; state: string }>;

beforeAll(async () => {
  home = tempHome();
  const modelPath = await tinyModel(join(home.home, 'models'));
  // A pool of one port from this worker's block: the slot svc run creates gets it, and a second create would fail.
  const port = await freePoolPort();
  home.write('svc.toml', `[slots]\nport_range_start = ${port}\nport_range_end = ${port}\n`);
  // No llama-server anywhere, so a new slot runs on the built-in engine.
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  // Registered as a user does (the registry then knows its native context), with a display name to run it by.
  const registered = await api(gw.url, '/api/models', { method: 'POST', body: { id: 'tiny', path: modelPath, name: 'Tiny Chat' } });
  expect(registered.status, registered.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  rmSync(home.home, { recursive: true, force: true });
});

/** The terminal's output as text: escape sequences and carriage returns out. */
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/** `svc run <args>` in a pseudo-terminal; `until` waits for its output to match. */
function inTerminal(args: string[]) {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, SVC_BIN, 'run', ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: svcEnv(home.home, { SVC_API_URL: gw.url, TERM: 'xterm' }), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiters]) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    output: () => plain(output),
    type: (text: string) => child.stdin.write(text),
    until: (test: (text: string) => boolean) => new Promise<void>((done) => {
      const check = () => {
        if (!test(plain(output))) return;
        waiters.splice(waiters.indexOf(check), 1);
        done();
      };
      waiters.push(check);
      check();
    }),
    exited,
  };
}

const prompts = (text: string) => text.split('>>> ').length - 1;

describe('svc run', () => {
  it('a ref not in the registry: the clear error, exit 1, and no slot', async () => {
    const result = svc(['run', 'no-such-model', 'hi']);
    // It tries a pull (a catalogue name would succeed), which the gateway refuses at once.
    expect(result.stderr.split('\n').slice(-2)).toEqual(['svc: model no-such-model is not in the registry nor in the catalogue; run a Hugging Face repo (svc run org/repo[:quant]) or see svc model search', '']);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(await slots()).toEqual([]);
  });

  it('one-shot by display name: creates slot "tiny" on the built-in engine, loads it, prints the reply', async () => {
    const result = svc(['run', 'Tiny Chat', 'hello', 'there']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^created slot tiny \(builtin, [a-z-]+\): model tiny: ready on port \d+/m);
    expect(result.stderr).not.toContain('warning'); // 4096, within the model's native 32768
    expect(result.stdout).toMatch(/\S/);
    expect(result.stdout.endsWith('\n')).toBe(true);
    const [slot, ...others] = await slots();
    expect(others).toEqual([]);
    expect(slot).toMatchObject({ name: 'tiny', model: 'tiny', provider: 'builtin', state: 'ready' });
  }, 120_000);

  it('piped stdin is the prompt; the slot is reused', async () => {
    const result = svc(['run', 'tiny'], 'hello from a pipe\n');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^slot tiny \(builtin, [a-z-]+\): model tiny: ready on port \d+/m);
    expect(result.stdout).toMatch(/\S/);
    expect((await slots()).map((s) => s.name)).toEqual(['tiny']);
  }, 120_000);

  it('an empty pipe and no prompt is a usage error (exit 2)', () => {
    const result = svc(['run', 'tiny'], '');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^svc: no prompt: stdin is not a terminal/);
  });

  it('interactive in a terminal: >>> prompt, streamed replies, a """ block, /bye exits 0, same slot', async () => {
    const chat = inTerminal(['tiny']);
    await chat.until((text) => prompts(text) === 1);
    expect(chat.output()).toMatch(/^slot tiny \(builtin, [a-z-]+\): model tiny: ready on port \d+/m);
    chat.type('hello there\n');
    await chat.until((text) => prompts(text) === 2);
    const reply = chat.output().split('>>> ')[1]!.replace(/^hello there\n/, '');
    expect(reply).toMatch(/\S/);
    chat.type('"""\nfirst line\n');
    await chat.until((text) => text.includes('... first line'));
    chat.type('second line"""\n');
    await chat.until((text) => prompts(text) === 3);
    expect(chat.output().split('>>> ')[2]!.replace(/^"""\n\.\.\. first line\n\.\.\. second line"""\n/, '')).toMatch(/\S/);
    chat.type('/bye\n');
    expect(await chat.exited).toBe(0);
    expect((await slots()).map((s) => s.name)).toEqual(['tiny']);
  }, 120_000);

  it('Ctrl-C at an empty prompt quits with exit 0; with text typed it only clears the line', async () => {
    const chat = inTerminal(['Tiny Chat']);
    await chat.until((text) => prompts(text) === 1);
    chat.type('half typed\x03');
    await chat.until((text) => prompts(text) === 2);
    expect(chat.output()).toContain('half typed^C\n');
    chat.type('\x03');
    expect(await chat.exited).toBe(0);
    expect((await slots()).map((s) => s.name)).toEqual(['tiny']);
  }, 120_000);

  it('an unknown slash command is an error naming the known ones; it does not go to the model', async () => {
    const chat = inTerminal(['tiny']);
    await chat.until((text) => prompts(text) === 1);
    chat.type('/bogus\n');
    await chat.until((text) => prompts(text) === 2);
    expect(chat.output()).toContain('svc: unknown command /bogus: the commands are /bye, /clear, /?, /help');
    chat.type('/bye\n');
    expect(await chat.exited).toBe(0);
  }, 120_000);
});

describe('svc run <slot>, or an id the gateway serves', () => {
  // The first test's no-such-model left a failed pull; none may be added for a slot or a served id.
  const pulledRefs = async () => ((await api(gw.url, '/api/models/pulls')).json.pulls as Array<{ ref: string }>).map((job) => job.ref);
  it('a slot name is chatted with, not pulled: svc run chat "say hello"', async () => {
    const created = await api(gw.url, '/api/slots', { method: 'POST', body: { name: 'chat', type: 'llm', model: 'tiny', port: await freeSlotPort(), ctx_size: 2048 } });
    expect(created.status, created.text).toBe(201);
    const result = svc(['run', 'chat', 'say hello']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^slot chat \(builtin, [a-z-]+\): model tiny: ready on port \d+/m);
    expect(result.stderr).not.toContain('pulling');
    expect(result.stdout).toMatch(/\S/);
    expect(await pulledRefs()).not.toContain('chat');
  }, 120_000);

  it('an svc/* name is chatted with as the gateway routes it', async () => {
    const result = svc(['run', 'svc/primary', 'say hello']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^model svc\/primary: served by slot (chat|tiny)$/m);
    expect(result.stdout).toMatch(/\S/);
    expect(await pulledRefs()).not.toContain('svc/primary');
  }, 120_000);

  it('a slot of another type is refused by name, not pulled', async () => {
    const created = await api(gw.url, '/api/slots', { method: 'POST', body: { name: 'vectors', type: 'embedding', model: 'tiny', port: await freeSlotPort(), ctx_size: 2048 } });
    expect(created.status, created.text).toBe(201);
    const result = svc(['run', 'vectors', 'hi']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('svc: slot vectors has type embedding; svc run chats with llm slots');
  });
});

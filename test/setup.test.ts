// svc setup on fresh homes, the way a user runs it: --auto --no-pull with no gateway running
// leaves a home whose gateway serves and whose `svc doctor` passes, and a re-run changes
// nothing; with a gateway running it applies through the API; answers are emitted and
// replayed; a model to pull comes from the Hugging Face endpoint fixture and its slot follows;
// the TUI is driven in a pseudo-terminal (script(1)) through every step, and cancelled
// half-way with nothing written.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, SVC_BIN, svcEnv, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { commitOf, startHf, TINY, type HfEndpoint } from './helpers/hf.js';
import { waitFor } from './helpers/wait.js';

const gateways: Gateway[] = [];
let hf: HfEndpoint | undefined;
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await hf?.close();
});

const setup = (home: TempHome, args: string[], env: Record<string, string> = {}) => runSvcAsync(['setup', ...args], { home: home.home, env: { SVC_PORT: '1', ...env } });
const slotFiles = (home: TempHome) => (existsSync(join(home.configRoot, 'slots')) ? readdirSync(join(home.configRoot, 'slots')).sort() : []);
const sentinel = (home: TempHome) => join(home.stateRoot, 'install.json');

describe('svc setup', () => {
  it('--auto --no-pull without a gateway: three demo slots, the sentinel, a gateway that serves and a doctor that passes; again: nothing changes', async () => {
    const home = tempHome();
    const first = await setup(home, ['--auto', '--no-pull']);
    expect(first.status, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('no gateway answered; started one on this home for the setup');
    expect(first.stdout).toMatch(/slot chat: created on port \d+/);
    expect(slotFiles(home)).toEqual(['chat.toml', 'embed.toml', 'rerank.toml']);
    expect(existsSync(sentinel(home))).toBe(true);
    expect(existsSync(join(home.configRoot, 'hardware.json'))).toBe(true);
    const before = slotFiles(home).map((f) => readFileSync(join(home.configRoot, 'slots', f), 'utf8'));

    const again = await setup(home, ['--auto', '--no-pull']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('slot chat: exists, left as it is');
    expect(slotFiles(home).map((f) => readFileSync(join(home.configRoot, 'slots', f), 'utf8'))).toEqual(before);

    const gw = await startGateway(home.home);
    gateways.push(gw);
    const chat = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
    expect(chat.status, chat.text).toBe(200);
    const rerank = await api(gw.url, '/v1/rerank', { method: 'POST', body: { model: 'rerank', query: 'q', documents: ['a', 'b'] } });
    expect(rerank.status, rerank.text).toBe(200);
    expect((await api(gw.url, '/api/install/state')).json.completed).toBe(true);
    const doctor = await runSvcAsync(['doctor', '--plain'], { home: home.home, env: { SVC_PORT: String(gw.port) } });
    expect(doctor.status, doctor.stdout).toBe(0);
  }, 120_000);

  it('applies through a running gateway; --emit-answers with --dry-run writes only the answers, which --answers replays', async () => {
    const home = tempHome();
    const gw = await startGateway(home.home);
    gateways.push(gw);
    const answers = join(home.home, 'answers.json');
    const dry = await setup(home, ['--auto', '--no-pull', '--dry-run', '--emit-answers', answers], { SVC_PORT: String(gw.port) });
    expect(dry.status).toBe(0);
    expect(slotFiles(home)).toEqual([]);
    expect(existsSync(sentinel(home))).toBe(false);
    const written = JSON.parse(readFileSync(answers, 'utf8'));
    expect(written.slots.map((s: { name: string }) => s.name)).toEqual(['chat', 'embed', 'rerank']);
    written.slots = written.slots.filter((s: { name: string }) => s.name === 'chat');
    writeFileSync(answers, JSON.stringify(written));
    const replay = await setup(home, ['--answers', answers], { SVC_PORT: String(gw.port) });
    expect(replay.status, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`applying through the gateway at http://127.0.0.1:${gw.port}`);
    expect(slotFiles(home)).toEqual(['chat.toml']);
    expect((await api(gw.url, '/api/slots/chat')).json.model).toBe('svc-tiny');
    writeFileSync(answers, JSON.stringify({ storage_dir: 'relative/dir', slots: [] }));
    const bad = await setup(home, ['--answers', answers], { SVC_PORT: String(gw.port) });
    expect(bad.status).toBe(2);
  }, 60_000);

  it('pulls a model its answers name, then creates its slot; with pull off that slot is skipped and setup is not complete', async () => {
    hf = await startHf({ 'org/tiny-GGUF': { commit: commitOf('c'), files: { 'tiny-Q8_0.gguf': TINY } } });
    const home = tempHome();
    const answers = join(home.home, 'answers.json');
    writeFileSync(answers, JSON.stringify({ storage_dir: join(home.stateRoot, 'models'), pull: false, slots: [{ name: 'chat', model: 'tiny', ref: 'org/tiny-GGUF', provider: 'builtin', device: 'cpu', ctx_size: 512 }] }));
    const off = await setup(home, ['--answers', answers], { SVC_HF_ENDPOINT: hf.url });
    expect(off.status).toBe(1);
    expect(off.stdout).toContain('slot chat: skipped');
    expect(existsSync(sentinel(home))).toBe(false);
    writeFileSync(answers, JSON.stringify({ ...JSON.parse(readFileSync(answers, 'utf8')), pull: true }));
    const on = await setup(home, ['--answers', answers], { SVC_HF_ENDPOINT: hf.url });
    expect(on.status, on.stdout + on.stderr).toBe(0);
    expect(on.stdout).toContain('pulling tiny: 100 %');
    expect(on.stdout).toMatch(/slot chat: created on port \d+/);
    expect(readFileSync(join(home.configRoot, 'slots/chat.toml'), 'utf8')).toContain('default = "tiny"');
  }, 60_000);
});

/** svc setup in a pseudo-terminal (script(1)); `send` writes keys once the screen shows `waitFor`. */
function tuiSession(home: TempHome) {
  // A pty has no size until told: stty gives it one, or the prompts wrap at one column.
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${process.execPath} ${SVC_BIN} setup --no-pull`, '/dev/null'], { env: { ...svcEnv(home.home, { SVC_PORT: '1' }), TERM: 'xterm', COLUMNS: '120', LINES: '40' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  // eslint-disable-next-line no-control-regex -- terminal escape sequences
  child.stdout.on('data', (c: Buffer) => (screen += c.toString().replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const send = async (prompt: RegExp, keys: string) => {
    await waitFor(() => screen, { what: `the setup screen to show ${prompt}`, until: (text) => prompt.test(text), interval: 25 });
    screen = screen.replace(prompt, '(seen)');
    child.stdin.write(keys);
  };
  return { send, exited, screen: () => screen };
}

describe('svc setup, interactive', () => {
  const ENTER = '\r';
  it('walks every step in a terminal and applies the answers', async () => {
    const home = tempHome();
    const tui = tuiSession(home);
    await tui.send(/1\. Hardware[\s\S]*2\. Where do models go/, ENTER);
    await tui.send(/slot "chat"/, ENTER);
    await tui.send(/slot "embed"/, ENTER);
    await tui.send(/slot "rerank"/, ENTER);
    // Speech defaults to no; the left arrow moves to yes.
    await tui.send(/add speech \(tts: kokoro, stt: moonshine/, `\x1b[D${ENTER}`);
    await tui.send(/4\. Extensions/, ENTER);
    await tui.send(/5\. Turn on auth mode/, ENTER);
    await tui.send(/6\. Summary[\s\S]*Write this and start it/, ENTER);
    expect(await tui.exited, tui.screen()).toBe(0);
    expect(slotFiles(home)).toEqual(['chat.toml', 'embed.toml', 'rerank.toml', 'stt.toml', 'tts.toml']);
    expect(readFileSync(join(home.configRoot, 'slots/tts.toml'), 'utf8')).toMatch(/provider = "kokoro"[\s\S]*default = "kokoro"/);
    expect(existsSync(sentinel(home))).toBe(true);
  }, 60_000);

  it('Ctrl-C half-way leaves nothing written', async () => {
    const home = tempHome();
    const tui = tuiSession(home);
    await tui.send(/2\. Where do models go/, ENTER);
    await tui.send(/slot "chat"/, ENTER);
    await tui.send(/slot "embed"/, '\x03');
    expect(await tui.exited).toBe(1);
    expect(tui.screen()).toContain('setup cancelled; nothing was written');
    expect(existsSync(home.configRoot) ? readdirSync(home.configRoot) : []).toEqual([]);
    expect(existsSync(home.stateRoot)).toBe(false);
  }, 60_000);
});

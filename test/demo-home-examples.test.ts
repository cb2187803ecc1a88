// The demo home fits its own examples: `npm start` (scripts/start.mjs) on a fresh home, then
// the README's omni example, taken from README.md itself ("Tools: MCP servers and the omni
// loop": `svc mcp install` of server-everything from npm, `svc mcp list`, the curl), answers
// 200 although its prompt (the tool server's whole tool list) is thousands of tokens. With the
// chat slot's context cut to 2048 the same curl is 400 request.context_exceeded whose message
// names the command that raises it; running that command (and the restart) makes it 200 again.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenize } from '../src/lib/shell-words.js';
import { api, REPO_ROOT, runSvcAsync, svcEnv, tempHome, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let start: ChildProcess;
let port: number;

/** The shell commands of the README's omni example: continuation lines joined, comments dropped. */
function omniExample(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Tools: MCP servers and the `omni` loop'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no sh block under "Tools: MCP servers and the `omni` loop"');
  return block.replace(/\\\n\s*/g, '').split('\n').map((line) => line.replace(/\s+#\s.*$/, '').trim()).filter(Boolean);
}

const curlLine = () => omniExample().find((line) => line.startsWith('curl '))!;

/** The README's curl against this home's gateway; its HTTP status and body. */
function runCurl(): { status: number; json: { error?: { code: string; message: string; details: Record<string, unknown> }; usage?: { prompt_tokens: number }; choices?: unknown[] } } {
  const line = curlLine().replace(/\blocalhost:8080\b|127\.0\.0\.1:8080/, `127.0.0.1:${port}`);
  const result = spawnSync('bash', ['-c', `${line} -w '\\n%{http_code}'`], { encoding: 'utf8', timeout: 240_000 });
  const lines = result.stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, json: JSON.parse(lines.join('\n')) };
}

const svc = async (line: string) => {
  const result = await runSvcAsync(tokenize(line).slice(1), { home: home.home });
  expect(result.status, `${line}\n${result.stderr}`).toBe(0);
  return result;
};

beforeAll(async () => {
  home = tempHome();
  port = await freePort();
  start = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs'), '--port', String(port)], { cwd: REPO_ROOT, env: svcEnv(home.home, { PATH: '/usr/bin:/bin' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('svc is up:') || start.exitCode !== null, { what: '`npm start` to say svc is up', timeout: 80_000 });
  if (!output.includes('svc is up:')) throw new Error(`start exited:\n${output}`);
}, 120_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((done) => start.once('exit', done));
    start.kill('SIGTERM');
    await exited;
  }
  rmSync(home.home, { recursive: true, force: true });
});

describe("the demo home and the README's omni example", () => {
  it('the starter chat slot has a context the example fits, and the example answers 200', async () => {
    expect((await api(`http://127.0.0.1:${port}`, '/api/slots/chat')).json.config.model.context_size).toBeGreaterThanOrEqual(16384);
    const commands = omniExample();
    expect(commands[0]).toMatch(/^svc mcp install /);
    for (const line of commands) {
      if (line.startsWith('curl ')) {
        // The tool server starts after install answers: its tools are in the prompt once it is ready.
        await waitFor(async () => (await api(`http://127.0.0.1:${port}`, '/api/mcp/servers/everything')).json.state === 'ready', { what: 'server-everything to be ready', timeout: 120_000 });
        const answer = runCurl();
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
        expect(answer.json.choices).toHaveLength(1);
        expect(answer.json.usage!.prompt_tokens).toBeGreaterThan(2048);
      } else {
        await svc(line);
      }
    }
  }, 600_000);

  it('a context too small for it is request.context_exceeded naming the command that raises it, and that command fixes it', async () => {
    await svc('svc slot edit chat --ctx-size 2048');
    await svc('svc slot restart chat');
    const refused = runCurl();
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'request.context_exceeded', details: { slot: 'chat', n_ctx: 2048 } });
    const fix = /`(svc slot edit chat --ctx-size \d+)`, then `(svc slot restart chat)`/.exec(refused.json.error!.message);
    expect(fix, refused.json.error!.message).not.toBeNull();
    await svc(fix![1]!);
    await svc(fix![2]!);
    expect(runCurl().status).toBe(200);
  }, 600_000);
});

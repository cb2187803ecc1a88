// The scripted OpenAI-compatible upstream (test/fixtures/scripted-upstream.mjs) as a child
// process, for the omni loop's tests: start it with a script, read what it was sent.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway.js';
import { freePort } from './ports.js';

export type ScriptRound = { content: string } | { hang: true } | { tool_calls: Array<{ name: string; arguments?: Record<string, unknown> }> };
export interface ScriptedModel {
  rounds?: ScriptRound[];
  always?: ScriptRound;
}

export interface ScriptedUpstream {
  url: string;
  /** The chat bodies it received, in order. */
  requests(): Promise<Array<Record<string, unknown>>>;
  forget(): Promise<void>;
  /** `[upstreams.<name>]` for upstreams.toml, with tool_calling = true. */
  toml(name: string): string;
  stop(): void;
}

export async function startScriptedUpstream(models: Record<string, ScriptedModel>): Promise<ScriptedUpstream> {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-script-')), 'script.json');
  writeFileSync(file, JSON.stringify({ models }));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/scripted-upstream.mjs'), '--port', String(port), '--script', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`scripted upstream exited with ${code}: ${err}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests: async () => (await fetch(`${url}/requests`)).json() as Promise<Array<Record<string, unknown>>>,
    forget: async () => void (await fetch(`${url}/requests`, { method: 'DELETE' })),
    toml: (name) => `[upstreams.${name}]\nbase_url = "${url}/v1"\ntool_calling = true\n`,
    stop: () => void child.kill('SIGTERM'),
  };
}

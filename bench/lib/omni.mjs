// What a round of the omni tool loop adds over the model's own time (docs/performance.md,
// "The omni loop"): a scripted upstream that answers at once (test/fixtures/scripted-upstream.mjs,
// round 1 a tool call, round 2 the text), a real MCP server over stdio (the fixture server's
// echo), and three ways to get the same answer, alternating, several runs each:
//   direct:  the two model calls made straight to the upstream, one after the other
//   gateway: the same two calls through the gateway without omni (the proxy's own cost)
//   omni:    one omni: true request, which makes both calls and runs the tool in between
// Used by bench/run.mjs (the `omni` figures) and bench/omni.mjs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { freePort, REPO_ROOT, startGateway } from './processes.mjs';

const MODEL = 'scripted';
const SCRIPT = { models: { [MODEL]: { rounds: [{ tool_calls: [{ name: 'fixture__echo', arguments: { message: 'hi' } }] }, { content: 'The tool said hi.' }] } } };
const user = [{ role: 'user', content: 'Call the echo tool.' }];

const post = async (url, body) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

async function startScripted(dir) {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(SCRIPT));
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/scripted-upstream.mjs'), '--port', String(port), '--script', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => String(chunk).includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`the scripted upstream exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** The two model calls the loop makes, made by hand against `base` (/v1/chat/completions). */
async function twoCalls(base) {
  const first = await post(`${base}/v1/chat/completions`, { model: MODEL, messages: user });
  const assistant = first.choices[0].message;
  const tool = { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'hi' };
  return post(`${base}/v1/chat/completions`, { model: MODEL, messages: [...user, assistant, tool] });
}

export async function measureOmni({ runs = 30 } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-omni-'));
  const upstream = await startScripted(root);
  const config = join(root, 'etc/svc');
  mkdirSync(join(config, 'mcp-servers'), { recursive: true });
  writeFileSync(join(config, 'upstreams.toml'), `[upstreams.script]\nbase_url = "${upstream.url}/v1"\ntool_calling = true\n`);
  writeFileSync(join(config, 'mcp-servers/fixture.toml'), `name = "fixture"\ntransport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(REPO_ROOT, 'test/fixtures/mcp-fixture-server.mjs'))}]\n\n[tools]\n`);
  const gw = await startGateway({ home: root, wrapper: '/bin/false' });
  const ms = { direct: [], gateway: [], omni: [] };
  const toolMs = [];
  try {
    const omni = () => post(`${gw.url}/v1/chat/completions`, { model: MODEL, messages: user, omni: true });
    // Until the tool server is ready the loop has no tool to offer and the request goes through once.
    for (let i = 0; i < 600 && !(await omni()).svc_omni; i++) await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5; i++) await Promise.all([twoCalls(upstream.url), twoCalls(gw.url), omni()]); // warm-up, unmeasured
    for (let run = 0; run < runs; run++) {
      for (const [side, go] of [['direct', () => twoCalls(upstream.url)], ['gateway', () => twoCalls(gw.url)], ['omni', omni]]) {
        const t0 = performance.now();
        const answer = await go();
        ms[side].push(performance.now() - t0);
        if (side === 'omni') {
          if (answer.svc_omni?.rounds !== 2) throw new Error(`the omni request did not run two rounds: ${JSON.stringify(answer.svc_omni)}`);
          toolMs.push(answer.svc_omni.tool_calls[0].ms);
        }
      }
    }
  } finally {
    await gw.stop();
    upstream.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const r = (x) => Math.round(x * 100) / 100;
  const direct = median(ms.direct);
  const gateway = median(ms.gateway);
  const omni = median(ms.omni);
  return {
    bench: 'omni', runs, direct_ms: r(direct), gateway_ms: r(gateway), omni_ms: r(omni), tool_ms: r(median(toolMs)),
    // What the loop adds per model round over the two calls made directly: with the tool's own
    // time (the MCP call over stdio) and without it; and over the same two calls through the gateway.
    added_per_round_ms: r((omni - direct) / 2), loop_per_round_ms: r((omni - direct - median(toolMs)) / 2), over_gateway_per_round_ms: r((omni - gateway) / 2),
    ratio: Math.round((omni / direct) * 1000) / 1000,
  };
}

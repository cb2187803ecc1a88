// omni: true on a real model: the built-in engine on the tiny model (it can call tools, so
// the loop runs on it without any setting), made to call the fixture MCP server's add by a
// forced tool_choice (add, not echo: the engine's grammar ends two numbers within a few tokens,
// while the tiny model's random text in echo's unbounded string can outlast max_tokens). A forced choice applies to the first round only; after that the tiny
// model chooses freely, so the request ends either with its text or at the round cap: both
// carry what ran, and the add must have run. The fixture also offers host_of, whose schema
// has `format: "uri"`, which the engine's grammar cannot enforce: the loop offers it in a
// portable form, or the engine would refuse every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { FIXTURE_SERVER } from './helpers/mcp.js';
import { waitFor } from './helpers/wait.js';

let gw: Gateway;

beforeAll(async () => {
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 2048 }]);
  home.write('svc.toml', '[mcp]\nmax_rounds = 2\n');
  // The bundled svc-admin and svc-memory servers' tools would fill the tiny model's context: blocked here.
  home.write('mcp-servers/svc-admin.toml', '[tools]\ndefault = "blocked"\n');
  home.write('mcp-servers/svc-memory.toml', '[tools]\ndefault = "blocked"\n');
  home.write('mcp-servers/fixture.toml', `name = "fixture"\ntransport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\n\n[tools]\nblocked = ["sleep", "grow"]\n`);
  gw = await startGateway(home.home, { env: { PATH: `/usr/bin:/bin` } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('omni on the built-in engine', () => {
  it("runs a real model's tool call on a real tool server (the fixture's add)", async () => {
    const request = {
      model: 'chat', omni: true, max_tokens: 200, parallel_tool_calls: false,
      messages: [{ role: 'user', content: 'Add 2 and 3.' }],
      tool_choice: { type: 'function', function: { name: 'fixture__add' } },
    };
    // Until the fixture server is ready, fixture__add is not offered and the engine refuses the forced choice.
    const answer = await waitFor(() => api(gw.url, '/v1/chat/completions', { method: 'POST', body: request }), {
      what: 'an omni answer with the fixture server ready', timeout: 60_000, interval: 250,
      until: (a) => a.status === 200 || a.json?.error?.code === 'omni.max_rounds',
    });
    const ran = (answer.status === 200 ? answer.json.svc_omni.tool_calls : answer.json.error.details.tool_calls) as Array<{ name: string; ok: boolean }>;
    expect(ran[0]).toMatchObject({ name: 'fixture__add', ok: true });
    const tools = await api(gw.url, '/api/mcp/servers/fixture');
    expect(tools.json.tool_details.find((t: { name: string }) => t.name === 'host_of')).toMatchObject({ policy: 'allow', input_schema: { properties: { url: { format: 'uri' } } } });
  }, 120_000);
});

// A file named .gguf that is not one (here an HTML error page a failed download saved) is
// refused at register, with its path and what it starts with, by the API and `svc model
// register`; `--force` registers it anyway, and then a slot on it fails to start: `svc slot
// load` shows the engine's last stderr lines and points at `svc slot logs`. A slot whose port
// another process holds says how to move it (`svc slot edit <name> --port`).
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';

let home: TempHome;
let gw: Gateway;
let junk: string;
const svc = (...args: string[]) => runSvc(args, { home: home.home });

beforeAll(async () => {
  home = await homeWithTinySlots([]);
  junk = join(home.home, 'models', 'junk.gguf');
  writeFileSync(junk, '<!DOCTYPE html>\n<html><body>404: Entry not found</body></html>\n');
  // No llama-server anywhere: the slot runs on the built-in engine.
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

describe('a .gguf file that is not GGUF', () => {
  it('is refused at register with its path and what it starts with', async () => {
    const refused = await api(gw.url, '/api/models', { method: 'POST', body: { id: 'junk', path: junk } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'model.unsupported_format', details: { path: junk, first_bytes: '3c 21 44 4f 43 54 59 50' } });
    const cli = svc('model', 'register', 'junk', '--path', junk);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(`svc: model.unsupported_format: ${junk} is not a GGUF file: it starts with "<!DOCTYP" (3c 21 44 4f 43 54 59 50), not the GGUF magic "GGUF": text that looks like an HTML or XML page`);
    expect(cli.stderr).toContain('svc model register --force');
    expect((await api(gw.url, '/api/models/junk')).status).toBe(404);
  });

  it('--force registers it with a warning; a slot on it fails to load with the engine\'s stderr and the logs command', async () => {
    const forced = svc('model', 'register', 'junk', '--path', junk, '--force');
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('svc: warning: not a GGUF file: it starts with "<!DOCTYP"');
    const created = svc('slot', 'create', 'junk', '--model', 'junk', '--provider', 'builtin', '--hardware', 'cpu', '--ctx-size', '512', '-p', String(await freeSlotPort()));
    expect(created.status, created.stderr).toBe(0);
    const load = svc('slot', 'load', 'junk');
    expect(load.status).toBe(1);
    expect(load.stderr).toMatch(/^svc: slot\.load_failed: slot junk: engine exited while loading/);
    expect(load.stderr).toMatch(/\nthe engine's last (line|\d+ lines) on stderr:\n {2}\S/);
    expect(load.stderr).toContain('\nits whole log: svc slot logs junk\n');
    // The lines shown are the engine's own: its log's last line is among them.
    const logs = (await api(gw.url, '/api/slots/junk/logs?lines=50')).json.lines as string[];
    const last = logs.filter((l) => l.trim() !== '').at(-1)!;
    expect(load.stderr).toContain(`  ${last}`);
  }, 60_000);
});

describe('a slot port another process holds', () => {
  let holder: Server;
  afterAll(() => holder?.close());

  it('slot.port_in_use names svc slot edit <name> --port', async () => {
    const port = await freeSlotPort();
    holder = createServer();
    await new Promise<void>((done) => holder.listen(port, '127.0.0.1', done));
    const created = svc('slot', 'create', 'busy', '--model', 'tiny', '--provider', 'builtin', '--hardware', 'cpu', '--ctx-size', '512', '-p', String(port));
    expect(created.status, created.stderr).toBe(0);
    const load = svc('slot', 'load', 'busy');
    expect(load.status).toBe(1);
    expect(load.stderr).toContain(`svc: slot.port_in_use: slot busy: port ${port} is already in use by another process; stop that process, or move the slot to a free port: svc slot edit busy --port <port>`);
  }, 60_000);
});

// A stack apply is a transaction: the gateway SIGKILLed with the slot files half-written
// (a test knob pauses the change set after two files) restarts with the old set whole; an
// apply after the restart leaves the new set whole.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSE_AFTER_FILES_ENV } from '../src/config/change-set.js';
import { api, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots, tinyModel } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway | undefined;

const off = 'enabled = false';
const slotFile = (name: string) => join(home.configRoot, `slots/${name}.toml`);
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'a', provider: 'builtin', extra: off }, { name: 'b', provider: 'builtin', extra: off }]);
  const tiny2 = await tinyModel(join(home.home, 'models'), 'tiny2.gguf', 7);
  const registry = join(home.stateRoot, 'registry/registry.toml');
  writeFileSync(registry, `${readFileSync(registry, 'utf8')}\n[models.tiny2]\npath = ${JSON.stringify(tiny2)}\n`);
  home.write('stacks.toml', [
    '[stack.next]', 'name = "Next"',
    ...['a', 'b', 'c'].flatMap((slot) => ['[[stack.next.slots]]', `slot = "${slot}"`, 'model = "tiny2"', 'device = "cpu"', 'provider = "builtin"']),
  ].join('\n'));
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

describe('stack apply across a SIGKILL', () => {
  it('rolls a half-written apply back on start, so the slot files are the old set whole; the next apply writes the new set whole', async () => {
    const old = { a: read(slotFile('a')), b: read(slotFile('b')) };
    const journal = join(home.stateRoot, 'change-set.journal.json');
    gw = await startGateway(home.home, { env: { [PAUSE_AFTER_FILES_ENV]: '2' } });
    const pending = api(gw.url, '/api/stacks/next/apply', { method: 'POST' }).catch((error: unknown) => error);
    const marker = `${journal}.paused`;
    await waitFor(() => existsSync(marker), { what: 'the apply to pause after two slot files', interval: 20 });
    // Half-way: a and b are the stack's, c is not written yet: a mix, on disk.
    expect(read(slotFile('a'))).toMatch(/default = "tiny2"/);
    expect(read(slotFile('b'))).toMatch(/default = "tiny2"/);
    expect(read(slotFile('c'))).toBeNull();
    await gw.kill();
    await pending;
    rmSync(marker, { force: true });
    gw = await startGateway(home.home);
    expect(gw.output()).toContain('stack apply next was cut off before it finished; rolled back 4 file(s)');
    expect({ a: read(slotFile('a')), b: read(slotFile('b')) }).toEqual(old);
    expect(read(slotFile('c'))).toBeNull();
    expect(existsSync(journal)).toBe(false);
    expect((await api(gw.url, '/api/stacks/active')).json.status).toBe('none');

    const applied = await api(gw.url, '/api/stacks/next/apply', { method: 'POST' });
    expect(applied.status, applied.text).toBe(200);
    for (const slot of ['a', 'b', 'c']) expect(read(slotFile(slot)), slot).toMatch(/default = "tiny2"/);
    expect((await api(gw.url, '/api/stacks/active')).json).toMatchObject({ status: 'clean', stack: 'next' });
    expect(existsSync(journal)).toBe(false);
  }, 120_000);
});

// The model commands over a real temp home (registry.toml and slot files on disk) and a
// handed-in host, without processes: each command writes one activity row and publishes its
// event here, a failure is one error row, and the running config follows each write.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityInput } from '../activity/store.js';
import { loadConfig, type ResolvedConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { SerialQueue } from '../lib/serial-queue.js';
import type { EventInput } from '../protocol/events.js';
import type { PullJobPayload } from '../protocol/pulls.js';
import { ModelCommands } from './commands.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

async function gateway() {
  const home = mkdtempSync(join(tmpdir(), 'svc-model-commands-'));
  homes.push(home);
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const models = join(home, 'models');
  mkdirSync(paths.slotsDir, { recursive: true });
  mkdirSync(models, { recursive: true });
  writeFileSync(paths.svcToml, `[models]\nroots = [${JSON.stringify(models)}]\n`);
  writeFileSync(join(paths.slotsDir, 'chat.toml'), '[slot]\nname = "chat"\nport = 8101\ndevice = "cpu"\n\n[model]\ndefault = ""\n');
  const outcome = await loadConfig(paths, {});
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
  let config: ResolvedConfig = outcome.config;
  const rows: ActivityInput[] = [];
  const events: EventInput[] = [];
  const started: string[] = [];
  const commands = new ModelCommands({
    get config() {
      return config;
    },
    configWrites: new SerialQueue(),
    events: { publish: (event) => (events.push(event), event as never) },
    replaceConfig: (next) => void (config = next),
    record: (entry) => void rows.push(entry),
    pulls: async () => ({
      start: (id: string) => {
        const existing = started.includes(id);
        started.push(id);
        return { job: { id: `job-${id}`, model_id: id, state: 'queued' } as PullJobPayload, existing };
      },
    }),
  });
  const file = (name: string) => {
    const path = join(models, name);
    writeFileSync(path, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(60, 7)]));
    return path;
  };
  return { commands, rows, events, file, config: () => config };
}

const origin = { actor: 'api' };
const summary = (rows: ActivityInput[]) => rows.map((r) => [r.action, r.target, r.outcome ?? 'ok']);

describe('ModelCommands', () => {
  it('register, assign and remove: one row and one event each, and the running config follows', async () => {
    const { commands, rows, events, file, config } = await gateway();
    const path = file('a.gguf');
    await expect(commands.register('a', { path }, origin)).resolves.toMatchObject({ created: true, model: { id: 'a', path } });
    expect(config().registry.models.a?.path).toBe(path);
    await expect(commands.assign('a', 'chat', origin)).resolves.toEqual({ model: 'a', slot: 'chat', before: '', cleared_path: null });
    expect(config().slots.find((s) => s.name === 'chat')?.config.model.default).toBe('a');
    await expect(commands.remove('a', true, origin)).resolves.toEqual({ removed: 'a', path, used_by: ['chat'] });
    expect(config().registry.models.a).toBeUndefined();
    expect(summary(rows)).toEqual([['model.register', 'a', 'ok'], ['model.assign', 'a', 'ok'], ['model.delete', 'a', 'ok']]);
    expect(rows[1]?.details).toEqual({ slot: 'chat', before: '', after: 'a' });
    expect(events.map((e) => e.type)).toEqual(['model.registered', 'model.assigned', 'model.removed']);
  });

  it('a refused command is one error row with its code, and no event', async () => {
    const { commands, rows, events, file } = await gateway();
    await commands.register('a', { path: file('a.gguf') }, origin);
    await commands.assign('a', 'chat', origin);
    rows.length = 0;
    events.length = 0;
    await expect(commands.remove('a', false, { actor: 'api', via: 'stack.apply' })).rejects.toMatchObject({ code: 'model.in_use' });
    expect(rows).toEqual([{ action: 'model.delete', target: 'a', actor: 'api', outcome: 'error', message: expect.any(String), details: { via: 'stack.apply', code: 'model.in_use', model: 'a', slots: ['chat'] } }]);
    expect(events).toEqual([]);
  });

  it('a scan is one row (its events are the scan\'s: one per model added); at start only when it added one', async () => {
    const { commands, rows, events, file } = await gateway();
    await commands.scan({ actor: 'system' }, true);
    expect(rows).toEqual([]);
    file('b.gguf');
    file('c.gguf');
    await commands.scan(origin);
    expect(summary(rows)).toEqual([['model.scan', 'registry.toml', 'ok']]);
    expect(rows[0]?.details).toMatchObject({ added: ['b', 'c'] });
    expect(events.map((e) => [e.type, (e.data as { source: string }).source])).toEqual([['model.registered', 'scan'], ['model.registered', 'scan']]);
  });

  it('a pull start is a row once per job, not again when it joins a running one', async () => {
    const { commands, rows } = await gateway();
    await expect(commands.pull('m', 'org/repo', { force: false }, origin)).resolves.toMatchObject({ id: 'job-m', existing: false });
    await expect(commands.pull('m', 'org/repo', { force: false }, origin)).resolves.toMatchObject({ existing: true });
    expect(rows).toEqual([{ action: 'model.pull_start', target: 'm', actor: 'api', details: { ref: 'org/repo', force: false } }]);
  });
});

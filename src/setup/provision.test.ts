// Provisioning through a fake gateway: which slot gets which outcome, what is pulled, and
// when the first run counts as complete (test/setup.test.ts runs the real gateway).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityInput } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { EventBus } from '../events/bus.js';
import { SerialQueue } from '../lib/serial-queue.js';
import type { PullJobPayload } from '../protocol/pulls.js';
import { SlotError } from '../protocol/errors.js';
import type { CreateSlotInput } from '../protocol/slot-requests.js';
import { KOKORO_MODEL_ID } from '../protocol/builtin-models.js';
import { InstallApplyRequestSchema } from '../protocol/install.js';
import { provision, type ProvisionHost } from './provision.js';

function fakeGateway(options: { registered?: string[]; existing?: string[]; pullFails?: boolean } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'svc-provision-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  mkdirSync(paths.slotsDir, { recursive: true });
  for (const name of options.existing ?? []) writeFileSync(join(paths.slotsDir, `${name}.toml`), '');
  const config = {
    paths,
    slots: [],
    registry: { models: Object.fromEntries((options.registered ?? []).map((id) => [id, { path: `/m/${id}.gguf` }])) },
    svc: { models: { store: '', roots: [] } },
  } as unknown as ResolvedConfig;
  const rows: ActivityInput[] = [];
  const created: CreateSlotInput[] = [];
  const pulled: Array<[string, string, string | undefined]> = [];
  const host: ProvisionHost = {
    version: '9.9.9', paths, config, configWrites: new SerialQueue(), events: new EventBus(),
    replaceConfig: () => undefined,
    record: (entry) => rows.push(entry),
    // As the slot command does: the row is its, with the origin provisioning hands it.
    slotCommands: {
      create: async (body, origin) => {
        const slot = body as CreateSlotInput;
        if (slot.name === 'broken') throw new SlotError('slot.no_free_port', 'no free port', {});
        created.push(slot);
        rows.push({ action: 'slot.create', target: slot.name, actor: origin.actor, details: { via: origin.via } });
        return { name: slot.name, file: `slots/${slot.name}.toml`, type: slot.type ?? 'llm', provider: slot.provider ?? 'llama-server', model: slot.model, port: 8100 + created.length, device: 'cpu', warnings: [] };
      },
    },
    modelCommands: {
      register: async () => {
        throw new Error('no demo model is asked for here');
      },
      pull: async (modelId, ref, _options, origin) => {
        pulled.push([modelId, ref, origin.via]);
        const job = { id: `job-${modelId}`, model_id: modelId, state: options.pullFails ? 'failed' : 'queued', error: options.pullFails ? { code: 'model.pull_failed', message: 'offline' } : null } as PullJobPayload;
        return { ...job, existing: false };
      },
    },
  };
  return { host, paths, rows, created, pulled };
}

const request = (body: unknown) => InstallApplyRequestSchema.parse(body);

describe('provision', () => {
  it('creates slots whose model is registered or named by id, leaves existing ones, and completes the first run', async () => {
    const { host, paths, rows, created } = fakeGateway({ registered: ['qwen3-0.6b'], existing: ['old'] });
    const answer = await provision(host, request({ slots: [
      { name: 'chat', model: 'qwen3-0.6b' },
      { name: 'tts', type: 'tts', model: KOKORO_MODEL_ID, provider: 'kokoro', device: 'cpu' },
      { name: 'old', model: 'anything' },
    ] }), 'cli');
    expect(answer.slots.map((s) => [s.name, s.status])).toEqual([['chat', 'created'], ['tts', 'created'], ['old', 'exists']]);
    expect(answer).toMatchObject({ complete: true, models_added: [], storage_dir: join(paths.stateRoot, 'models') });
    expect(created.map((s) => s.name)).toEqual(['chat', 'tts']);
    expect(JSON.parse(readFileSync(paths.installSentinel, 'utf8'))).toMatchObject({ version: '9.9.9' });
    expect(rows[0]).toMatchObject({ actor: 'cli', details: { via: 'install.apply' } });
    expect(rows.map((r) => [r.action, r.target ?? null, r.outcome ?? 'ok'])).toEqual([
      ['slot.create', 'chat', 'ok'], ['slot.create', 'tts', 'ok'], ['install.complete', null, 'ok'], ['install.apply', null, 'ok'],
    ]);
  });

  it('pulls a missing model (its ref, else the catalogue id) and leaves its slot for a later apply; without pull it skips it', async () => {
    const pulling = fakeGateway();
    const answer = await provision(pulling.host, request({ slots: [{ name: 'chat', model: 'mine', ref: 'org/repo:Q4_K_M' }, { name: 'embed', model: 'other' }] }), 'cli');
    expect(pulling.pulled).toEqual([['mine', 'org/repo:Q4_K_M', 'install.apply'], ['other', 'other', 'install.apply']]);
    expect(answer.slots).toEqual([
      { name: 'chat', model: 'mine', status: 'pulling', job: 'job-mine', message: 'pulling mine; run apply again when it is done' },
      { name: 'embed', model: 'other', status: 'pulling', job: 'job-other', message: 'pulling other; run apply again when it is done' },
    ]);
    expect(answer.complete).toBe(false);
    expect(pulling.rows.at(-1)).toMatchObject({ action: 'install.apply', outcome: 'error' });

    const off = fakeGateway();
    const skipped = await provision(off.host, request({ pull: false, slots: [{ name: 'chat', model: 'mine' }] }), 'cli');
    expect(skipped.slots[0]).toMatchObject({ status: 'skipped' });
    expect(off.pulled).toEqual([]);
  });

  it('reports a pull that fails at once and a slot its creation refuses as failed, and does not complete', async () => {
    const { host, paths } = fakeGateway({ registered: ['m'], pullFails: true });
    const answer = await provision(host, request({ slots: [{ name: 'chat', model: 'missing' }, { name: 'broken', model: 'm' }] }), 'cli');
    expect(answer.slots).toEqual([
      { name: 'chat', model: 'missing', status: 'failed', message: 'offline' },
      { name: 'broken', model: 'm', status: 'failed', message: 'slot.no_free_port: no free port' },
    ]);
    expect(answer.complete).toBe(false);
    expect(() => readFileSync(paths.installSentinel)).toThrow();
  });
});

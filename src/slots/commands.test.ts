// The slot commands over handed-in parts, without processes: which part each command calls
// and in what order, and that each writes one activity row and publishes at most one event.
// test/slot-api.test.ts and test/slots.test.ts run them through the real gateway.
import { describe, expect, it } from 'vitest';
import type { ActivityInput } from '../activity/store.js';
import type { SlotFile } from '../config/schema/slot.js';
import { ConfigError, ImageError, SlotError } from '../protocol/errors.js';
import type { EventInput } from '../protocol/events.js';
import { SlotCommands, type SlotCommandDeps } from './commands.js';
import type { CreatedSlot } from './slot-config.js';
import type { SlotView } from './view.js';

type State = SlotView['state'];

function parts(options: { state?: State; inFlight?: number; arbiterRefuses?: boolean; enabled?: boolean; changes?: number } = {}) {
  const calls: string[] = [];
  const rows: ActivityInput[] = [];
  const events: EventInput[] = [];
  let state: State = options.state ?? 'stopped';
  let model = 'tiny';
  const config = { slot: { enabled: options.enabled ?? true }, model: { default: 'tiny' }, server: { env: {}, extra_args: '' } } as unknown as SlotFile;
  const view = (name: string) => ({ name, state, model, port: 8100, pid: state === 'ready' ? 42 : null, in_flight: options.inFlight ?? 0 }) as unknown as SlotView;
  const deps: SlotCommandDeps = {
    supervisor: {
      view,
      load: async (name, id) => {
        calls.push(`supervisor.load ${name}${id ? ` ${id}` : ''}`);
        state = 'ready';
        if (id) model = id;
        return { name, baseUrl: 'http://127.0.0.1:8100', modelId: model, started: true };
      },
      unload: async (name) => {
        calls.push(`supervisor.unload ${name}`);
        state = 'stopped';
      },
      restart: async (name) => {
        calls.push(`supervisor.restart ${name}`);
        state = 'ready';
        return { name, baseUrl: 'http://127.0.0.1:8100', modelId: model, started: true };
      },
      reconcile: async () => void calls.push('supervisor.reconcile'),
      clearModelOverride: (name) => void calls.push(`supervisor.clearModelOverride ${name}`),
    },
    arbiter: {
      beforeLoad: async (name) => {
        calls.push(`arbiter.beforeLoad ${name}`);
        if (options.arbiterRefuses) throw new ImageError('gpu.image_mode', 'the GPU is generating images', { slot: name });
      },
    },
    slotConfig: {
      entry: (name) => ({ name, file: `slots/${name}.toml`, config }) as ReturnType<SlotCommandDeps['slotConfig']['entry']>,
      modelIdFor: (ref) => ref,
      create: async (input, check) => {
        await check?.(undefined, config);
        calls.push(`slotConfig.create ${input.name}`);
        return { name: input.name, file: `slots/${input.name}.toml`, type: 'llm', provider: 'llama-server', model: input.model, port: 8100, device: 'cpu', warnings: [] } as unknown as CreatedSlot;
      },
      edit: async (name, _input, check) => {
        await check?.(config, config);
        calls.push(`slotConfig.edit ${name}`);
        return Array.from({ length: options.changes ?? 1 }, () => ({ key: 'slot.enabled', before: true, after: false }));
      },
      remove: async (name) => {
        calls.push(`slotConfig.remove ${name}`);
        return `slots/${name}.toml`;
      },
      persistDefaultModel: async (name, id) => {
        calls.push(`slotConfig.persistDefaultModel ${name} ${id}`);
        return 'tiny';
      },
    },
    slotFile: () => config,
    stateRoot: '/state',
    record: (entry) => void rows.push(entry),
    publish: (event) => void events.push(event),
  };
  return { commands: new SlotCommands(deps), calls, rows, events };
}

const origin = { actor: 'api' };

describe('SlotCommands', () => {
  it('load, swap and restart each ask the GPU arbiter before the supervisor starts anything', async () => {
    for (const [run, starts] of [
      [(c: SlotCommands) => c.load('chat', undefined, origin), 'supervisor.load chat'],
      [(c: SlotCommands) => c.swap('chat', 'tiny2', true, origin), 'slotConfig.persistDefaultModel chat tiny2'],
      [(c: SlotCommands) => c.restart('chat', origin), 'supervisor.restart chat'],
    ] as const) {
      const { commands, calls } = parts();
      await run(commands);
      expect(calls[0]).toBe('arbiter.beforeLoad chat');
      expect(calls[1]).toBe(starts);
    }
  });

  it('a swap the arbiter refuses writes nothing and starts nothing, and is one failure row', async () => {
    const { commands, calls, rows, events } = parts({ arbiterRefuses: true });
    await expect(commands.swap('chat', 'tiny2', true, origin)).rejects.toMatchObject({ code: 'gpu.image_mode' });
    expect(calls).toEqual(['arbiter.beforeLoad chat']);
    expect(rows).toEqual([{ action: 'slot.swap', target: 'chat', actor: 'api', outcome: 'error', message: 'the GPU is generating images', details: { model: 'tiny2', persist: true, code: 'gpu.image_mode', slot: 'chat' } }]);
    expect(events).toEqual([]);
  });

  it('each command writes one activity row, and the file changes one event of their own', async () => {
    const cases: Array<[string, (c: SlotCommands) => Promise<unknown>, string | null]> = [
      ['slot.load', (c) => c.load('chat', 'tiny2', origin), null],
      ['slot.unload', (c) => c.unload('chat', origin), null],
      ['slot.restart', (c) => c.restart('chat', origin), null],
      ['slot.swap', (c) => c.swap('chat', 'tiny2', false, origin), null],
      ['slot.create', (c) => c.create({ name: 'chat', model: 'tiny' }, origin), 'slot.created'],
      ['slot.edit_config', (c) => c.edit('chat', { enabled: false }, origin), 'slot.edited'],
      ['slot.edit_config', (c) => c.enable('chat', false, origin), 'slot.edited'],
      ['slot.delete', (c) => c.delete('chat', false, origin), 'slot.deleted'],
      ['slot.edit_defaults', (c) => c.assignDefault('chat', 'tiny2', origin), null],
    ];
    for (const [action, run, event] of cases) {
      const { commands, rows, events } = parts();
      await run(commands);
      expect(rows.map((r) => [r.action, r.target, r.outcome ?? 'ok'])).toEqual([[action, 'chat', 'ok']]);
      expect(events.map((e) => e.type)).toEqual(event ? [event] : []);
    }
  });

  it('rows keep their shapes: the runtime figures, the via of a stack apply or provisioning', async () => {
    const { commands, rows } = parts();
    await commands.load('chat', 'tiny2', { actor: 'api', via: 'stack.apply' });
    await commands.unload('chat', origin);
    expect(rows).toEqual([
      { action: 'slot.load', target: 'chat', actor: 'api', details: { state: 'ready', model: 'tiny2', port: 8100, pid: 42, override: true, via: 'stack.apply' } },
      { action: 'slot.unload', target: 'chat', actor: 'api', details: { was: 'ready', state: 'stopped' } },
    ]);
  });

  it('deleting a slot whose engine is live (isLive) or has requests in flight needs force', async () => {
    for (const [state, inFlight] of [['starting', 0], ['warming', 0], ['ready', 0], ['stopping', 0], ['stopped', 2]] as const) {
      const { commands, calls, rows } = parts({ state, inFlight });
      await expect(commands.delete('chat', false, origin)).rejects.toMatchObject({ code: 'slot.busy' });
      expect(calls).toEqual([]);
      expect(rows[0]).toMatchObject({ action: 'slot.delete', outcome: 'error', details: { force: false, code: 'slot.busy' } });
    }
    for (const state of ['stopped', 'error', 'disabled'] as const) {
      const { commands, calls } = parts({ state });
      await expect(commands.delete('chat', false, origin)).resolves.toMatchObject({ deleted: 'chat', state_dir: '/state/slots/chat', was: state });
      expect(calls).toEqual(['slotConfig.remove chat', 'supervisor.reconcile']);
    }
  });

  it('an edit that changes nothing is no row and no event; restart_required follows isLive', async () => {
    const none = parts({ changes: 0, state: 'ready' });
    await expect(none.commands.edit('chat', { enabled: true }, origin)).resolves.toMatchObject({ changes: [], restart_required: false });
    expect([none.rows, none.events]).toEqual([[], []]);
    const live = parts({ state: 'ready' });
    await expect(live.commands.edit('chat', { enabled: false }, origin)).resolves.toMatchObject({ restart_required: true });
    expect(live.events[0]).toMatchObject({ type: 'slot.edited', data: { slot: 'chat', keys: ['slot.enabled'], restart_required: true } });
  });

  it('a refusal by the host-only check has its asker\'s row only; another failure is the command\'s row', async () => {
    const refused = parts();
    const check = async () => {
      throw new ConfigError('config.host_only', 'only this host', { keys: ['server.env'] });
    };
    await expect(refused.commands.create({ name: 'chat', model: 'tiny' }, { actor: 'api', check })).rejects.toMatchObject({ code: 'config.host_only' });
    expect([refused.rows, refused.events]).toEqual([[], []]);
    const invalid = parts();
    await expect(invalid.commands.create({ name: 'chat', model: 'tiny', bogus: 1 }, origin)).rejects.toMatchObject({ code: 'request.invalid' });
    expect(invalid.rows).toMatchObject([{ action: 'slot.create', target: 'chat', outcome: 'error', details: { request: { name: 'chat', model: 'tiny', bogus: 1 }, code: 'request.invalid' } }]);
  });

  it('a disabled slot is not swapped, and its file is not written', async () => {
    const { commands, calls } = parts({ enabled: false });
    await expect(commands.swap('chat', 'tiny2', true, origin)).rejects.toBeInstanceOf(SlotError);
    expect(calls).toEqual([]);
  });
});

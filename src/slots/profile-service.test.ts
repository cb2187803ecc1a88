// ProfileService through a fake gateway: the check comes before any write, an update
// restarts only the running slots that use the profile, and a used profile needs force.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityInput } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import { profilesTomlOf } from '../config/profile-store.js';
import { resolvePaths } from '../config/paths.js';
import { EventBus } from '../events/bus.js';
import { SerialQueue } from '../lib/serial-queue.js';
import { ConfigError } from '../protocol/errors.js';
import { ProfileService, type ProfileHost } from './profile-service.js';

const slot = (name: string, profile: string | null) => ({ name, config: { slot: { profile } } });

function fakeGateway(states: Record<string, string>) {
  const home = mkdtempSync(join(tmpdir(), 'svc-profiles-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const rows: ActivityInput[] = [];
  const restarted: string[] = [];
  let config = { paths, profiles: { profiles: {} }, slots: [slot('a', 'mine'), slot('b', 'mine'), slot('c', null)] } as unknown as ResolvedConfig;
  const host: ProfileHost = {
    paths, configWrites: new SerialQueue(), events: new EventBus(),
    get config() {
      return config;
    },
    replaceConfig: (next) => (config = next),
    record: (entry) => rows.push(entry),
    supervisor: {
      view: (name: string) => ({ state: states[name] ?? 'stopped' }) as ReturnType<ProfileHost['supervisor']['view']>,
    },
    slotCommands: { restart: async (name: string) => void restarted.push(name) },
  };
  return { profiles: new ProfileService(host), paths, rows, restarted };
}

const allow = async () => undefined;
const fields = { image: '', flags: '-t 4', device_class: 'cpu' };

describe('ProfileService', () => {
  it('asks the check before it writes: a refusal leaves profiles.toml as it was', async () => {
    const { profiles, paths, rows } = fakeGateway({});
    const refusal = new ConfigError('config.host_only', 'no', { keys: [] });
    await expect(profiles.create('mine', fields, 'lan', async () => Promise.reject(refusal))).rejects.toBe(refusal);
    expect(existsSync(profilesTomlOf(paths))).toBe(false);
    expect(rows).toEqual([]);
  });

  it('an update with restart restarts the running slots that use the profile, and only those', async () => {
    const { profiles, rows, restarted } = fakeGateway({ a: 'ready', b: 'stopped', c: 'ready' });
    await profiles.create('mine', fields, 'cli', allow);
    const seen: Array<[string, string | undefined, string]> = [];
    const change = await profiles.update('mine', { flags: '-t 8' }, { restart: true, actor: 'cli', check: async ({ name, before, after }) => void seen.push([name, before?.flags, after.flags]) });
    expect(seen).toEqual([['mine', '-t 4', '-t 8']]);
    expect(change).toMatchObject({ slots: ['a', 'b'], restarted: ['a'], profile: { name: 'mine', flags: '-t 8', used_by: ['a', 'b'] } });
    expect(restarted).toEqual(['a']);
    expect(rows.map((r) => r.action)).toEqual(['profile.create', 'profile.update']);
  });

  it('will not delete a profile slots use unless forced', async () => {
    const { profiles } = fakeGateway({});
    await profiles.create('mine', fields, 'cli', allow);
    await expect(profiles.remove('mine', false, 'cli')).rejects.toMatchObject({ code: 'profiles.in_use', details: { slots: ['a', 'b'] } });
    expect(await profiles.remove('mine', true, 'cli')).toEqual({ deleted: 'mine', slots: ['a', 'b'] });
    expect(() => profiles.show('mine')).toThrow(expect.objectContaining({ code: 'profiles.not_found' }));
  });
});

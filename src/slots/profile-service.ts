// User profiles changed over the API (/api/profiles): create, clone, update and delete.
// Writes go through the one writer queue, swap the new profiles.toml into the running
// config, and are an activity row and an event; an update may restart the running slots
// that use the profile, so that they take it now. It sits in slots for that restart. Who
// may set what is the caller's question: each write takes a check, asked before it writes.
import type { ActivityInput } from '../activity/store.js';
import { withProfiles, type ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { allProfiles, checkedProfile, findProfile, profileUsers, refuseTakenProfileName, userProfile } from '../config/profile-catalogue.js';
import { writeProfile } from '../config/profile-store.js';
import { ProfileSchema, type Profile } from '../config/schema/profiles.js';
import type { EventBus } from '../events/bus.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import { SvcError } from '../protocol/errors.js';
import type { ProfileChangePayload, ProfilePayload } from '../protocol/profiles.js';
import type { SlotSupervisor } from './supervisor.js';

/** What profile changes need of the gateway (server/context.ts passes itself). */
export interface ProfileHost {
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  readonly configWrites: SerialQueue;
  readonly events: EventBus;
  readonly supervisor: { view: SlotSupervisor['view'] };
  /** A restart is the slot command's (commands.ts): the GPU arbiter first, its own activity row. */
  readonly slotCommands: { restart(slot: string, origin: { actor: string; via?: string }): Promise<unknown> };
  replaceConfig(config: ResolvedConfig): void;
  record(entry: ActivityInput): void;
}

/** Asked before a profile is written; throws to refuse, having recorded the refusal. */
export type ProfileWriteCheck = (change: { name: string; before: Profile | undefined; after: Profile }) => Promise<void>;

/** Slot states in which an engine runs the profile now: what ?restart=true restarts. */
const RUNNING = new Set(['starting', 'warming', 'ready']);

export class ProfileService {
  constructor(private readonly host: ProfileHost) {}

  list(): ProfilePayload[] {
    return allProfiles(this.host.config);
  }

  show(name: string): ProfilePayload {
    return findProfile(this.host.config, name);
  }

  async create(name: string, fields: unknown, actor: string, check: ProfileWriteCheck): Promise<ProfilePayload> {
    refuseTakenProfileName(this.host.config, name);
    const profile = checkedProfile(name, ProfileSchema.parse(fields));
    await check({ name, before: undefined, after: profile });
    await this.write('profile.create', name, profile, actor);
    this.host.record({ action: 'profile.create', target: name, actor, details: { ...profile } });
    this.host.events.publish({ type: 'profile.created', source: 'profiles', message: `profile ${name} created`, data: { profile: name, cloned_from: null } });
    return this.show(name);
  }

  async clone(source: string, name: string, actor: string, check: ProfileWriteCheck): Promise<ProfilePayload> {
    const original = this.show(source);
    refuseTakenProfileName(this.host.config, name);
    const { name: _name, seed: _seed, serves: _serves, used_by: _used, ...fields } = original;
    // Judged as the source's settings under a new name: what it adds is only its name.
    await check({ name, before: fields, after: { ...fields, cloned_from: source } });
    await this.write('profile.clone', name, { ...fields, cloned_from: source }, actor);
    this.host.record({ action: 'profile.clone', target: name, actor, details: { cloned_from: source } });
    this.host.events.publish({ type: 'profile.created', source: 'profiles', message: `profile ${name} cloned from ${source}`, data: { profile: name, cloned_from: source } });
    return this.show(name);
  }

  /** Change a user profile; with `restart`, the running slots that use it are restarted with it. */
  async update(name: string, patch: Partial<Profile>, options: { restart: boolean; actor: string; check: ProfileWriteCheck }): Promise<ProfileChangePayload> {
    const { host } = this;
    const before = userProfile(host.config, name);
    const profile = checkedProfile(name, { ...before, ...patch });
    await options.check({ name, before, after: profile });
    await this.write('profile.update', name, profile, options.actor);
    const slots = profileUsers(host.config, name);
    const restarted: string[] = [];
    if (options.restart) {
      for (const slot of slots) {
        if (!RUNNING.has(host.supervisor.view(slot).state)) continue;
        await host.slotCommands.restart(slot, { actor: options.actor, via: 'profile.update' });
        restarted.push(slot);
      }
    }
    const changed = Object.keys(patch);
    host.record({ action: 'profile.update', target: name, actor: options.actor, details: { keys: changed, slots, restarted } });
    host.events.publish({ type: 'profile.updated', source: 'profiles', message: `profile ${name} updated (${changed.join(', ')})${slots.length ? `; used by ${slots.join(', ')}` : ''}`, data: { profile: name, slots, restarted } });
    return { profile: this.show(name), slots, restarted };
  }

  /** Delete a user profile; one that slots name only with `force` (their profile then no longer resolves: config/profiles.ts). */
  async remove(name: string, force: boolean, actor: string): Promise<{ deleted: string; slots: string[] }> {
    userProfile(this.host.config, name);
    const slots = profileUsers(this.host.config, name);
    if (slots.length > 0 && !force) {
      throw new SvcError('profiles.in_use', `profile ${name} is used by slot(s) ${slots.join(', ')}; point them at another profile first, or delete it anyway with force (svc profile delete --force)`, { profile: name, slots });
    }
    await this.write('profile.delete', name, null, actor);
    this.host.record({ action: 'profile.delete', target: name, actor, details: { slots, force } });
    this.host.events.publish({ type: 'profile.deleted', source: 'profiles', message: `profile ${name} deleted`, data: { profile: name, slots, force } });
    return { deleted: name, slots };
  }

  /** Put (or, with null, remove) a profile in profiles.toml; a failure is an activity row before it is rethrown. */
  private async write(action: string, name: string, profile: Profile | null, actor: string): Promise<void> {
    const { host } = this;
    try {
      await host.configWrites.run(async () => host.replaceConfig(withProfiles(host.config, await writeProfile(host.paths, name, profile))));
    } catch (error) {
      if (error instanceof SvcError) host.record({ action, target: name, actor, outcome: 'error', message: error.message, details: { code: error.code, ...error.details } });
      throw error;
    }
  }
}

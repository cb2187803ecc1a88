// The launch of an engine that is not llama-server (flm, moonshine, kokoro, qwen3tts,
// comfyui), shared by their adapters: each says what its argv is for a given listen
// address, and what its container needs; this file chooses process or container mode
// exactly as the llama-server adapter does and builds the LaunchSpec.
//   process:   <[engines].<x> command line> <engine argv>      listening on 127.0.0.1
//   container: <rt> run ... [--entrypoint=E] <image> <argv>     0.0.0.0 inside, published on
//              [slots].publish_host; on the host network 127.0.0.1 and nothing published.
// Container mode needs [engines].runtime = podman|docker and an image (the profile's, else
// the adapter's own); otherwise the engine runs as a process.
import { SEED_PROFILES, type ProfileChoice } from '../config/profiles.js';
import type { Device, SlotType } from '../config/schema/common.js';
import type { Profile } from '../config/schema/profiles.js';
import type { SlotFile } from '../config/schema/slot.js';
import { SlotError } from '../protocol/errors.js';
import { flagValue } from './argv.js';
import { containerArgs, probeHostDevices, type HostDevices, type Volume } from './container.js';
import { findEngineCommand, type CommandEngine } from './engine-command.js';
import { findRuntime } from './llama-server/binary.js';
import { baseEnvironment, slotEnv } from './llama-server/env.js';
import { tokenizeFlags } from './llama-server/argv.js';
import { reachableUrl } from './llama-server/adapter.js';
import { probeHealth } from './llama-server/health.js';
import type { EngineAdapter, EngineRoute, LaunchContext, LaunchSpec } from './types.js';
import { own } from '../lib/own.js';

export interface ContainerExtras {
  /** Replaces the image's entrypoint; `wrap` then shapes what follows the image. */
  entrypoint?: string;
  wrap?: (argv: string[]) => string[];
  network?: 'host';
  ipc?: 'host';
  securityOpts?: readonly string[];
  volumes?: readonly Volume[];
  /** Environment set inside the container only (paths that exist in the image). */
  env?: Record<string, string>;
  /** Files the argv names, mounted read-only when outside the model store. */
  files?: readonly string[];
  /** The device whose nodes the container gets, when not the slot's (CPU-only engines: cpu). */
  device?: Device;
}

export interface EngineLaunch {
  engine: CommandEngine;
  /** The engine's argv for a listener on `host`; --port (or ComfyUI's --port) must be in it. */
  argv: (host: string) => string[];
  /** The image for container mode (see engineImage); '' runs the engine as a process. */
  image: string;
  /** Environment of the engine in both modes (under GPU visibility and [server].env). */
  env?: Record<string, string>;
  container?: ContainerExtras;
}

/**
 * The profile an engine uses: the slot's own (or its model's preferred) profile as chosen;
 * in place of a device default, the seed profile made for this engine (`seed`: kokoro → tts),
 * or none. A device default picks by device and type only, so it may be another engine's
 * (cpu transcription → cpu-llm, llama-server flags a moonshine server would refuse).
 */
export function engineProfile(choice: ProfileChoice, seed: string | null): Profile | null {
  if (choice.source !== 'device-default') return choice.profile;
  return seed !== null ? (own(SEED_PROFILES, seed) ?? null) : null;
}

/** slot.config_error unless the engine serves the slot's type. */
export function checkServes(provider: string, serves: readonly SlotType[], slot: { name: string; type: SlotType }): void {
  if (!serves.includes(slot.type)) {
    throw new SlotError('slot.config_error', `${provider} does not serve ${slot.type} slots (it serves ${serves.join(', ')})`, { slot: slot.name, type: slot.type });
  }
}

/** Profile flags and [server].extra_args as words; extra_args go last so they win. */
export function flagWords(ctx: LaunchContext, profile: Profile | null): { profile: string[]; extra: string[] } {
  return {
    profile: tokenizeFlags(profile?.flags ?? '', 'the profile\'s flags'),
    extra: tokenizeFlags(ctx.slot.config.server.extra_args, '[server].extra_args'),
  };
}

function portOf(argv: readonly string[], slot: string): number {
  const port = Number(flagValue(argv, '--port'));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SlotError('slot.config_error', `the engine port "${flagValue(argv, '--port')}" is not a port number`, { slot });
  }
  return port;
}

/** The profile's image when a profile applies (even '', which means "run as a process"), else the engine's own. */
export const engineImage = (profile: Profile | null, fallback: string): string => (profile ? profile.image : fallback);

export async function launchEngine(ctx: LaunchContext, launch: EngineLaunch, hostDevices: () => HostDevices = () => probeHostDevices()): Promise<LaunchSpec> {
  const { slot, server } = ctx.slot.config;
  const { runtime } = ctx.svc.engines;
  const { image } = launch;
  const containerRuntime = runtime !== 'process' && image.trim() !== '' ? runtime : null;
  const extras = launch.container ?? {};
  const envInput = { device: slot.device, gpuIndex: slot.gpu_index, serverEnv: server.env };

  if (containerRuntime) {
    const onHostNetwork = extras.network === 'host';
    const argv = launch.argv(onHostNetwork ? '127.0.0.1' : '0.0.0.0');
    const port = portOf(argv, slot.name);
    const publishHost = ctx.svc.slots.publish_host;
    return {
      command: await findRuntime(containerRuntime, ctx.baseEnv),
      args: containerArgs({
        runtime: containerRuntime, slotName: slot.name, image, device: extras.device ?? slot.device, gpuIndex: slot.gpu_index, publishHost, port,
        modelStore: ctx.modelStore, files: extras.files ?? [], volumes: extras.volumes ?? [],
        env: { ...launch.env, ...extras.env, ...slotEnv({ ...envInput, mode: 'container' }) },
        argv: extras.wrap ? extras.wrap(argv) : argv,
        host: hostDevices(),
        ...(extras.entrypoint && { entrypoint: extras.entrypoint }),
        ...(extras.network && { network: extras.network }),
        ...(extras.ipc && { ipc: extras.ipc }),
        ...(extras.securityOpts && { securityOpts: extras.securityOpts }),
      }),
      env: baseEnvironment(ctx.baseEnv),
      baseUrl: reachableUrl(onHostNetwork ? '127.0.0.1' : publishHost, port),
      mode: 'container',
    };
  }
  const argv = launch.argv('127.0.0.1');
  const port = portOf(argv, slot.name);
  const command = await findEngineCommand(launch.engine, ctx.svc.engines[launch.engine], ctx.baseEnv).catch((error: unknown) => {
    throw error instanceof SlotError ? new SlotError(error.code as ConstructorParameters<typeof SlotError>[0], `slot ${slot.name}: ${error.message}`, { slot: slot.name, ...error.details }) : error;
  });
  return {
    command: command.command,
    args: [...command.args, ...argv],
    env: { ...baseEnvironment(ctx.baseEnv), ...launch.env, ...slotEnv({ ...envInput, mode: 'process' }) },
    // extra_args may move the listener; whatever the engine ends up with is where it is reached.
    baseUrl: reachableUrl(flagValue(argv, '--host') ?? flagValue(argv, '--listen'), port),
    mode: 'process',
  };
}

/** An engine that is not llama-server, described by what differs from one to the next. */
export interface EngineDefinition {
  provider: CommandEngine;
  serves: readonly SlotType[];
  /** The seed profile made for it (kokoro → tts), used in place of a device default; null: none. */
  seedProfile: string | null;
  /** Its own image for container mode when no profile names one. */
  defaultImage: string;
  routes: Readonly<Record<string, EngineRoute>>;
  defaultModelId(slot: SlotFile): string;
  /** The engine's own part of the launch: its argv for a listener, environment, container extras. */
  launch(ctx: LaunchContext, flags: { profile: string[]; extra: string[] }): Omit<EngineLaunch, 'engine' | 'image'>;
  /** Refuse a slot this engine must not run (beyond the type check); throws SlotError. */
  check?(slot: SlotFile['slot']): void;
  health?: EngineAdapter['health'];
}

/** The adapter of a defined engine: type check, profile, flags, then process or container mode. */
export function defineEngine(def: EngineDefinition, deps: { hostDevices?: () => HostDevices } = {}): EngineAdapter {
  return {
    provider: def.provider,
    serves: def.serves,
    async launch(ctx: LaunchContext) {
      const { slot } = ctx.slot.config;
      def.check?.(slot);
      checkServes(def.provider, def.serves, slot);
      const profile = engineProfile(ctx.profile, def.seedProfile);
      const own = def.launch(ctx, flagWords(ctx, profile));
      return launchEngine(ctx, { ...own, engine: def.provider, image: engineImage(profile, def.defaultImage) }, deps.hostDevices);
    },
    health: def.health ?? ((baseUrl, signal) => probeHealth(baseUrl, signal)),
    defaultModelId: (slot) => def.defaultModelId(slot),
    routes: def.routes,
  };
}

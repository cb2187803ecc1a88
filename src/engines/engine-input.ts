// The engine half of the one host-only policy (docs/auth.md, "Host-only keys"): what a change
// to a slot's or a profile's engine input adds that only the host may add. Engine input is
// what reaches an engine's command line or environment: the provider that reads the flags,
// the profile's flags and image, [server].extra_args and [server].env. Pure: the routes ask
// it, then ask the host authority (server/host-authority.ts) only when it found something.
import { hostOnlyEnvIn } from '../protocol/host-only.js';
import type { Profile } from '../config/schema/profiles.js';
import { profileServes } from '../config/profiles.js';
import { tokenize } from '../lib/shell-words.js';
import { comfyUiDialect } from './comfyui/flag-dialect.js';
import { addedHostOnly, type EngineArg, type FlagDialect, readEngineArgs, showArg } from './flag-rules.js';
import { flmDialect } from './flm/flag-dialect.js';
import { moonshineDialect, ttsDialect } from './kokoro/flag-dialect.js';
import { llamaServerDialect } from './llama-server/flag-dialect.js';

const BY_PROVIDER: Readonly<Record<string, FlagDialect>> = {
  'llama-server': llamaServerDialect,
  // The built-in engine reads a subset of llama-server's flags with llama-server's meanings.
  builtin: llamaServerDialect,
  comfyui: comfyUiDialect,
  kokoro: ttsDialect,
  qwen3tts: ttsDialect,
  moonshine: moonshineDialect,
  flm: flmDialect,
};

/** How `provider` reads its command line; an unknown provider reads like llama-server (every unknown flag is host-only anyway). */
export function dialectFor(provider: string): FlagDialect {
  return BY_PROVIDER[provider] ?? llamaServerDialect;
}

/** The engine a profile is written for, by its class: the dialect its flags are judged in when it is saved. */
export function profileDialect(profile: Pick<Profile, 'device_class' | 'flags' | 'intent'>): FlagDialect {
  if (profile.device_class === 'img') return comfyUiDialect;
  if (profile.device_class === 'npu') return flmDialect;
  if (profileServes(profile as Profile).includes('tts')) return ttsDialect;
  return llamaServerDialect;
}

/** The engine input of one slot. */
export interface SlotEngineInput {
  readonly provider: string;
  readonly profile: Pick<Profile, 'device_class' | 'flags' | 'intent' | 'image'> | null;
  readonly extraArgs: string | null;
  readonly env: Readonly<Record<string, string>> | null;
}

const words = (text: string | null | undefined): string[] => {
  try {
    return text ? tokenize(text) : [];
  } catch {
    return [text ?? '']; // unsplittable: one word, never LAN-safe (the schema refuses it anyway)
  }
};

function slotArgs(dialect: FlagDialect, input: SlotEngineInput): EngineArg[] {
  return [...readEngineArgs(dialect, words(input.profile?.flags)), ...readEngineArgs(dialect, words(input.extraArgs))];
}

/**
 * What a change of a slot's engine input adds that is host-only, each as "<where> <arg>":
 * host-only flags (flag and value) read the way the slot's engine reads them, and the names
 * of its environment outside the LAN allowlist (protocol/host-only.ts LAN_ENV). A profile's
 * flags count as approved when the profile is written for this slot's engine (they were
 * judged in that dialect when it was saved); on another engine they are judged afresh
 * (`--temp` is ComfyUI's `--temp-directory`). The environment the host set counts as approved
 * on the same engine only: what a variable does depends on the program that reads it
 * (PYTHONWARNINGS means nothing to llama-server and imports a module in a Python engine).
 */
export function hostOnlySlotChanges(before: SlotEngineInput | undefined, after: SlotEngineInput): string[] {
  const dialect = dialectFor(after.provider);
  const approved = [
    ...(before ? slotArgs(dialect, before) : []),
    ...(after.profile && profileDialect(after.profile) === dialect ? readEngineArgs(dialect, words(after.profile.flags)) : []),
  ];
  const flags = addedHostOnly(approved, slotArgs(dialect, after)).map((arg) => `flags ${showArg(arg)}`);
  const kept = before?.provider === after.provider ? before.env : null;
  const env = hostOnlyEnvIn(after.env, kept).map((name) => `server.env.${name}`);
  return [...new Set([...flags, ...env])];
}

/**
 * What a profile change adds that is host-only, each as "profiles.<name>.<field> ...":
 * host-only flags judged in the profile's own dialect, and an image that no profile (seed or
 * user) already uses: choosing what a container runtime pulls and runs is the host's call.
 * The flags the host set count as approved in the dialect they were written for only: moving
 * a profile to another engine (its class or a TTS intent) judges them afresh, as a slot does.
 */
export function hostOnlyProfileChanges(name: string, before: Pick<Profile, 'device_class' | 'flags' | 'intent' | 'image'> | undefined, after: Pick<Profile, 'device_class' | 'flags' | 'intent' | 'image'>, knownImages: ReadonlySet<string>): string[] {
  const dialect = profileDialect(after);
  const approved = before && profileDialect(before) === dialect ? readEngineArgs(dialect, words(before.flags)) : [];
  const flags = addedHostOnly(approved, readEngineArgs(dialect, words(after.flags))).map((arg) => `profiles.${name}.flags ${showArg(arg)}`);
  const image = after.image !== '' && after.image !== before?.image && !knownImages.has(after.image) ? [`profiles.${name}.image ${after.image}`] : [];
  return [...flags, ...image];
}

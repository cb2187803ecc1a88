// The host-only policy for stacks written over HTTP (create, replace, import): a stack is a
// slot file waiting to be written, and whoever applies it later (the host's own dashboard,
// with its host authority) should not be made to write what a LAN client chose. So each
// row's engine input is judged now, in the dialect of every engine the row could run on,
// against the same row of the stack it replaces; profiles an import brings are judged as
// profiles. Apply judges the real slot files again (engine-input-check.ts).
import type { Profile } from '../config/schema/profiles.js';
import type { Stack, StackSlotRow } from '../config/schema/stacks.js';
import { SEED_PROFILES } from '../config/profiles.js';
import { hostOnlyProfileChanges, hostOnlySlotChanges, type SlotEngineInput } from '../engines/engine-input.js';
import { deviceOfProfile, effectiveRows, typeForRow } from '../stacks/rows.js';
import type { ServerContext } from './context.js';
import { unlikeAModelId } from './engine-input-check.js';
import { own } from '../lib/own.js';

/** The engines a row may end up on: its own provider, else those apply could choose for its type and device. */
function candidateProviders(ctx: ServerContext, row: StackSlotRow, profile: Profile | undefined): string[] {
  if (row.provider) return [row.provider];
  const [effective] = effectiveRows({ name: '', description: '', author: '', icon: '', tags: [], slots: [{ ...row, capabilities: [] }] });
  const type = typeForRow(effective!, profile, own(ctx.config.registry.models, row.model)?.capabilities ?? []);
  const npu = (row.device ?? (profile ? deviceOfProfile(profile) : null)) === 'npu';
  if (type === 'image') return ['comfyui'];
  if (type === 'tts') return ['kokoro', 'qwen3tts'];
  if (npu) return ['flm'];
  return type === 'transcription' ? ['moonshine'] : ['llama-server'];
}

/** Host-only keys a stack (and the profiles an import brings) adds, as "stacks.<slug>.slots.<slot> ..." and "profiles.<name> ...". */
export function stackHostOnlyKeys(ctx: ServerContext, slug: string, before: Stack | undefined, after: Stack, incoming: Readonly<Record<string, Profile>> = {}): string[] {
  const catalogue: Record<string, Profile> = { ...ctx.config.profiles.profiles, ...incoming, ...SEED_PROFILES };
  const known = new Set(Object.values({ ...ctx.config.profiles.profiles, ...SEED_PROFILES }).map((p) => p.image));
  const keys = Object.entries(incoming).flatMap(([name, profile]) => hostOnlyProfileChanges(name, undefined, profile, known));
  for (const row of after.slots) {
    const profile = row.profile ? own(catalogue, row.profile) : undefined;
    const old = before?.slots.find((r) => r.slot === row.slot);
    // Apply writes the row's models as [model].default (engine-input-check.ts unlikeAModelId).
    const oldModels = old ? [old.model, ...old.capabilities.map((c) => c.model)] : [];
    for (const model of [row.model, ...row.capabilities.map((c) => c.model)]) {
      if (unlikeAModelId(model) && !oldModels.includes(model)) keys.push(`stacks.${slug}.slots.${row.slot} model ${model}`);
    }
    for (const provider of candidateProviders(ctx, row, profile)) {
      const input = (r: StackSlotRow): SlotEngineInput => ({ provider, profile: (r.profile ? own(catalogue, r.profile) : undefined) ?? null, extraArgs: r.server_extra_args, env: null });
      keys.push(...hostOnlySlotChanges(old && input(old), input(row)).map((key) => `stacks.${slug}.slots.${row.slot} ${key}`));
    }
  }
  return [...new Set(keys)];
}

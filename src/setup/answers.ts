// The answers of `svc setup`: what the TUI asks, what --auto picks, what --answers reads and
// --emit-answers writes. Pure: the defaults come from the hardware probe and the flags. The
// CLI runs it, so it reads only protocol's model names and catalogue, never engines or models.
import { z } from 'zod';
import type { HardwareProbe } from '../protocol/hardware.js';
import { CATALOGUE } from '../protocol/model-catalogue.js';
import { isAbsolute } from 'node:path';
import { KOKORO_MODEL_ID, MOONSHINE_DEFAULT_MODEL, TINY_DEMO_CONTEXT, TINY_MODEL_ID, TINY_RERANKER_ID } from '../protocol/builtin-models.js';
import { InstallSlotSchema } from '../protocol/install.js';
import { memoryOf } from '../protocol/hardware.js';

export const SetupAnswersSchema = z.strictObject({
  storage_dir: z.string().refine(isAbsolute, { message: 'expected an absolute path' }),
  pull: z.boolean().default(true),
  slots: z.array(InstallSlotSchema).default([]),
  /** The memory engine, tool servers and agents (each set up by its own command) and the chat front end (not built): recorded only, setup installs none. */
  extensions: z.boolean().default(false),
  auth: z.boolean().default(false),
});
export type SetupAnswers = z.output<typeof SetupAnswersSchema>;

export interface SetupFlags {
  storageDir: string;
  pull: boolean;
  extensions: boolean;
  slots: boolean;
}

/** The demo models svc writes itself (random weights): what --no-pull sets up, so the gateway works offline. */
export const DEMO_CHAT = TINY_MODEL_ID;
export const DEMO_RERANK = TINY_RERANKER_ID;

/**
 * The optional speech slots: text to speech (kokoro) and transcription (moonshine), on the
 * CPU. Their engines name their models by id (nothing to register or pull); each engine
 * must be installed for its slot to start (docs/engines.md).
 */
export const SPEECH_SLOTS = [
  { name: 'tts', type: 'tts' as const, model: KOKORO_MODEL_ID, provider: 'kokoro' as const, device: 'cpu' as const },
  { name: 'stt', type: 'transcription' as const, model: MOONSHINE_DEFAULT_MODEL, provider: 'moonshine' as const, device: 'cpu' as const },
];
const NAMED_BY_ID = new Set(SPEECH_SLOTS.map((s) => s.model));

// Total RAM and VRAM (protocol/hardware.ts); the setup TUI prints them too.
export { memoryOf };

/** The chat model --auto pulls: a modest one that runs well on what the host has. */
export function autoChatModel(probe: HardwareProbe | null): string {
  const { ramMb, vramMb } = memoryOf(probe);
  if (vramMb >= 8_000) return 'qwen3-8b';
  if (ramMb >= 16_000) return 'qwen3-4b';
  return 'qwen3-0.6b';
}

/** Does a catalogue model fit (weights with a fifth more for the KV cache and runtime)? */
export function fitsHost(modelId: string, probe: HardwareProbe | null): boolean | null {
  const entry = CATALOGUE.find((e) => e.id === modelId);
  if (!entry || !probe) return null;
  const { ramMb, vramMb } = memoryOf(probe);
  return (entry.size_bytes * 1.2) / 1e6 <= ramMb + vramMb;
}

/**
 * What --auto does: a chat, an embedding and a reranking slot. Without pulls they run the
 * demo models on the built-in engine on the CPU (nothing to download, works everywhere);
 * with pulls, catalogue models the host can run, on the engine and device the gateway picks.
 */
export function autoAnswers(flags: SetupFlags, probe: HardwareProbe | null): SetupAnswers {
  const demo = { provider: 'builtin' as const, device: 'cpu' as const };
  const slots = !flags.slots ? [] : flags.pull
    ? [
        { name: 'chat', type: 'llm' as const, model: autoChatModel(probe) },
        { name: 'embed', type: 'embedding' as const, model: 'nomic-embed-text-v1.5' },
        { name: 'rerank', type: 'reranking' as const, model: 'bge-reranker-v2-m3-q4_k_m' },
      ]
    : [
        { name: 'chat', type: 'llm' as const, model: DEMO_CHAT, ctx_size: TINY_DEMO_CONTEXT.chat, ...demo },
        { name: 'embed', type: 'embedding' as const, model: DEMO_CHAT, ctx_size: TINY_DEMO_CONTEXT.vectors, ...demo },
        { name: 'rerank', type: 'reranking' as const, model: DEMO_RERANK, ctx_size: TINY_DEMO_CONTEXT.vectors, ...demo },
      ];
  return SetupAnswersSchema.parse({ storage_dir: flags.storageDir, pull: flags.pull, slots, extensions: flags.extensions, auth: false });
}

/** What the summary step prints, one line each. */
export function summaryLines(answers: SetupAnswers, existing: ReadonlySet<string>): string[] {
  const lines = [`models go to ${answers.storage_dir}`];
  for (const slot of answers.slots) {
    const what = existing.has(slot.name) ? 'exists, left as it is' : `${slot.type ?? 'llm'} slot with ${slot.model}${slot.provider ? ` on ${slot.provider}` : ''}${slot.device ? ` (${slot.device})` : ''}`;
    lines.push(`slot ${slot.name}: ${what}`);
  }
  if (answers.slots.length === 0) lines.push('no slots');
  const pulls = answers.slots.filter((s) => !existing.has(s.name) && s.model !== DEMO_CHAT && s.model !== DEMO_RERANK && !NAMED_BY_ID.has(s.model)).map((s) => s.model);
  if (pulls.length > 0) lines.push(answers.pull ? `pulls (unless registered already): ${[...new Set(pulls)].join(', ')}` : `not pulled (--no-pull): ${[...new Set(pulls)].join(', ')}; their slots are skipped`);
  lines.push(answers.extensions ? 'extensions: noted only; setup installs none (svc memory, svc mcp and svc agent set them up; the chat front end is not built)' : 'extensions: none');
  lines.push(answers.auth ? 'auth mode: on afterwards, with `svc auth enable` (it asks for the admin password)' : 'auth mode: off (default mode; `svc auth enable` turns it on)');
  return lines;
}

/** Catalogue models for a capability, each with its download size and whether it fits this host. */
export function catalogueChoices(capability: string, probe: HardwareProbe | null): Array<{ value: string; label: string; hint: string }> {
  return CATALOGUE.filter((e) => e.capabilities.includes(capability)).map((e) => {
    const fits = fitsHost(e.id, probe);
    return { value: e.id, label: e.id, hint: `${(e.size_bytes / 1e9).toFixed(1)} GB download${fits === false ? ', does not fit this host' : fits ? ', fits' : ''}` };
  });
}

// The interactive `svc setup` (@clack/prompts): hardware, where models go, which slots with
// which models, extensions, auth mode, then a summary to confirm. It only collects answers:
// Ctrl-C or Escape at any step returns null, and nothing has been written.
import { statfs } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { cancel, confirm, intro, isCancel, note, outro, select, text } from '@clack/prompts';
import type { ResolvedConfig } from '../../config/load.js';
import type { HardwareProbe } from '../../setup/host.js';
import { catalogueChoices, DEMO_CHAT, DEMO_RERANK, memoryOf, SPEECH_SLOTS, SetupAnswersSchema, summaryLines, type SetupAnswers, type SetupFlags } from '../../setup/answers.js';

interface TuiInput {
  flags: SetupFlags;
  probe: HardwareProbe | null;
  config: ResolvedConfig | undefined;
  existing: ReadonlySet<string>;
}

const CANCELLED = Symbol('cancelled');

/** A prompt's answer, or CANCELLED (Ctrl-C, Escape). */
async function ask<T>(prompt: Promise<T | symbol>): Promise<T> {
  const value = await prompt;
  if (isCancel(value)) throw CANCELLED;
  return value as T;
}

async function freeGb(dir: string): Promise<string> {
  for (let at = dir; ; at = dirname(at)) {
    const fs = await statfs(at).catch(() => null);
    if (fs) return `${((fs.bavail * fs.bsize) / 1024 ** 3).toFixed(1)} GB free`;
    if (dirname(at) === at) return 'free space unknown';
  }
}

function hardwareLines(probe: HardwareProbe | null): string {
  if (!probe) return 'the hardware probe failed; defaults assume a CPU';
  const { ramMb, vramMb } = memoryOf(probe);
  return [
    `CPU: ${probe.cpu.model} (${probe.cpu.cores} cores)`,
    `RAM: ${Math.round(ramMb / 1024)} GB`,
    `GPUs: ${probe.gpus.length ? probe.gpus.map((g) => `${g.vendor_name}${g.vram_mb ? ` ${Math.round(g.vram_mb / 1024)} GB` : ''}`).join(', ') : 'none'}${vramMb ? '' : ''}`,
    `NPU: ${probe.npus.length ? probe.npus.map((n) => n.name).join(', ') : 'none'}`,
  ].join('\n');
}

/** Model choices for a capability: registered models, then catalogue ones with a fit mark, the demo model, none. */
function modelOptions(input: TuiInput, capability: 'chat' | 'embed' | 'rerank') {
  const registered = Object.entries(input.config?.registry.models ?? {})
    .filter(([, m]) => (capability === 'chat' ? !m.capabilities.some((c) => c === 'embed' || c === 'rerank') : m.capabilities.includes(capability)))
    .map(([id]) => ({ value: id, label: id, hint: 'registered' }));
  const catalogue = input.flags.pull ? catalogueChoices(capability, input.probe) : [];
  const demo = capability === 'rerank' ? DEMO_RERANK : DEMO_CHAT;
  return [...registered, ...catalogue, { value: demo, label: `${demo} (demo model, no download)`, hint: 'random weights: proves the chain, answers nonsense' }, { value: '', label: 'none' }];
}

export async function askAnswers(input: TuiInput): Promise<SetupAnswers | null> {
  try {
    intro('svc setup');
    note(hardwareLines(input.probe), '1. Hardware');
    const storage = await ask<string>(text({
      message: `2. Where do models go? (${await freeGb(input.flags.storageDir)} there)`,
      initialValue: input.flags.storageDir,
      validate: (v) => (v && isAbsolute(v) ? undefined : 'an absolute path'),
    }));
    const slots: Array<Record<string, unknown>> = [];
    if (input.flags.slots) {
      const picks = [['chat', 'llm', 'chat', 'a chat model'], ['embed', 'embedding', 'embed', 'an embedding model'], ['rerank', 'reranking', 'rerank', 'a reranking model']] as const;
      for (const [name, type, capability, what] of picks) {
        if (input.existing.has(name)) {
          note(`slot ${name} exists and is left as it is`, `3. Slots: ${name}`);
          continue;
        }
        const model = await ask<string>(select<string>({ message: `3. Slots: ${what} for slot "${name}"`, options: modelOptions(input, capability) }));
        if (!model) continue;
        const demo = model === DEMO_CHAT || model === DEMO_RERANK;
        slots.push({ name, type, model, ...(demo && { provider: 'builtin' as const, device: 'cpu' as const, ctx_size: 2048 }) });
      }
    }
    if (input.flags.slots) {
      const speech = SPEECH_SLOTS.filter((slot) => !input.existing.has(slot.name));
      if (speech.length > 0 && (await ask(confirm({ message: `3. Slots: add speech (${speech.map((s) => `${s.name}: ${s.provider}`).join(', ')}, on the CPU; each engine must be installed to start)?`, initialValue: false })))) slots.push(...speech);
    }
    const extensions = input.flags.extensions
      ? await ask(confirm({ message: '4. Extensions: setup installs none of them (memory: svc memory, tool servers: svc mcp, agents: svc agent; the chat front end is not built). Note them for later?', initialValue: false }))
      : false;
    const auth = await ask(confirm({ message: '5. Turn on auth mode (Caddy with TLS and a password in front, scoped tokens for API clients)?', initialValue: false }));
    const answers = SetupAnswersSchema.parse({ storage_dir: storage, pull: input.flags.pull, slots, extensions, auth });
    note(summaryLines(answers, input.existing).join('\n'), '6. Summary');
    if (!(await ask(confirm({ message: 'Write this and start it?', initialValue: true })))) throw CANCELLED;
    outro('applying');
    return answers;
  } catch (error) {
    if (error !== CANCELLED) throw error;
    cancel('setup cancelled; nothing was written');
    return null;
  }
}

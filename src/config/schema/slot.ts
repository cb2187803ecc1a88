// slots/<name>.toml: one file per slot (docs/configuration.md, "Slot files"). Unknown keys are reported
// as warnings and kept: a read-modify-write goes through the raw document, not this schema.
// Each section's field rules are protocol's (protocol/slot-file.ts): the dashboard checks
// them in the browser too.
import { z } from 'zod';
import { imageSection, modelSection, npuSection, rpcSection, serverSection, slotSection } from '../../protocol/slot-file.js';

export const SlotFileSchema = z.strictObject({
  slot: slotSection,
  model: modelSection.prefault({}),
  server: serverSection.prefault({}),
  npu: npuSection.prefault({}),
  image: imageSection.prefault({}),
  rpc: rpcSection.prefault({}),
});

export type SlotFile = z.output<typeof SlotFileSchema>;

/** Keys that only make sense on a tts slot. */
export const TTS_ONLY_KEYS = ['default_voice', 'default_speed', 'default_response_format'] as const;

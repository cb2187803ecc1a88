// capabilities.toml: which slot and model serve each capability (embed, rerank, stt, tts,
// vision, image). The spec does not show its fields; see docs/configuration.md.
import { z } from 'zod';
import { DEVICES, PROVIDERS, slotName } from './common.js';

export const CAPABILITIES = ['embed', 'rerank', 'stt', 'tts', 'vision', 'image'] as const;

export const CapabilitySchema = z.strictObject({
  slot: slotName().meta({ description: 'Slot that serves the capability.' }),
  model: z.string().min(1).nullable().default(null).meta({ description: 'Model id; null = the slot\'s default model.' }),
  device: z.enum(DEVICES).nullable().default(null).meta({ description: 'Device the capability runs on; null = the slot\'s.' }),
  provider: z.enum(PROVIDERS).nullable().default(null).meta({ description: 'Engine; null = the slot\'s.' }),
  enabled: z.boolean().default(true).meta({ description: 'Whether the capability is offered.' }),
});

export const CapabilitiesFileSchema = z.strictObject({
  capabilities: z.partialRecord(z.enum(CAPABILITIES), CapabilitySchema).default({}),
});

export type CapabilitiesFile = z.output<typeof CapabilitiesFileSchema>;

// profiles.toml: reusable engine templates (docs/configuration.md, "profiles.toml"). Optional; the seed
// profiles apply when it is absent. Profiles live in `[profiles.<name>]` tables.
import { z } from 'zod';
import { IMAGE_REFERENCE_RULE, isImageReference } from '../../protocol/image-ref.js';
import { slotName } from './common.js';
import { nulFreeString } from '../../protocol/no-nul.js';

export const ProfileSchema = z.strictObject({
  image: z.string().refine((v) => v === '' || isImageReference(v), { message: IMAGE_REFERENCE_RULE }).meta({ description: 'Container image reference (empty for engines run as plain processes).' }),
  flags: nulFreeString().default('').meta({ description: 'Engine flags; no model, port or context arguments.' }),
  mtp: z.boolean().default(false).meta({ description: 'In auto mode, slots enable MTP for MTP-capable models.' }),
  device_class: z.enum(['gpu', 'cpu', 'npu', 'img']).meta({ description: 'Class of device the profile targets.' }),
  backend: z.enum(['rocm', 'vulkan', 'cuda']).nullable().default(null).meta({ description: 'GPU runtime; null for non-GPU profiles.' }),
  cloned_from: z.string().nullable().default(null).meta({ description: 'Provenance; informational.' }),
  intent: z.string().default('').meta({ description: 'Human label.' }),
  quant: z.string().default('').meta({ description: 'Informational; never read by the runtime.' }),
});

export const ProfilesFileSchema = z.strictObject({
  profiles: z.record(slotName(), ProfileSchema).default({}),
});

export type Profile = z.output<typeof ProfileSchema>;
export type ProfilesFile = z.output<typeof ProfilesFileSchema>;

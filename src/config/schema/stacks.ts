// stacks.toml: named, portable bundles of slot assignments (docs/configuration.md, "stacks.toml").
import { z } from 'zod';
import { ownedFlagsIn, ownedFlagsMessage } from '../../protocol/host-only.js';
import { wordsOrNone } from '../../lib/shell-words.js';
import { DEVICES, PROVIDERS, slotName } from './common.js';
import { CAPABILITIES } from './capabilities.js';
import { nulFreeString } from '../../protocol/no-nul.js';

const StackCapabilitySchema = z.strictObject({
  child: z.enum(CAPABILITIES),
  model: z.string().min(1),
  device: z.enum(DEVICES).nullable().default(null),
  provider: z.enum(PROVIDERS).nullable().default(null),
  enabled: z.boolean().default(true),
});

export const StackSlotRowSchema = z.strictObject({
  slot: slotName(),
  model: z.string().min(1),
  profile: z.string().min(1).nullable().default(null),
  device: z.enum(DEVICES).nullable().default(null),
  provider: z.enum(PROVIDERS).nullable().default(null),
  role: slotName().nullable().default(null),
  vision: z.boolean().default(true),
  mtp: z.boolean().nullable().default(null),
  enable_thinking: z.boolean().nullable().default(null),
  server_extra_args: nulFreeString().nullable().default(null).superRefine((value, context) => {
    const owned = ownedFlagsIn(wordsOrNone(value));
    if (owned.length > 0) context.addIssue({ code: 'custom', message: ownedFlagsMessage(owned) });
  }),
  capabilities: z.array(StackCapabilitySchema).default([]),
});

export const StackSchema = z.strictObject({
  name: z.string().min(1).meta({ description: 'Display name.' }),
  description: z.string().default(''),
  author: z.string().default(''),
  icon: z.string().default(''),
  tags: z.array(z.string()).default([]),
  slots: z.array(StackSlotRowSchema).default([]),
});

export const StacksFileSchema = z.strictObject({
  stack: z.record(slotName(), StackSchema).default({}),
});

export type StacksFile = z.output<typeof StacksFileSchema>;
export type Stack = z.output<typeof StackSchema>;
export type StackSlotRow = z.output<typeof StackSlotRowSchema>;

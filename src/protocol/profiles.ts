// Wire shapes of /api/profiles (docs/api.md, "Profiles"), shared by the server and the CLI.
import { z } from 'zod';
import { IMAGE_REFERENCE_RULE, isImageReference } from './image-ref.js';
import { SLOT_NAME_PATTERN, SLOT_NAME_RULE } from './vocabulary.js';

export const PROFILE_DEVICE_CLASSES = ['gpu', 'cpu', 'npu', 'img'] as const;
export const PROFILE_BACKENDS = ['rocm', 'vulkan', 'cuda'] as const;

const profileName = () => z.string().regex(SLOT_NAME_PATTERN, { message: `expected a profile name: ${SLOT_NAME_RULE}` });

const fields = {
  image: z.string().refine((v) => v === '' || isImageReference(v), { message: IMAGE_REFERENCE_RULE }),
  flags: z.string(),
  mtp: z.boolean(),
  device_class: z.enum(PROFILE_DEVICE_CLASSES),
  backend: z.enum(PROFILE_BACKENDS).nullable(),
  intent: z.string(),
  quant: z.string(),
};

/** POST /api/profiles: `image` and `device_class` are required (`image` may be "" for engines run as processes). */
export const CreateProfileRequestSchema = z.strictObject({
  name: profileName(),
  image: fields.image,
  device_class: fields.device_class,
  flags: fields.flags.optional(),
  mtp: fields.mtp.optional(),
  backend: fields.backend.optional(),
  intent: fields.intent.optional(),
  quant: fields.quant.optional(),
});
export type CreateProfileRequest = z.input<typeof CreateProfileRequestSchema>;

/** PUT /api/profiles/<name>: the fields to change, at least one. */
export const UpdateProfileRequestSchema = z.strictObject({
  image: fields.image.optional(),
  device_class: fields.device_class.optional(),
  flags: fields.flags.optional(),
  mtp: fields.mtp.optional(),
  backend: fields.backend.optional(),
  intent: fields.intent.optional(),
  quant: fields.quant.optional(),
}).refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' });
export type UpdateProfileRequest = z.input<typeof UpdateProfileRequestSchema>;

/** POST /api/profiles/<name>/clone */
export const CloneProfileRequestSchema = z.strictObject({ name: profileName() });

export interface ProfilePayload {
  name: string;
  image: string;
  flags: string;
  mtp: boolean;
  device_class: (typeof PROFILE_DEVICE_CLASSES)[number];
  backend: (typeof PROFILE_BACKENDS)[number] | null;
  cloned_from: string | null;
  intent: string;
  quant: string;
  /** Seed profiles are built in and immutable. */
  seed: boolean;
  /** Slot types the profile serves (derived from its flags and class). */
  serves: readonly string[];
  /** Slots whose [slot].profile names it. */
  used_by: string[];
}

/** What a write answers: the profile, and the slots that pick the change up at their next start. */
export interface ProfileChangePayload {
  profile: ProfilePayload;
  /** Slots using the profile; running ones take the change at their next (re)start. */
  slots: string[];
  /** With ?restart=true: the slots restarted now. */
  restarted: string[];
}

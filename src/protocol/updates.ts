// /api/updates (docs/api.md, "Updates"): which version runs, which one the channel offers.
import { z } from 'zod';
import { UPDATE_CHANNELS } from './vocabulary.js';

export type UpdateChannel = (typeof UPDATE_CHANNELS)[number];

/** The npm dist-tag each channel follows. */
export const CHANNEL_TAG: Readonly<Record<UpdateChannel, string>> = { stable: 'latest', nightly: 'nightly' };

export const PutChannelRequestSchema = z.strictObject({ channel: z.enum(UPDATE_CHANNELS) });

export interface UpdateCheckPayload {
  package: string;
  registry: string;
  current: string;
  channel: UpdateChannel;
  /** The version the channel's dist-tag names; null when the registry has no such tag. */
  latest: string | null;
  update_available: boolean;
  /** Versions the registry has, newest first (at most 20), for --target. */
  versions: string[];
}

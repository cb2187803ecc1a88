// What the Slots page reads besides the shared slot list (slotsQuery, kept live by live.tsx),
// and the writes it sends. The detail's key is not under ['slots']: the app re-reads that
// prefix on every slot event, and a detail re-read after its slot was deleted would be a 404.
import { queryOptions } from '@tanstack/react-query';
import type { ModelListPayload } from '../../../../src/protocol/models.js';
import type { ProfilePayload } from '../../../../src/protocol/profiles.js';
import type {
  CreateSlotPayload, CreateSlotRequest, DeleteSlotPayload, EditSlotRequest, SlotChangePayload, SlotDetailPayload, SlotViewPayload,
} from '../../../../src/protocol/slots.js';
import { getJson, sendJson } from '../../api-error.js';

const slotPath = (name: string) => `/api/slots/${encodeURIComponent(name)}`;

export const slotDetailQuery = (name: string) =>
  queryOptions({ queryKey: ['slot-detail', name], queryFn: ({ signal }) => getJson<SlotDetailPayload>(slotPath(name), signal) });

/** The registry, for the model pickers. */
export const modelsQuery = queryOptions({ queryKey: ['models'], queryFn: ({ signal }) => getJson<ModelListPayload>('/api/models', signal) });

/** Profile names, offered in the form (any profiles.toml name is accepted). */
export const profilesQuery = queryOptions({ queryKey: ['profiles'], queryFn: ({ signal }) => getJson<{ profiles: ProfilePayload[] }>('/api/profiles', signal) });

export type RuntimeAction = 'load' | 'unload' | 'restart';

export const slotApi = {
  create: (body: CreateSlotRequest) => sendJson<CreateSlotPayload>('POST', '/api/slots', body),
  edit: (name: string, body: EditSlotRequest) => sendJson<SlotChangePayload>('PUT', slotPath(name), body),
  remove: (name: string, force: boolean) => sendJson<DeleteSlotPayload>('DELETE', `${slotPath(name)}${force ? '?force=true' : ''}`),
  run: (name: string, action: RuntimeAction) => sendJson<SlotViewPayload>('POST', `${slotPath(name)}/${action}`),
  swap: (name: string, model: string, persist: boolean) => sendJson<SlotViewPayload>('POST', `${slotPath(name)}/swap`, { model, persist }),
  logUrl: (name: string, lines: number) => `${slotPath(name)}/logs?follow=true&lines=${lines}`,
};

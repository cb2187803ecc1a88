// Who gives way on a shared GPU (docs/routing.md, "Images and the GPU arbiter"). Pure, so
// every rule is unit-tested; gpu-arbiter.ts applies the decisions.
//
// - Two slots share a GPU when both run on a gpu-* device and their gpu_index is the same
//   or either is unpinned (null: the engine sees every GPU).
// - The "inference" slots that image mode stops are llm, embedding and reranking slots on a
//   shared GPU (the llama.cpp family: the ones that hold large weights in VRAM).
//   TTS and transcription slots stay: they are small and nothing here measured them fighting
//   an image engine for memory.
// - Only live slots are stopped, and the arbiter remembers them to restore later.
// - Restoring is due `idle_restore_minutes` after the last image request; 0 means never
//   (the slots then come back on their next request, as always).
import type { SlotType } from '../config/schema/common.js';

export interface GpuSlotFacts {
  name: string;
  type: SlotType;
  device: string;
  gpuIndex: number | null;
  enabled: boolean;
  /** Running or about to: starting, warming, ready (the supervisor's isLive). */
  live: boolean;
  inFlight: number;
}

const INFERENCE_TYPES: ReadonlySet<SlotType> = new Set(['llm', 'embedding', 'reranking']);

export const onGpu = (s: Pick<GpuSlotFacts, 'device'>) => s.device.startsWith('gpu-');

export function sharesGpu(a: Pick<GpuSlotFacts, 'device' | 'gpuIndex'>, b: Pick<GpuSlotFacts, 'device' | 'gpuIndex'>): boolean {
  if (!onGpu(a) || !onGpu(b)) return false;
  return a.gpuIndex === null || b.gpuIndex === null || a.gpuIndex === b.gpuIndex;
}

/** Does a request to `slot` compete with the image slot for its GPU? */
export function competesWithImage(slot: GpuSlotFacts, image: GpuSlotFacts): boolean {
  return slot.name !== image.name && INFERENCE_TYPES.has(slot.type) && sharesGpu(slot, image);
}

/** The live inference slots image mode on `image` must stop, in name order. */
export function slotsToStopForImage(image: GpuSlotFacts, slots: readonly GpuSlotFacts[]): string[] {
  return slots.filter((s) => s.live && competesWithImage(s, image)).map((s) => s.name).sort();
}

/** Other image slots on the same GPU: one image engine holds a GPU at a time. */
export function otherImageSlotsToStop(image: GpuSlotFacts, slots: readonly GpuSlotFacts[]): string[] {
  return slots.filter((s) => s.live && s.name !== image.name && s.type === 'image' && sharesGpu(s, image)).map((s) => s.name).sort();
}

/** When the stopped slots are due back, or null for never (0 minutes) or no image use yet. */
export function restoreDueAt(lastImageUseMs: number | null, idleRestoreMinutes: number): number | null {
  if (lastImageUseMs === null || idleRestoreMinutes <= 0) return null;
  return lastImageUseMs + idleRestoreMinutes * 60_000;
}

/**
 * At gateway start the GPU is in inference mode: an image slot on a GPU that an enabled
 * inference slot shares is not started then (image mode would stop that slot); it starts on
 * its first image request, through the arbiter. The names of the slots it yields to.
 */
export function imageYieldsAtBoot(image: GpuSlotFacts, slots: readonly GpuSlotFacts[]): string[] {
  if (image.type !== 'image' || !onGpu(image)) return [];
  return slots.filter((s) => s.enabled && competesWithImage(s, image)).map((s) => s.name).sort();
}

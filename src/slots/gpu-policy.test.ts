import { describe, expect, it } from 'vitest';
import { competesWithImage, imageYieldsAtBoot, otherImageSlotsToStop, restoreDueAt, sharesGpu, slotsToStopForImage, type GpuSlotFacts } from './gpu-policy.js';

const slot = (name: string, over: Partial<GpuSlotFacts> = {}): GpuSlotFacts => ({ name, type: 'llm', device: 'gpu-rocm', gpuIndex: null, enabled: true, live: true, inFlight: 0, ...over });
const image = slot('img', { type: 'image' });

describe('sharesGpu', () => {
  it('needs both on a GPU, and the same index or an unpinned one', () => {
    expect(sharesGpu(slot('a'), slot('b', { device: 'cpu' }))).toBe(false);
    expect(sharesGpu(slot('a', { gpuIndex: 0 }), slot('b', { gpuIndex: 1 }))).toBe(false);
    expect(sharesGpu(slot('a', { gpuIndex: 0 }), slot('b', { gpuIndex: 0 }))).toBe(true);
    expect(sharesGpu(slot('a', { gpuIndex: 0 }), slot('b'))).toBe(true);
    expect(sharesGpu(slot('a', { device: 'gpu-vulkan' }), slot('b', { device: 'gpu-cuda' }))).toBe(true);
  });
});

describe('slotsToStopForImage', () => {
  it('stops live llm, embedding and reranking slots on the shared GPU only', () => {
    const all = [
      image,
      slot('chat'),
      slot('embed', { type: 'embedding' }),
      slot('rerank', { type: 'reranking' }),
      slot('cold', { live: false }),
      slot('cpu', { device: 'cpu' }),
      slot('other-gpu', { gpuIndex: 1 }),
      slot('voice', { type: 'tts' }),
    ];
    expect(slotsToStopForImage({ ...image, gpuIndex: 0 }, all)).toEqual(['chat', 'embed', 'rerank']);
    expect(slotsToStopForImage(image, all)).toEqual(['chat', 'embed', 'other-gpu', 'rerank']);
  });

  it('an image slot off the GPU competes with nothing', () => {
    expect(slotsToStopForImage({ ...image, device: 'cpu' }, [slot('chat')])).toEqual([]);
    expect(competesWithImage(slot('chat'), { ...image, device: 'cpu' })).toBe(false);
  });

  it('another image slot on the same GPU gives way too', () => {
    expect(otherImageSlotsToStop(image, [image, slot('img2', { type: 'image' }), slot('img3', { type: 'image', live: false })])).toEqual(['img2']);
  });
});

describe('restoreDueAt', () => {
  it('is idle_restore_minutes after the last image use; never for 0 or no use', () => {
    expect(restoreDueAt(1_000, 2)).toBe(121_000);
    expect(restoreDueAt(1_000, 0)).toBeNull();
    expect(restoreDueAt(null, 60)).toBeNull();
  });
});

describe('imageYieldsAtBoot', () => {
  it('an image slot on a GPU yields to the enabled inference slots sharing it, live or not yet', () => {
    const all = [image, slot('chat', { live: false }), slot('off', { enabled: false }), slot('voice', { type: 'tts' }), slot('cpu', { device: 'cpu' })];
    expect(imageYieldsAtBoot(image, all)).toEqual(['chat']);
  });

  it('an image slot alone on its GPU, or on the cpu, and every non-image slot start', () => {
    expect(imageYieldsAtBoot({ ...image, gpuIndex: 0 }, [slot('chat', { gpuIndex: 1 })])).toEqual([]);
    expect(imageYieldsAtBoot({ ...image, device: 'cpu' }, [slot('chat')])).toEqual([]);
    expect(imageYieldsAtBoot(slot('chat'), [image, slot('embed', { type: 'embedding' })])).toEqual([]);
  });
});

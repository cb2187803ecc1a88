import { describe, expect, it } from 'vitest';
import { estimateFit, kvCacheBytes, modelShape } from './fit.js';

const header = (meta: Record<string, unknown>) => ({ version: 3, tensorCount: 0, metadata: { 'general.architecture': 'llama', ...meta }, types: {} });

describe('the fit estimate', () => {
  // Llama-3-8B's shape: 32 layers, 4096 wide, 32 heads, 8 KV heads.
  const llama8b = modelShape(header({ 'llama.context_length': 8192, 'llama.block_count': 32, 'llama.embedding_length': 4096, 'llama.attention.head_count': 32, 'llama.attention.head_count_kv': 8 }));

  it('sizes the f16 KV cache as llama.cpp does: layers × context × kv heads × (k + v) × 2 bytes', () => {
    expect(kvCacheBytes(llama8b, 8192)).toBe(32 * 8192 * 8 * 256 * 2);
    expect(kvCacheBytes(llama8b, 8192) / 2 ** 20).toBe(1024);
    expect(kvCacheBytes(modelShape(header({})), 8192)).toBe(0);
  });

  it('adds weights, cache and overhead, and compares them with free RAM plus VRAM', () => {
    const weightsBytes = 4.9 * 2 ** 30;
    const fits = estimateFit({ weightsBytes, shape: llama8b, ramAvailableMb: 4000, vramMb: 8192 });
    expect(fits).toMatchObject({ context: 8192, weights_mb: 5018, kv_cache_mb: 1024, budget_mb: 12192, fits: true });
    expect(fits.total_mb).toBe(5018 + 1024 + Math.ceil(64 + 5017.6 * 0.05));
    expect(estimateFit({ weightsBytes, shape: llama8b, ramAvailableMb: 4000, vramMb: 0 }).fits).toBe(false);
  });

  it('assumes the native context up to 8192 unless told, and reads per-layer KV head counts', () => {
    const long = modelShape(header({ 'llama.context_length': 131072, 'llama.block_count': 2, 'llama.embedding_length': 64, 'llama.attention.head_count': 4, 'llama.attention.head_count_kv': [2, 2] }));
    expect(estimateFit({ weightsBytes: 0, shape: long, ramAvailableMb: 1, vramMb: 0 }).context).toBe(8192);
    expect(estimateFit({ weightsBytes: 0, shape: long, context: 131072, ramAvailableMb: 1, vramMb: 0 }).context).toBe(131072);
    expect(long.headsKv).toBe(2);
  });

  it('tags a model with MTP heads', () => {
    expect(modelShape(header({ 'llama.nextn_predict_layers': 1 })).mtp).toBe(true);
    expect(llama8b.mtp).toBe(false);
  });
});

// The model ids svc names itself, not a registry's: the tiny demo models it writes (the
// built-in engine serves them) and the speech engines' default models. Shared by those
// engines and by `svc setup`'s answers, which the CLI computes without loading an engine.

export const TINY_MODEL_ID = 'svc-tiny';
export const TINY_RERANKER_ID = 'svc-tiny-rerank';

/**
 * The contexts of the demo slots on the tiny model (`npm start`, `svc setup --auto --no-pull`):
 * chat takes its whole native context, nearly free (engines/gguf/tiny-weights.ts,
 * TINY_MODEL_SHAPE), so the README's examples fit (its omni request with a tool server's tool
 * list is ~8,000 prompt tokens); embedding and reranking inputs are passages.
 */
export const TINY_DEMO_CONTEXT = { chat: 32768, vectors: 8192 } as const;

/** kokoro (text to speech) names its one model by this id: nothing to register or pull. */
export const KOKORO_MODEL_ID = 'kokoro';
/** moonshine (transcription) serves this model unless the slot names another. */
export const MOONSHINE_DEFAULT_MODEL = 'moonshine-small_streaming-en';

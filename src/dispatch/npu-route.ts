// The NPU direct routes (docs/routing.md, "NPU slots"; src/config/npu.ts):
// NPU embedding and transcription slots are shadows served by the NPU llm slot's engine
// (the anchor), so a request resolved to one goes to the anchor itself:
//   - /v1/embeddings on an enabled NPU embedding slot: straight to the anchor's engine when
//     the anchor is loaded (ready) and runs with [npu].embed; otherwise it is dispatched
//     normally, to the shadow slot (whose start starts the anchor, see the supervisor);
//   - /v1/audio/transcriptions on an NPU transcription slot: always straight to the anchor
//     (started on demand) when it runs with [npu].asr.
// The model sent stays the shadow's model id. Pure: it reads only its arguments.
import { isNpuShadow, npuAnchorOf } from '../config/npu.js';
import type { Resolution, SlotCandidate, V1Route } from './types.js';

type SlotResolution = Extract<Resolution, { kind: 'slot' }>;

export function npuDirectRoute<R extends Resolution>(resolution: R, route: V1Route, slots: readonly SlotCandidate[]): R | SlotResolution {
  if (resolution.kind !== 'slot') return resolution;
  const target = slots.find((s) => s.name === resolution.slot);
  if (!target || !target.enabled || !isNpuShadow(target)) return resolution;
  const need = route === 'embeddings' && target.type === 'embedding' ? 'embed' : route === 'transcriptions' && target.type === 'transcription' ? 'asr' : null;
  if (need === null) return resolution;
  const anchor = npuAnchorOf(slots.filter((s) => s.state !== 'disabled'));
  if (!anchor || !anchor.npu?.[need]) return resolution;
  if (need === 'embed' && anchor.state !== 'ready') return resolution;
  return { kind: 'slot', slot: anchor.name, model: resolution.model, via: 'npu-direct' };
}

// /v1/audio/speech bodies: a tts slot's defaults filled in for the fields a request leaves
// out, and the speed bounds checked (docs/routing.md, "POST /v1/audio/speech", and the
// TTS keys of "Slot config").
import { RequestError } from '../protocol/errors.js';

/** Speed bounds of the OpenAI speech API and of `[slot].default_speed`. Engines may clamp further. */
export const SPEED_MIN = 0.25;
export const SPEED_MAX = 4.0;

/** The TTS keys of a slot's `[slot]` section. */
export interface SpeechDefaults {
  default_voice: string | null;
  default_speed: number | null;
  default_response_format: string | null;
}

const INJECTED = [
  ['voice', 'default_voice'],
  ['speed', 'default_speed'],
  ['response_format', 'default_response_format'],
] as const;

/**
 * The body to forward: `body` with each of `voice`, `speed` and `response_format` that it
 * leaves out (absent or null) taken from the slot's default, when that default is set.
 * `defaults` is null for targets that are not slots (remote upstreams): nothing is
 * injected. Then `speed`, as sent or injected, must be a number in 0.25-4.0, else 400
 * request.invalid naming `speed`. The input is not changed; added keys go at the end.
 */
export function applySpeechDefaults(body: Readonly<Record<string, unknown>>, defaults: SpeechDefaults | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (defaults !== null) {
    for (const [field, key] of INJECTED) {
      if ((out[field] === undefined || out[field] === null) && defaults[key] !== null) out[field] = defaults[key];
    }
  }
  const speed = out.speed;
  if (speed !== undefined && speed !== null && (typeof speed !== 'number' || !Number.isFinite(speed) || speed < SPEED_MIN || speed > SPEED_MAX)) {
    const injected = body.speed === undefined || body.speed === null;
    throw new RequestError('request.invalid', `\`speed\` must be a number from ${SPEED_MIN} to ${SPEED_MAX}${injected ? " (this one is the slot's default_speed)" : ''}`, {
      problems: [{ path: 'speed', message: `expected a number from ${SPEED_MIN} to ${SPEED_MAX}, got ${JSON.stringify(speed)}` }],
    });
  }
  return out;
}

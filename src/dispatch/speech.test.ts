import { describe, expect, it } from 'vitest';
import { RequestError } from '../protocol/errors.js';
import { applySpeechDefaults, type SpeechDefaults } from './speech.js';

const none: SpeechDefaults = { default_voice: null, default_speed: null, default_response_format: null };
const kokoro: SpeechDefaults = { default_voice: 'af_bella', default_speed: 1.25, default_response_format: 'wav' };

function rejection(fn: () => unknown): RequestError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
  throw new Error('expected a RequestError');
}

describe('applySpeechDefaults', () => {
  it('fills voice, speed and response_format from the slot when the request leaves them out', () => {
    expect(applySpeechDefaults({ model: 'tts', input: 'hi' }, kokoro)).toEqual({ model: 'tts', input: 'hi', voice: 'af_bella', speed: 1.25, response_format: 'wav' });
  });

  it('treats null as left out', () => {
    expect(applySpeechDefaults({ input: 'hi', voice: null, speed: null, response_format: null }, kokoro)).toEqual({ input: 'hi', voice: 'af_bella', speed: 1.25, response_format: 'wav' });
  });

  it('keeps what the request sends', () => {
    const body = { input: 'hi', voice: 'am_adam', speed: 0.5, response_format: 'flac', extra: { x: 1 } };
    expect(applySpeechDefaults(body, kokoro)).toEqual(body);
  });

  it('injects nothing for unset defaults or a non-slot target, and leaves the input unchanged', () => {
    const body = { input: 'hi' };
    expect(applySpeechDefaults(body, none)).toEqual({ input: 'hi' });
    expect(applySpeechDefaults(body, null)).toEqual({ input: 'hi' });
    expect(applySpeechDefaults(body, { ...none, default_voice: 'v' })).toEqual({ input: 'hi', voice: 'v' });
    expect(body).toEqual({ input: 'hi' });
  });

  it('accepts speeds at the bounds', () => {
    expect(applySpeechDefaults({ speed: 0.25 }, null).speed).toBe(0.25);
    expect(applySpeechDefaults({ speed: 4 }, null).speed).toBe(4);
  });

  it.each([0.2, 4.01, 0, -1, '1.0', true, Number.NaN])('refuses speed %s with request.invalid naming speed', (speed) => {
    const error = rejection(() => applySpeechDefaults({ input: 'hi', speed }, kokoro));
    expect(error.code).toBe('request.invalid');
    expect(error.status).toBe(400);
    expect(error.message).toContain('speed');
    expect(error.details).toMatchObject({ problems: [{ path: 'speed' }] });
  });

  it('checks an injected speed too (a default outside the bounds, e.g. from a hand-built config)', () => {
    const error = rejection(() => applySpeechDefaults({ input: 'hi' }, { ...none, default_speed: 9 }));
    expect(error.code).toBe('request.invalid');
    expect(error.message).toContain('default_speed');
  });
});

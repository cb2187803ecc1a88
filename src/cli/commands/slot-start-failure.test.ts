import { describe, expect, it } from 'vitest';
import { ApiResponseError } from '../client.js';
import { startFailureMessage } from './slot-start-failure.js';

const failure = (code: string, details: Record<string, unknown>) => new ApiResponseError(502, { error: { code, message: 'slot chat: engine exited while loading (exit code 1)', details } });

describe('startFailureMessage', () => {
  it('an engine that failed: its last 10 stderr lines and the logs command', () => {
    const tail = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`).join('\n');
    expect(startFailureMessage(failure('slot.load_failed', { stderr_tail: tail }), 'chat')!.split('\n')).toEqual([
      'slot.load_failed: slot chat: engine exited while loading (exit code 1)',
      "the engine's last 10 lines on stderr:",
      ...Array.from({ length: 10 }, (_, i) => `  line ${i + 5}`),
      'its whole log: svc slot logs chat',
    ]);
  });

  it('says so when the engine wrote nothing', () => {
    expect(startFailureMessage(failure('slot.crash_loop', { stderr_tail: '' }), 'chat')).toContain("the engine wrote nothing to stderr\nits whole log: svc slot logs chat");
  });

  it('leaves other errors to the usual printing', () => {
    expect(startFailureMessage(failure('slot.model_missing', {}), 'chat')).toBeUndefined();
    expect(startFailureMessage(new Error('x'), 'chat')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { canCallTools } from './capability.js';

describe('canCallTools', () => {
  it('takes an upstream only when its entry says tool_calling = true', () => {
    expect(canCallTools({ kind: 'upstream', toolCalling: true })).toBe(true);
    expect(canCallTools({ kind: 'upstream', toolCalling: false })).toBe(false);
  });

  it('lets [slot].tool_calling decide when it is set, whatever the engine and template', () => {
    expect(canCallTools({ kind: 'slot', provider: 'kokoro', toolCalling: true, template: null })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'builtin', toolCalling: false, template: null })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: false, template: '{% for tool in tools %}' })).toBe(false);
  });

  it('detects: the built-in engine can; llama-server when the template mentions tools; other engines cannot', () => {
    expect(canCallTools({ kind: 'slot', provider: 'builtin', toolCalling: null, template: null })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: '{%- if tools %}{{ tools | tojson }}{% endif %}' })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: "{% for m in messages %}{{ m['tool_calls'] }}{% endfor %}" })).toBe(true);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: '{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}' })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'llama-server', toolCalling: null, template: null })).toBe(false);
    expect(canCallTools({ kind: 'slot', provider: 'flm', toolCalling: null, template: null })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { templateChoice } from './chat-template.js';

const noFile = () => {
  throw new Error('no file expected');
};

describe('templateChoice', () => {
  it("uses the model's own template without a flag, or with auto", () => {
    expect(templateChoice(null, null, noFile)).toEqual({ kind: 'model' });
    expect(templateChoice('auto', null, noFile)).toEqual({ kind: 'model' });
  });

  it("maps llama-server's template names onto node-llama-cpp wrappers", () => {
    expect(templateChoice('chatml', null, noFile)).toEqual({ kind: 'named', wrapper: 'chatML' });
    expect(templateChoice('llama3', null, noFile)).toEqual({ kind: 'named', wrapper: 'llama3' });
    expect(templateChoice('mistral-v7', null, noFile)).toEqual({ kind: 'named', wrapper: 'mistral' });
    expect(templateChoice('gpt-oss', null, noFile)).toEqual({ kind: 'named', wrapper: 'harmony' });
  });

  it('takes an inline Jinja template, or one from --chat-template-file', () => {
    const inline = "{% for m in messages %}{{ m['content'] }}{% endfor %}";
    expect(templateChoice(inline, null, noFile)).toEqual({ kind: 'jinja', template: inline });
    expect(templateChoice(null, '/t.jinja', (p) => `read ${p}`)).toEqual({ kind: 'jinja', template: 'read /t.jinja' });
  });

  it('names the accepted templates when it does not know one', () => {
    expect(() => templateChoice('vicuna', null, noFile)).toThrow(/--chat-template "vicuna" is not a template .* chatml, llama2/);
  });
});

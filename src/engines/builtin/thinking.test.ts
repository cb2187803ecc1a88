import { ChatMLChatWrapper, JinjaTemplateChatWrapper, QwenChatWrapper, type ChatHistoryItem, type ChatWrapper } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { thinkingWrapper } from './thinking.js';

const history: ChatHistoryItem[] = [{ type: 'user', text: 'hi' }, { type: 'model', response: [] }];
const rendered = (wrapper: ChatWrapper) => wrapper.generateContextState({ chatHistory: history }).contextText.toString();

/** A ChatML-style Jinja template that shows what it got for enable_thinking. */
const TEMPLATE = [
  '{% if enable_thinking is defined %}[enable_thinking={{ enable_thinking }}]{% endif %}',
  '{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}',
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}',
].join('');

describe('thinkingWrapper', () => {
  it('null keeps the wrapper; a value gives one variant per value, made once', () => {
    const base = new JinjaTemplateChatWrapper({ template: TEMPLATE, reasoning: null });
    expect(thinkingWrapper(base, null)).toBe(base);
    expect(thinkingWrapper(base, false)).toBe(thinkingWrapper(base, false));
    expect(thinkingWrapper(base, false)).not.toBe(thinkingWrapper(base, true));
  });

  it('a Jinja template gets enable_thinking as a template variable', () => {
    const base = new JinjaTemplateChatWrapper({ template: TEMPLATE, reasoning: null });
    expect(rendered(base)).not.toContain('[enable_thinking=');
    expect(rendered(thinkingWrapper(base, false))).toContain('[enable_thinking=false]<|im_start|>user\nhi');
    expect(rendered(thinkingWrapper(base, true))).toContain('[enable_thinking=true]');
  });

  it("Qwen's wrapper: false opens the answer with an empty thought", () => {
    const base = new QwenChatWrapper();
    const off = thinkingWrapper(base, false);
    expect(off).toBeInstanceOf(QwenChatWrapper);
    expect((off as QwenChatWrapper).thoughts).toBe('discourage');
    expect(rendered(off)).toMatch(/<think>\s*<\/think>/);
    expect(rendered(base)).not.toMatch(/<think>\s*<\/think>/);
  });

  it('a wrapper without a thinking switch (ChatML) is used as it is', () => {
    const base = new ChatMLChatWrapper();
    expect(thinkingWrapper(base, false)).toBe(base);
  });
});

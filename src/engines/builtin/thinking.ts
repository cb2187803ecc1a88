// enable_thinking for the built-in engine (`chat_template_kwargs.enable_thinking`, what the
// gateway sends from [slot].enable_thinking): a request's value picks a variant of the
// engine's chat wrapper, made once per value and kept.
// - A Jinja template (the model's own, or --chat-template) gets it as the template variable
//   `enable_thinking`, as llama-server passes it (node-llama-cpp's `reasoning` option).
// - Qwen's wrapper: false opens the answer with an empty thought, as Qwen3's template does
//   with enable_thinking=false (thoughts: "discourage"); true keeps the wrapper's own way.
// - Other wrappers (ChatML, Llama 3, ...) have no thinking switch: the value is accepted and
//   changes nothing.
import { JinjaTemplateChatWrapper, QwenChatWrapper, type ChatWrapper, type Tokenizer } from 'node-llama-cpp';

const variants = new WeakMap<ChatWrapper, Map<boolean, ChatWrapper>>();

/** The wrapper to render a request with: `wrapper` itself when `enable` is null. */
export function thinkingWrapper(wrapper: ChatWrapper, enable: boolean | null, tokenizer?: Tokenizer): ChatWrapper {
  if (enable === null) return wrapper;
  let byValue = variants.get(wrapper);
  if (!byValue) variants.set(wrapper, (byValue = new Map()));
  let variant = byValue.get(enable);
  if (!variant) byValue.set(enable, (variant = makeVariant(wrapper, enable, tokenizer)));
  return variant;
}

function makeVariant(wrapper: ChatWrapper, enable: boolean, tokenizer: Tokenizer | undefined): ChatWrapper {
  if (wrapper instanceof JinjaTemplateChatWrapper) {
    return new JinjaTemplateChatWrapper({
      template: wrapper.template,
      reasoning: enable,
      modelRoleName: wrapper.modelRoleName,
      userRoleName: wrapper.userRoleName,
      systemRoleName: wrapper.systemRoleName,
      ...(wrapper.convertUnsupportedSystemMessagesToUserMessages && { convertUnsupportedSystemMessagesToUserMessages: wrapper.convertUnsupportedSystemMessagesToUserMessages }),
      joinAdjacentMessagesOfTheSameType: wrapper.joinAdjacentMessagesOfTheSameType,
      trimLeadingWhitespaceInResponses: wrapper.trimLeadingWhitespaceInResponses,
      keepOnlyLastThought: wrapper.keepOnlyLastThought,
      ...(wrapper.additionalRenderParameters && { additionalRenderParameters: wrapper.additionalRenderParameters }),
      ...(tokenizer && { tokenizer }),
    });
  }
  if (wrapper instanceof QwenChatWrapper) {
    return new QwenChatWrapper({ variation: wrapper.variation, keepOnlyLastThought: wrapper.keepOnlyLastThought, thoughts: enable ? wrapper.thoughts : 'discourage' });
  }
  return wrapper;
}

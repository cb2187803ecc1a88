// The chat's settings: system prompt, temperature and max tokens, each checked as typed.
import { Field } from '../../components/field.js';
import type { Problems } from '../../field-problems.js';
import type { ChatSettingsInput } from './chat-params.js';

export function ChatSettings({ value, onChange, problems }: { value: ChatSettingsInput; onChange: (next: ChatSettingsInput) => void; problems: Problems }) {
  return (
    <>
      <Field label="System prompt" path="system" hint="Sent first, before the conversation; blank sends none.">
        <textarea rows={3} value={value.system} onChange={(e) => onChange({ ...value, system: e.target.value })} data-testid="chat-system" />
      </Field>
      <div className="playground-pair">
        <Field label="Temperature" path="temperature" problem={problems.temperature} hint="0 to 2; blank: the engine's default">
          <input inputMode="decimal" value={value.temperature} onChange={(e) => onChange({ ...value, temperature: e.target.value })} data-testid="chat-temperature" />
        </Field>
        <Field label="Max tokens" path="max_tokens" problem={problems.max_tokens} hint="blank: until the model stops">
          <input inputMode="numeric" value={value.maxTokens} onChange={(e) => onChange({ ...value, maxTokens: e.target.value })} data-testid="chat-max-tokens" />
        </Field>
      </div>
      <Field label="More fields (JSON)" path="extra" problem={problems.extra} hint='Added to the request, e.g. {"top_p": 0.9, "seed": 1}'>
        <textarea rows={2} value={value.extra} onChange={(e) => onChange({ ...value, extra: e.target.value })} data-testid="chat-extra" spellCheck={false} />
      </Field>
    </>
  );
}

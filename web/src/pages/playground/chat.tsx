// Chat against a chat model from /v1/models, streamed, with a Stop button, the settings beside
// the conversation, and svc's own overhead on each answer.
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { Field } from '../../components/field.js';
import { readChatParams, type ChatSettingsInput } from './chat-params.js';
import { ChatSettings } from './chat-settings.js';
import { Conversation } from './conversation.js';
import { ModelPicker, NoModels } from './model-picker.js';
import type { ModelOption } from './model-kinds.js';
import { useChat } from './use-chat.js';

export function Chat({ options, model, onModel }: { options: readonly ModelOption[]; model: string; onModel: (id: string) => void }) {
  const chat = useChat();
  const [settings, setSettings] = useState<ChatSettingsInput>({ system: '', temperature: '0.8', maxTokens: '256', extra: '' });
  const [draft, setDraft] = useState('');
  const { params, problems } = readChatParams(settings);
  const canSend = model !== '' && draft.trim() !== '' && Object.keys(problems).length === 0 && !chat.streaming;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    void chat.send({ model, system: settings.system, params, message: draft });
    setDraft('');
  };
  // Enter sends, Shift+Enter is a new line (as in every chat box).
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <div className="playground-chat">
      <div className="card">
        <h2>Settings</h2>
        {options.length === 0 ? <NoModels tool="chat" /> : <ModelPicker tool="chat" options={options} value={model} onChange={onModel} />}
        <ChatSettings value={settings} onChange={setSettings} problems={problems} />
      </div>
      <div className="card">
        <div className="playground-head">
          <h2>Conversation</h2>
          <button type="button" onClick={chat.clear} disabled={chat.streaming || chat.turns.length === 0}>
            Clear
          </button>
        </div>
        <Conversation turns={chat.turns} />
        <form onSubmit={submit}>
          <Field label="Message" path="message" hint="Enter sends; Shift+Enter starts a new line.">
            <textarea rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} data-testid="chat-message" />
          </Field>
          <div className="actions">
            <button type="button" className="danger" onClick={chat.stop} disabled={!chat.streaming} data-testid="chat-stop">
              Stop
            </button>
            <button type="submit" className="primary" disabled={!canSend} data-testid="chat-send">
              Send
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

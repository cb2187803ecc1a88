// The slot file's keys that the slot API does not write (workers, timeouts, TTS defaults,
// [model].path, n_gpu_layers, [npu], [image], …), shown read-only with their values as
// validated: they are edited in the file on the host, and `svc settings reload` (or any
// slot write) picks them up.
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';

/** Keys the form edits, as section.key. */
const FORM_KEYS = new Set(['slot.name', 'slot.port', 'slot.type', 'slot.device', 'slot.provider', 'slot.profile', 'slot.enabled', 'model.default', 'model.context_size', 'server.extra_args', 'server.env']);

/** The file's other keys as [section.key, value shown], in file order. */
export function otherKeys(config: SlotDetailPayload['config']): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [section, table] of Object.entries(config)) {
    for (const [key, value] of Object.entries(table)) {
      if (!FORM_KEYS.has(`${section}.${key}`)) out.push([`${section}.${key}`, value === null ? 'not set (default)' : JSON.stringify(value)]);
    }
  }
  return out;
}

export function FileKeys({ slot }: { slot: SlotDetailPayload }) {
  const keys = otherKeys(slot.config);
  return (
    <details className="card file-keys" data-testid="file-keys">
      <summary>The file's other keys ({keys.length}), read-only here</summary>
      <p className="muted">
        The slot API does not write these: edit <code>{slot.file}</code> on the host; the next slot change or a settings reload picks them up.
      </p>
      <dl className="facts">
        {keys.map(([key, value]) => (
          <div key={key} className="fact">
            <dt>
              <code>{key}</code>
            </dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

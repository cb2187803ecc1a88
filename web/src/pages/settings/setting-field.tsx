// One svc.toml key as a form control, generated from its schema entry: the control fits
// its type (checkbox, list, one line per array item, text), the hint says what the schema
// says (description, type, bounds, default, how a change applies), and a key this caller
// may not change is read-only with the reason.
import type { SettingDescription } from '../../../../src/protocol/settings-wire.js';
import { Field } from '../../components/field.js';
import { boundsOf, type Draft } from './check.js';
import { applyWords, shown } from './edits.js';

export interface SettingFieldProps {
  description: SettingDescription;
  draft: Draft;
  onDraft: (draft: Draft) => void;
  problem: string | undefined;
  changed: boolean;
  readOnly: string | undefined;
  envOverride: { env: string; value: unknown } | undefined;
}

function hintOf({ description, readOnly, envOverride }: SettingFieldProps): string {
  const bounds = boundsOf(description);
  const facts = [
    `${description.type}${description.nullable ? ' or none (leave empty)' : ''}${bounds ? `, ${bounds}` : ''}`,
    `default ${shown(description.default)}`,
    applyWords(description.apply_class),
  ];
  const lines = [description.description, facts.join(' · ')];
  if (description.unread) lines.push('Nothing in this release reads it yet: it is accepted and validated only.');
  if (envOverride) lines.push(`${envOverride.env}=${shown(envOverride.value)} overrides it while set.`);
  if (readOnly) lines.push(`Read-only here: ${readOnly}.`);
  return lines.filter(Boolean).join('\n');
}

/** Field gives its control an id and aria attributes: passed on to the element here. */
type Wiring = { id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };

function Control({ description, draft, onDraft, readOnly, ...aria }: Pick<SettingFieldProps, 'description' | 'draft' | 'onDraft' | 'readOnly'> & Wiring) {
  const locked = readOnly !== undefined;
  if (description.type === 'boolean') {
    return <input {...aria} type="checkbox" checked={draft === true} disabled={locked} onChange={(e) => onDraft(e.target.checked)} />;
  }
  if (description.enum) {
    const options = description.enum.map(String);
    return (
      <select {...aria} value={String(draft)} disabled={locked} onChange={(e) => onDraft(e.target.value)}>
        {!options.includes(String(draft)) && <option value={String(draft)}>{String(draft)}</option>}
        {options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  }
  if (description.type.startsWith('array<')) {
    return <textarea {...aria} rows={Math.max(2, String(draft).split('\n').length)} value={String(draft)} readOnly={locked} onChange={(e) => onDraft(e.target.value)} />;
  }
  const numeric = description.type === 'integer' || description.type === 'number';
  return (
    <input
      {...aria}
      type="text"
      inputMode={numeric ? (description.type === 'integer' ? 'numeric' : 'decimal') : undefined}
      spellCheck={false}
      value={String(draft)}
      readOnly={locked}
      placeholder={description.nullable ? 'none' : undefined}
      onChange={(e) => onDraft(e.target.value)}
    />
  );
}

export function SettingField(props: SettingFieldProps) {
  const { description, changed, readOnly } = props;
  const name = description.key.split('.').slice(1).join('.');
  const classes = ['setting', changed && 'setting-changed', description.unread && 'setting-unread', readOnly && 'setting-locked'].filter(Boolean).join(' ');
  return (
    <div className={classes} title={readOnly}>
      <Field label={changed ? `${name} (changed)` : name} hint={hintOf(props)} problem={props.problem} path={description.key}>
        <Control description={props.description} draft={props.draft} onDraft={props.onDraft} readOnly={readOnly} />
      </Field>
    </div>
  );
}

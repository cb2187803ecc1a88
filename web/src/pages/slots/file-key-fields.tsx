// The slot file's keys without a field of their own, one generated control each (file-fields.ts),
// grouped by the file's tables: a select for booleans and enumerations (its empty choice
// removes the key, so the default applies), a number or text input for the rest. The
// description and the default come from the slot file's schema.
import { Field } from '../../components/field.js';
import type { FileControl } from './file-fields.js';

export interface FileKeyFieldsProps {
  controls: readonly FileControl[];
  values: Readonly<Record<string, string>>;
  set(path: string, text: string): void;
  problem(path: string): string | undefined;
  hostAuthority: boolean;
}

function hintOf(control: FileControl, hostAuthority: boolean): string {
  const fallback = control.defaultText === '' ? 'empty: not set' : `empty: the default, ${control.defaultText}`;
  const host = control.hostFile && !hostAuthority ? ' A file on the host here needs this host or an admin token.' : '';
  return `${control.description} (${fallback}).${host}`;
}

interface ControlProps {
  control: FileControl;
  value: string;
  set(text: string): void;
  /** From <Field>: the id its label names, and the aria attributes of its hint and problem. */
  [aria: string]: unknown;
}

function Control({ control, value, set, ...labelled }: ControlProps) {
  const onChange = (event: { target: { value: string } }) => set(event.target.value);
  if (control.kind === 'boolean' || control.kind === 'enum') {
    return (
      <select {...labelled} value={value} onChange={onChange}>
        <option value="">{control.defaultText === '' ? '(not set)' : `(default: ${control.defaultText})`}</option>
        {control.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  }
  if (control.kind === 'text' || control.kind === 'list') return <input {...labelled} value={value} onChange={onChange} placeholder={control.defaultText} autoComplete="off" />;
  return <input {...labelled} value={value} onChange={onChange} placeholder={control.defaultText} type="number" step={control.kind === 'integer' ? 1 : 'any'} inputMode="decimal" />;
}

export function FileKeyFields({ controls, values, set, problem, hostAuthority }: FileKeyFieldsProps) {
  const sections = [...new Set(controls.map((control) => control.section))];
  return (
    <>
      {sections.map((section) => (
        <fieldset key={section} className="file-section" data-testid={`file-section-${section}`}>
          <legend>[{section}]</legend>
          <div className="form-grid">
            {controls
              .filter((control) => control.section === section)
              .map((control) => (
                <Field key={control.path} label={control.key} problem={problem(control.path)} hint={hintOf(control, hostAuthority)} path={control.path}>
                  <Control control={control} value={values[control.path] ?? ''} set={(text) => set(control.path, text)} />
                </Field>
              ))}
          </div>
        </fieldset>
      ))}
    </>
  );
}

// The schema's keys as grouped fieldsets: the spec's Advanced panel, then the rest of svc.toml.
import type { SettingDescription, SettingsPayload } from '../../../../src/protocol/settings-wire.js';
import type { Problems } from '../../field-problems.js';
import { checkFor, draftOf, type Draft } from './check.js';
import { valueAt } from './edits.js';
import type { SettingsGroup } from './groups.js';
import { SettingField } from './setting-field.js';

export interface GroupsProps {
  groups: SettingsGroup[];
  current: SettingsPayload;
  drafts: Readonly<Record<string, Draft>>;
  changed: ReadonlySet<string>;
  serverProblems: Problems;
  readOnlyReason: (key: string) => string | undefined;
  onDraft: (key: string, draft: Draft) => void;
}

/** The problem beside a key: the browser's check of its draft first, else what the server said. */
export function problemOf(description: SettingDescription, draft: Draft | undefined, serverProblems: Problems): string | undefined {
  if (draft !== undefined) {
    const checked = checkFor(description)(draft);
    if (!checked.ok) return checked.problem;
  }
  return serverProblems[description.key];
}

function Group({ group, ...props }: GroupsProps & { group: SettingsGroup }) {
  const { current, drafts, changed, serverProblems, readOnlyReason, onDraft } = props;
  return (
    <fieldset className="card settings-group" data-testid={`group-${group.id}`}>
      <legend>
        {group.title} <span className="muted">{group.sections.map((s) => `[${s}]`).join(' ')}</span>
      </legend>
      {group.keys.map((description) => {
        const draft = drafts[description.key];
        const override = current.env_overrides.find((o) => o.key === description.key);
        return (
          <SettingField
            key={description.key}
            description={description}
            draft={draft ?? draftOf(description, valueAt(current.settings, description.key))}
            onDraft={(next) => onDraft(description.key, next)}
            problem={problemOf(description, draft, serverProblems)}
            changed={changed.has(description.key)}
            readOnly={readOnlyReason(description.key)}
            envOverride={override}
          />
        );
      })}
    </fieldset>
  );
}

export function SettingsGroups(props: GroupsProps) {
  const advanced = props.groups.filter((g) => g.advanced);
  const rest = props.groups.filter((g) => !g.advanced);
  return (
    <>
      <h2>Advanced</h2>
      <div className="settings-groups">
        {advanced.map((group) => (
          <Group key={group.id} group={group} {...props} />
        ))}
      </div>
      <h2>The rest of svc.toml</h2>
      <div className="settings-groups">
        {rest.map((group) => (
          <Group key={group.id} group={group} {...props} />
        ))}
      </div>
    </>
  );
}

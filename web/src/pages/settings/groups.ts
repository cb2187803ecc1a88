// How the Settings page groups svc.toml's keys: first the spec's "Settings > Advanced"
// panel (Slots runtime, Dispatcher, Memory with its reranker keys, Memory graph extraction,
// Activity log), then every other section of svc.toml under its own name, so every key the
// schema describes has a place, a section this page has never heard of included.
import type { SettingDescription } from '../../../../src/protocol/settings-wire.js';

export interface SettingsGroup {
  id: string;
  title: string;
  /** The svc.toml tables it holds, for the heading ("[memory.embedding]"). */
  sections: string[];
  keys: SettingDescription[];
  /** Part of the spec's Advanced panel (else one of the rest of svc.toml). */
  advanced: boolean;
}

const ADVANCED: ReadonlyArray<{ id: string; title: string; sections: string[] }> = [
  { id: 'slots', title: 'Slots runtime', sections: ['slots'] },
  { id: 'dispatcher', title: 'Dispatcher', sections: ['dispatcher'] },
  { id: 'memory', title: 'Memory', sections: ['memory', 'memory.embedding'] },
  { id: 'memory-graph', title: 'Memory graph extraction', sections: ['memory.graph'] },
  { id: 'activity', title: 'Activity log', sections: ['activity'] },
];

/** Titles of the other sections; one missing here is titled by its table name. */
const OTHER_TITLES: Readonly<Record<string, string>> = {
  models: 'Models',
  api: 'API',
  engines: 'Engines',
  updates: 'Updates',
  telemetry: 'Telemetry',
  meta: 'File layout',
};

/** The schema's keys in groups, each in the schema's order; empty groups are left out. */
export function groupSettings(keys: readonly SettingDescription[]): SettingsGroup[] {
  const groups: SettingsGroup[] = ADVANCED.map((g) => ({ ...g, sections: [...g.sections], keys: [], advanced: true }));
  const bySection = new Map<string, SettingsGroup>();
  for (const group of groups) for (const section of group.sections) bySection.set(section, group);
  for (const key of keys) {
    let group = bySection.get(key.section);
    if (!group) {
      // A sub-table of another section (engines.x.y) joins its top section's group.
      const top = key.section.split('.')[0] ?? key.section;
      group = bySection.get(top);
      if (!group) {
        group = { id: top, title: OTHER_TITLES[top] ?? `[${top}]`, sections: [top], keys: [], advanced: false };
        groups.push(group);
        bySection.set(top, group);
      }
      if (!group.sections.includes(key.section)) group.sections.push(key.section);
    }
    group.keys.push(key);
  }
  return groups.filter((g) => g.keys.length > 0);
}

// The svc.toml reference in docs/configuration.md, rendered from describeSettings so the
// document can never drift from the schema. scripts/gen-config-docs.mjs writes it (from
// dist/) and docs.test.ts fails when the committed copy differs.
import type { SettingDescription } from './settings.js';

export const GENERATED_BEGIN = '<!-- BEGIN GENERATED: svc.toml -->';
export const GENERATED_END = '<!-- END GENERATED: svc.toml -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (text: string) => `\`${text}\``;

function formatValue(value: unknown, type: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' && type === 'number' && Number.isInteger(value)) return value.toFixed(1);
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  return JSON.stringify(value);
}

function typeOf(d: SettingDescription): string {
  // `array<string>` would read as an HTML tag in rendered markdown.
  const base = d.enum ? `one of ${d.enum.map((v) => code(String(v))).join(', ')}` : d.type.replace(/^array<(.+)>$/, 'array of $1');
  return d.nullable ? `${base} or null` : base;
}

function boundsOf(d: SettingDescription): string {
  if (d.exclusive_minimum !== undefined) return `> ${d.exclusive_minimum}`;
  if (d.minimum !== undefined && d.maximum !== undefined) return `${d.minimum} to ${d.maximum}`;
  if (d.minimum !== undefined) return `>= ${d.minimum}`;
  if (d.maximum !== undefined) return `<= ${d.maximum}`;
  return '';
}

const nameOf = (d: SettingDescription) => d.key.slice(d.section.length + 1);

function row(d: SettingDescription): string {
  const cells = [code(nameOf(d)), typeOf(d), code(formatValue(d.default, d.type)), boundsOf(d), code(d.apply_class), d.description];
  return `| ${cells.map(cell).join(' | ')} |`;
}

const sectionsOf = (descriptions: readonly SettingDescription[]) => [...new Set(descriptions.map((d) => d.section))];

/**
 * One table per section, in schema order, of the keys svc reads; the keys nothing reads yet
 * (KeyMeta.unread) in one line at the end, so the reference never documents them as features.
 */
export function renderSettingsReference(descriptions: readonly SettingDescription[]): string {
  const read = descriptions.filter((d) => !d.unread);
  const parts = [
    '<!-- Generated from the schema by `node scripts/gen-config-docs.mjs`; edit src/config/schema/svc-toml.ts, not this block. -->',
  ];
  for (const section of sectionsOf(read)) {
    parts.push(
      `#### \`[${section}]\``,
      ['| Key | Type | Default | Bounds | Applies | Description |', '|---|---|---|---|---|---|', ...read.filter((d) => d.section === section).map(row)].join('\n'),
    );
  }
  const unread = unreadNames(descriptions);
  if (unread.length > 0) parts.push('#### Not read yet', `Accepted and validated, not read yet: ${unread.join(', ')}.`);
  return `${parts.join('\n\n')}\n`;
}

/** The keys nothing reads: a section whose every key is unread by its name, other keys one by one. */
export function unreadNames(descriptions: readonly SettingDescription[]): string[] {
  return sectionsOf(descriptions).flatMap((section) => {
    const keys = descriptions.filter((d) => d.section === section);
    if (keys.every((d) => d.unread)) return [code(`[${section}]`)];
    return keys.filter((d) => d.unread).map((d) => code(`[${section}].${nameOf(d)}`));
  });
}

/** The text between the markers, or undefined when the document lacks them. */
export function extractGeneratedBlock(doc: string): string | undefined {
  const begin = doc.indexOf(GENERATED_BEGIN);
  const end = doc.indexOf(GENERATED_END);
  if (begin < 0 || end < begin) return undefined;
  return doc.slice(begin + GENERATED_BEGIN.length, end).replace(/^\n/, '');
}

/** The document with the text between the markers replaced; throws when the markers are missing. */
export function replaceGeneratedBlock(doc: string, rendered: string): string {
  const begin = doc.indexOf(GENERATED_BEGIN);
  const end = doc.indexOf(GENERATED_END);
  if (begin < 0 || end < begin) throw new Error(`the document lacks the markers ${GENERATED_BEGIN} ... ${GENERATED_END}`);
  return `${doc.slice(0, begin + GENERATED_BEGIN.length)}\n${rendered}${doc.slice(end)}`;
}

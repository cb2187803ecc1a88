// KEY=VALUE environment files (api.env, openwebui.env), as systemd's EnvironmentFile reads
// them: one assignment a line, `#` comments, optional quotes. The gateway reads api.env as
// defaults beneath its own environment, so `svc auth enable` works without a service manager.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomic.js';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

function unquote(value: string): string {
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) return value.slice(1, -1);
  return value;
}

export function parseEnvText(text: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line)) continue;
    const match = LINE.exec(line);
    if (match) entries[match[1]!] = unquote(match[2]!);
  }
  return entries;
}

/** The file's assignments; a missing file is empty. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  try {
    return parseEnvText(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/** The text with each entry set (undefined removes it); other lines and comments stay as they are. */
export function updateEnvText(text: string, entries: Readonly<Record<string, string | undefined>>): string {
  const pending = new Map(Object.entries(entries));
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    const key = LINE.exec(line)?.[1];
    if (key === undefined || !pending.has(key) || /^\s*#/.test(line)) {
      kept.push(line);
      continue;
    }
    const value = pending.get(key);
    pending.delete(key);
    if (value !== undefined) kept.push(`${key}=${value}`);
  }
  for (const [key, value] of pending) if (value !== undefined) kept.push(`${key}=${value}`);
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}

/** Set entries in an env file atomically, creating it (mode 0644 unless given) when missing. */
export async function writeEnvFile(path: string, entries: Readonly<Record<string, string | undefined>>, mode = 0o644): Promise<void> {
  const before = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  await writeFileAtomic(path, updateEnvText(before, entries), { mode });
}

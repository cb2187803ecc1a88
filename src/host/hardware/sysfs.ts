// Reading the kernel's pseudo-files (sysfs, procfs, device nodes) for the hardware probe.
// Every read is asynchronous and forgiving: a file that is missing or unreadable on this
// kernel is null (or empty), never an error, so a probe on an unusual host still answers.
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';

export const MiB = 1024 * 1024;

const PCI_SLOT = /^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

/** The file's text (trimmed unless told not to); null when it cannot be read. */
export async function readText(path: string, trim = true): Promise<string | null> {
  try {
    const text = await readFile(path, 'utf8');
    return trim ? text.trim() : text;
  } catch {
    return null;
  }
}

/** A sysfs byte count as MiB; null when missing or not a number. */
export async function readMb(path: string): Promise<number | null> {
  const text = await readText(path);
  if (text === null || !/^\d+$/.test(text)) return null;
  return Math.floor(Number(text) / MiB);
}

export async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The basename of a symlink's target (sysfs `driver` → "amdgpu"), without needing the target. */
export async function linkName(path: string): Promise<string | null> {
  try {
    return basename(await readlink(path)) || null;
  } catch {
    return null;
  }
}

/** A device's PCI address: its sysfs link, where it resolves to, or PCI_SLOT_NAME in its uevent. */
export async function pciSlotOf(device: string, uevent: Record<string, string>): Promise<string | null> {
  let name = await linkName(device);
  if (!name || !PCI_SLOT.test(name)) {
    try {
      name = basename(await realpath(device));
    } catch {
      name = null;
    }
  }
  if (name && PCI_SLOT.test(name)) return name.toLowerCase();
  return uevent.PCI_SLOT_NAME ? normalisePciSlot(uevent.PCI_SLOT_NAME) : null;
}

/** "00000000:01:00.0" (nvidia-smi) and "0000:01:00.0" (sysfs) → "0000:01:00.0". */
export function normalisePciSlot(value: string): string | null {
  const match = /^([0-9a-f]+):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(value.trim());
  if (!match) return null;
  const [, domain = '0', bus, dev, fn] = match;
  return `${parseInt(domain, 16).toString(16).padStart(4, '0')}:${bus}:${dev}.${fn}`.toLowerCase();
}

/** A sysfs `uevent` file's KEY=value lines. */
export function parseUevent(text: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1).trim();
  }
  return out;
}

/** Orders card0, card1, … card10 by their number, not as text. */
export function byNumber(a: string, b: string): number {
  return Number(/\d+$/.exec(a)?.[0] ?? 0) - Number(/\d+$/.exec(b)?.[0] ?? 0);
}

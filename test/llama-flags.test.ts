// The host-only policy reads llama-server's command line from a table (src/engines/
// llama-server/flag-dialect.ts). A table that drifts from the binary is a bypass: a missed
// alias (-mm for --mmproj) or a LAN flag that takes a value the table thinks it does not
// (it would hide the next token). This reads the real binary's --help and checks the table.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { llamaServerDialect } from '../src/engines/llama-server/flag-dialect.js';
import type { FlagGroup } from '../src/engines/flag-rules.js';
import { llamaServerPath, llamaServerSkipReason } from './helpers/llama.js';

const binary = llamaServerPath();

interface HelpEntry {
  spellings: string[];
  value: boolean;
}

/** "-n,    --predict, --n-predict N     help…": the spellings and whether a value hint follows. */
function helpEntries(help: string): HelpEntry[] {
  return help.split('\n').filter((line) => /^-/.test(line) && !line.startsWith('-----')).map((line) => {
    // The spellings and value hint end where two spaces start the help text (or the line ends: long heads wrap it).
    const head = line.trim().replace(/,\s+/g, ', ').split(/\s{2,}/)[0]!;
    const words = head.split(/,\s*|\s+/).filter(Boolean);
    const spellings = words.filter((word) => /^-[^\s]/.test(word) && !/^-\d/.test(word));
    return { spellings, value: words.length > spellings.length };
  });
}

const groupOf = (spelling: string): FlagGroup | undefined => llamaServerDialect.groups.find((group) => group.spellings.includes(spelling));

describe.skipIf(!binary)(`llama-server's flags ${binary ? '' : llamaServerSkipReason()}`, () => {
  const help = binary ? spawnSync(binary, ['--help'], { encoding: 'utf8' }).stdout : '';
  const entries = helpEntries(help);

  it('reads a full help text', () => {
    expect(entries.length).toBeGreaterThan(200);
  });

  it('knows every spelling the binary accepts', () => {
    const unknown = entries.flatMap((entry) => entry.spellings).filter((spelling) => !groupOf(spelling));
    expect(unknown).toEqual([]);
  });

  it('classes every spelling of one flag alike (no alias of a LAN flag is host-only, or the reverse)', () => {
    const mixed = entries.filter((entry) => new Set(entry.spellings.map((s) => groupOf(s)?.lan)).size > 1).map((entry) => entry.spellings.join(' '));
    expect(mixed).toEqual([]);
  });

  it('agrees with the binary on which LAN flags take a value', () => {
    const wrong = entries.filter((entry) => entry.spellings.some((s) => groupOf(s)?.lan && groupOf(s)!.value !== entry.value)).map((entry) => `${entry.spellings.join(' ')} value=${entry.value}`);
    expect(wrong).toEqual([]);
  });

  it('lists as LAN flags only flags the binary has', () => {
    const known = new Set(entries.flatMap((entry) => entry.spellings));
    const invented = llamaServerDialect.groups.filter((group) => group.lan).flatMap((group) => group.spellings).filter((s) => !known.has(s));
    expect(invented).toEqual([]);
  });
});

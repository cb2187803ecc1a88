import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DROP_IN_DIR, DROP_IN_FILE, dropInText, notApplicable, propagateToHindsight } from './drop-in.js';

// The hal0 original's text, with its name and model prefix made svc's.
const EXPECTED = '# Managed by svc (ADR-0023 — memory.graph.extraction_slot / llm_timeout_s).\n# Overrides HINDSIGHT_API_LLM_MODEL and HINDSIGHT_API_LLM_TIMEOUT in the base\n# hindsight-api.service unit. Do not edit by hand; set via `svc memory graph\n# enable --slot <name>` or the dashboard, which rewrites this file and\n# restarts the service.\n[Service]\nEnvironment=HINDSIGHT_API_LLM_MODEL=svc/utility\nEnvironment=HINDSIGHT_API_LLM_TIMEOUT=300\n';

describe('the hindsight drop-in', () => {
  it('is the reference text, byte for byte', () => {
    expect(dropInText('utility', 300)).toBe(EXPECTED);
    expect(DEFAULT_DROP_IN_DIR).toBe('/etc/systemd/system/hindsight-api.service.d');
  });

  it('is written atomically over the old one; without systemd the reload is reported, not thrown', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-dropin-')), 'hindsight-api.service.d');
    const first = await propagateToHindsight('utility', 300, { dir, systemdRunning: () => false });
    expect(readFileSync(join(dir, DROP_IN_FILE), 'utf8')).toBe(EXPECTED);
    writeFileSync(join(dir, 'other.conf'), 'kept');
    const second = await propagateToHindsight('graph-slot', 45, { dir, systemdRunning: () => false });
    expect(second).toMatchObject({ applicable: true, slot: 'graph-slot', model: 'svc/graph-slot', timeout_s: 45, drop_in: join(dir, DROP_IN_FILE), written: true, daemon_reloaded: false, restarted: false });
    expect(second.error).toMatch(/systemd is not running/);
    expect(first.written).toBe(true);
    expect(readFileSync(join(dir, DROP_IN_FILE), 'utf8')).toBe(EXPECTED.replace('svc/utility', 'svc/graph-slot').replace('TIMEOUT=300', 'TIMEOUT=45'));
    expect(readdirSync(dir).sort()).toEqual([DROP_IN_FILE, 'other.conf']); // no temp file left
  });

  it('a directory it cannot write is an error in the report', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-dropin-')), 'a-file');
    writeFileSync(file, '');
    const report = await propagateToHindsight('utility', 300, { dir: join(file, 'sub'), systemdRunning: () => false });
    expect(report).toMatchObject({ written: false, daemon_reloaded: false, restarted: false });
    expect(report.error).toMatch(/could not write/);
  });

  it('on another engine nothing applies', () => {
    expect(notApplicable('utility', 300, 'pgvector')).toMatchObject({ applicable: false, drop_in: null, written: false, error: null, note: expect.stringContaining('pgvector') });
  });
});

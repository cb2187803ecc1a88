// The error catalogue and docs/errors.md must list the same codes with the same statuses
// (DESIGN.md, Errors): a code added in one place and not the other fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, DispatchError, ERROR_CODES, isErrorEnvelope, RequestError, SvcError, type ErrorCode } from './errors.js';

const DOC = new URL('../../docs/errors.md', import.meta.url);

/** Rows of the code table: | `code` | 404 | when |. */
function documentedCodes(markdown: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const match of markdown.matchAll(/^\|\s*`([^`]+)`\s*\|\s*(\d{3})\s*\|.*\|\s*$/gm)) {
    const [, code, status] = match;
    if (rows.has(code!)) throw new Error(`docs/errors.md lists ${code} twice`);
    rows.set(code!, Number(status));
  }
  return rows;
}

describe('docs/errors.md', () => {
  const documented = documentedCodes(readFileSync(DOC, 'utf8'));
  const catalogue = Object.entries(ERROR_CODES);

  it('has a table row', () => {
    expect(documented.size).toBeGreaterThan(0);
  });

  it('documents every code of the catalogue with its status', () => {
    const missing = catalogue.filter(([code]) => !documented.has(code)).map(([code]) => code);
    expect(missing, 'codes in ERROR_CODES but not in docs/errors.md').toEqual([]);
    const wrong = catalogue
      .filter(([code, info]) => documented.has(code) && documented.get(code) !== info.status)
      .map(([code, info]) => `${code}: catalogue ${info.status}, docs ${documented.get(code)}`);
    expect(wrong, 'statuses that differ between ERROR_CODES and docs/errors.md').toEqual([]);
  });

  it('documents no code the catalogue lacks', () => {
    const extra = [...documented.keys()].filter((code) => !(code in ERROR_CODES));
    expect(extra, 'codes in docs/errors.md but not in ERROR_CODES').toEqual([]);
  });
});

describe('ERROR_CODES', () => {
  it('names every code namespace.name and maps it to an HTTP error status', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+\.[a-z][a-z_]*$/);
      // One exception (docs/agents.md): an uninstall that removed part is 207 (Multi-Status).
      expect(info.status).toBeGreaterThanOrEqual(code === 'agent.uninstall_incomplete' ? 207 : 400);
      expect(info.status).toBeLessThan(600);
      expect(info.when.length).toBeGreaterThan(0);
    }
  });

  it('holds only codes some source file raises (a code nothing raises documents a feature that does not exist)', () => {
    const src = fileURLToPath(new URL('..', import.meta.url));
    const sources = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'protocol/errors.ts')
      .map((file) => readFileSync(`${src}/${file}`, 'utf8'))
      .join('\n');
    const unraised = Object.keys(ERROR_CODES).filter((code) => !new RegExp(`['"\`]${code.replace('.', '\\.')}['"\`:]`).test(sources));
    expect(unraised, 'codes in ERROR_CODES that no file under src/ names').toEqual([]);
  });

  it('includes the codes the spec names', () => {
    const spec: Record<string, number> = { 'request.missing_model': 400 };
    for (const [code, status] of Object.entries(spec)) expect(ERROR_CODES[code as ErrorCode].status).toBe(status);
    expect(ERROR_CODES['slot.not_ready']).toBeDefined();
  });
});

describe('SvcError', () => {
  it('takes its status from the catalogue and renders the envelope', () => {
    const error = new SvcError('slot.not_ready', 'slot chat is warming', { slot: 'chat', state: 'warming' });
    expect(error.status).toBe(503);
    expect(error.toEnvelope()).toEqual({ error: { code: 'slot.not_ready', message: 'slot chat is warming', details: { slot: 'chat', state: 'warming' } } });
    expect(isErrorEnvelope(error.toEnvelope())).toBe(true);
  });

  it('defaults details to an empty object and keeps the cause', () => {
    const cause = new Error('disk full');
    const error = new ConfigError('config.write_failed', 'cannot write svc.toml', undefined, { cause });
    expect(error.status).toBe(500);
    expect(error.toEnvelope().error.details).toEqual({});
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(SvcError);
  });

  it('gives each namespaced subclass the status of its code', () => {
    expect(new RequestError('request.unknown_route', 'no route').status).toBe(404);
    expect(new RequestError('request.too_large', 'too big').status).toBe(413);
    expect(new DispatchError('model.not_found', 'no such model').status).toBe(404);
  });

  it('recognises envelopes and nothing else', () => {
    expect(isErrorEnvelope({ error: { code: 'x.y', message: '', details: {} } })).toBe(true);
    expect(isErrorEnvelope({ error: 'Service Unavailable' })).toBe(false);
    expect(isErrorEnvelope(null)).toBe(false);
  });
});

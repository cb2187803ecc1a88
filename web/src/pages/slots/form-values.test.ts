import { describe, expect, it } from 'vitest';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { createBody, editBody, EMPTY_FORM, formatEnv, numberOf, parseEnv, valuesOfDetail } from './form-values.js';

describe('slot form values', () => {
  it('reads number inputs: empty is not given, digits a number, other text stays for the schema to name', () => {
    expect(numberOf('  ')).toBeUndefined();
    expect(numberOf('8090')).toBe(8090);
    expect(numberOf('80x')).toBe('80x');
  });

  it('parses NAME=value lines, keeping "=" in values and naming bad lines', () => {
    expect(parseEnv('A=1\n\nB=x=y\nnope\n=v')).toEqual({ env: { A: '1', B: 'x=y' }, problems: ['line 4: expected NAME=value', 'line 5: expected NAME=value'] });
    expect(formatEnv({ A: '1', B: 'x=y' })).toBe('A=1\nB=x=y');
    expect(formatEnv(null)).toBe('');
  });

  it('creates with the fields filled in only', () => {
    expect(createBody({ ...EMPTY_FORM, name: ' x ', model: 'tiny', provider: 'builtin', port: '8090', env: 'A=1' })).toEqual({ name: 'x', model: 'tiny', provider: 'builtin', port: 8090, env: { A: '1' } });
    expect(createBody({ ...EMPTY_FORM, name: 'x', model: 'tiny', enabled: false })).toEqual({ name: 'x', model: 'tiny', file: { slot: { enabled: false } } });
  });

  it('edits only what changed; cleared extra args and env are the API\'s "remove"', () => {
    const before = { ...EMPTY_FORM, name: 'x', model: 'tiny', port: '8090', extra_args: '-t 2', env: 'A=1', profile: 'cpu-llm' };
    expect(editBody(before, before)).toEqual({});
    expect(editBody(before, { ...before, port: '8091', extra_args: '', env: '', enabled: false })).toEqual({ port: 8091, extra_args: '', env: {}, enabled: false });
    // A cleared profile or context size is removed from the file; a slot always has a port.
    expect(editBody(before, { ...before, profile: '', port: '' })).toEqual({ file: { slot: { profile: null } } });
    expect(editBody({ ...before, ctx_size: '512' }, { ...before, ctx_size: ' ' })).toEqual({ file: { model: { context_size: null } } });
    expect(editBody(before, { ...before, env: 'A=1\n' })).toEqual({});
  });

  it('fills the form from the slot file as validated', () => {
    const detail = {
      name: 'x',
      config: { slot: { type: 'llm', provider: 'builtin', device: 'cpu', port: 8090, profile: null, enabled: false }, model: { default: 'tiny', context_size: null }, server: { extra_args: null, env: { A: '1' } } },
    } as unknown as SlotDetailPayload;
    expect(valuesOfDetail(detail)).toEqual({ name: 'x', model: 'tiny', type: 'llm', provider: 'builtin', device: 'cpu', port: '8090', ctx_size: '', profile: '', extra_args: '', env: 'A=1', enabled: false });
  });
});

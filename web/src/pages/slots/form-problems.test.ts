import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api-error.js';
import { fieldOfPath, hostOnlyEnvProblem, placeError, placeProblems } from './form-problems.js';

describe('slot form problems', () => {
  it('maps request paths and slot-file paths to fields', () => {
    expect(fieldOfPath('port')).toEqual({ field: 'port', rest: '' });
    expect(fieldOfPath('env.LD_PRELOAD')).toEqual({ field: 'env', rest: 'LD_PRELOAD' });
    expect(fieldOfPath('model.context_size')).toEqual({ field: 'ctx_size', rest: '' });
    expect(fieldOfPath('server.env.X')).toEqual({ field: 'env', rest: 'X' });
    expect(fieldOfPath('hardware')).toEqual({ field: 'device', rest: '' });
    expect(fieldOfPath('slot.workers')).toEqual({ field: 'slot.workers', rest: '' });
    expect(fieldOfPath('file.slot.idle_timeout_s')).toEqual({ field: 'slot.idle_timeout_s', rest: '' });
    expect(fieldOfPath('file.slot.name')).toEqual({ field: 'name', rest: '' });
    expect(fieldOfPath('file.slot.workerz')).toBeUndefined();
  });

  it('keeps what names no field for the top', () => {
    expect(placeProblems({ port: 'too big', '': 'nothing to change', 'slot.workers': 'bad', 'future.key': 'odd' })).toEqual({ fields: { port: 'too big', 'slot.workers': 'bad' }, unplaced: ['nothing to change', 'future.key: odd'] });
  });

  it('places a config.invalid on this slot file beside its field, another file at the top', () => {
    const error = new ApiError('config.invalid', 'not changed', {
      problems: [
        { file: 'slots/x.toml', path: 'slot.port', message: 'expected <= 8200; got 8300' },
        { file: 'svc.toml', path: 'slots.idle_timeout_s', message: 'expected >= 0' },
      ],
    });
    expect(placeError(error, 'slots/x.toml')).toEqual({ fields: { port: 'expected <= 8200; got 8300' }, unplaced: ['svc.toml: slots.idle_timeout_s: expected >= 0'] });
  });

  it('places a code that is about one field, and ignores what is no API error', () => {
    expect(placeError(new ApiError('model.not_found', 'no model "nope" in the registry'), 'slots/x.toml').fields).toEqual({ model: 'no model "nope" in the registry' });
    expect(placeError(new Error('x'), 'slots/x.toml')).toEqual({ fields: {}, unplaced: [] });
  });

  it('names host-only variables only for a caller without host authority', () => {
    expect(hostOnlyEnvProblem({ LD_PRELOAD: 'x', CUDA_VISIBLE_DEVICES: '1', LLAMA_ARG_RPC: 'h:1' }, null, false)).toBe('LD_PRELOAD, LLAMA_ARG_RPC: only device lists (CUDA_VISIBLE_DEVICES, …) and thread counts (OMP_NUM_THREADS, …) may be set without this host or an admin token');
    expect(hostOnlyEnvProblem({ LD_PRELOAD: 'x', OMP_NUM_THREADS: '2' }, { LD_PRELOAD: 'x' }, false)).toBeUndefined();
    expect(hostOnlyEnvProblem({ LD_PRELOAD: 'x' }, null, true)).toBeUndefined();
    expect(hostOnlyEnvProblem({ OMP_NUM_THREADS: 'all' }, null, false)).toBe('OMP_NUM_THREADS: expected a number of threads, 1-9999 (any other value needs this host or an admin token)');
  });
});

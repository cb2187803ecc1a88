import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api-error.js';
import { checkForm, createBody, EMPTY_FORM, formOf, serverProblems, updateBody } from './profile-fields.js';

const profile = { name: 'mine', seed: false, image: 'ghcr.io/a/b:1', flags: '-b 256', mtp: false, device_class: 'cpu', backend: null, cloned_from: 'cpu-llm', intent: '', quant: 'Q4', serves: ['llm'], used_by: [] } as const;

describe('profile form', () => {
  it('sends only the changed fields on an update, and no backend as null', () => {
    const form = { ...formOf({ ...profile, used_by: [] }), flags: '-b 512' };
    expect(updateBody(form, { ...profile, used_by: [] })).toEqual({ flags: '-b 512' });
    expect(createBody({ ...EMPTY_FORM, name: 'x' })).toMatchObject({ name: 'x', backend: null });
  });

  it('checks as the user types with the server schema', () => {
    const original = { ...profile, used_by: [] };
    expect(checkForm({ ...formOf(original), image: 'NOT AN IMAGE' }, original)).toHaveProperty('image');
    expect(checkForm(formOf(original), original)).toHaveProperty('', 'name at least one field to change');
    expect(checkForm({ ...EMPTY_FORM, name: 'Bad Name' }, undefined)).toHaveProperty('name');
    expect(checkForm({ ...EMPTY_FORM, name: 'good' }, undefined)).toEqual({});
  });

  it('puts the server problems beside the field they name', () => {
    const error = new ApiError('config.invalid', 'x', { problems: [{ path: 'profiles.mine.flags', message: '--port is svc\'s' }, { path: 'image', message: 'bad' }] });
    expect(serverProblems(error, 'mine')).toEqual({ flags: '--port is svc\'s', image: 'bad' });
  });
});

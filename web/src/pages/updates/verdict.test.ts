import { describe, expect, it } from 'vitest';
import { checkVerdict } from './verdict.js';

const check = { update_available: false, published: true, latest: '0.1.0', current: '0.1.0', channel: 'stable' as const, package: 'svc-gateway', registry: 'https://registry.npmjs.org/' };

describe('checkVerdict', () => {
  it('says up to date only when the registry offered a version that is not newer', () => {
    expect(checkVerdict(check)).toEqual({ kind: 'current', text: 'svc 0.1.0 is up to date on the stable channel.' });
    expect(checkVerdict({ ...check, update_available: true, latest: '0.2.0' })).toEqual({ kind: 'available', text: 'svc 0.2.0 is available.' });
  });

  it('a registry without the package, or a channel without a version, is no "up to date"', () => {
    const missing = checkVerdict({ ...check, published: false, latest: null });
    expect(missing.kind).toBe('unknown');
    expect(missing.text).toMatch(/^svc-gateway is not on the registry https:\/\/registry\.npmjs\.org\/, so whether an update exists cannot be told/);
    expect(missing.text).not.toContain('up to date');
    expect(checkVerdict({ ...check, latest: null })).toEqual({ kind: 'unknown', text: 'The stable channel has no version yet: nothing to update to.' });
  });
});

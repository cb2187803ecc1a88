import { describe, expect, it } from 'vitest';
import { ApplyUpdateRequestSchema } from './updates.js';

describe('ApplyUpdateRequestSchema', () => {
  it('takes a semver version, drops a leading "v" and keeps pre-release and build', () => {
    expect(ApplyUpdateRequestSchema.parse({ version: ' v1.2.3 ' })).toEqual({ version: '1.2.3', allow_downgrade: false });
    expect(ApplyUpdateRequestSchema.parse({ version: '1.3.0-nightly.4+sha.abc' }).version).toBe('1.3.0-nightly.4+sha.abc');
    expect(ApplyUpdateRequestSchema.parse({})).toEqual({ allow_downgrade: false });
  });

  it('refuses what is not a version, a path above all (the version names a directory)', () => {
    for (const version of ['../../etc', '1.2', 'latest', '01.2.3', '1.2.3-x/y', '']) {
      const result = ApplyUpdateRequestSchema.safeParse({ version });
      expect(result.success, version).toBe(false);
      expect(result.error?.issues[0]?.message, version).toBe('a version like 1.2.3 or 1.3.0-nightly.4');
    }
  });
});

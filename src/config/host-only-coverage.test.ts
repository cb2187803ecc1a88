// Every [engines] key names a program or how engines run, so every one is host-only: a key
// added to the schema without a row in protocol/host-only.ts fails here.
import { describe, expect, it } from 'vitest';
import { HOST_ONLY_SETTINGS } from '../protocol/host-only.js';
import { SvcTomlSchema } from './schema/svc-toml.js';

describe('host-only settings', () => {
  it('cover every [engines] key', () => {
    const engines = Object.keys(SvcTomlSchema.shape.engines.unwrap().shape).map((key) => `engines.${key}`);
    expect(engines.length).toBeGreaterThan(5);
    expect(engines.filter((key) => !(key in HOST_ONLY_SETTINGS))).toEqual([]);
  });

  it('name only keys the schema has', () => {
    const sections = SvcTomlSchema.shape as unknown as Record<string, { unwrap: () => { shape: Record<string, unknown> } }>;
    const unknown = Object.keys(HOST_ONLY_SETTINGS).filter((key) => {
      const [section, name] = key.split('.') as [string, string];
      return !(section in sections) || !(name in sections[section]!.unwrap().shape);
    });
    expect(unknown).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SEED_PROFILES } from '../config/profiles.js';
import { parseChallenge, readManifest, registryOf } from './toolbox.js';

describe('toolbox images', () => {
  it('finds each registry the way docker does: docker.io and library/, plain HTTP only on loopback', () => {
    expect(registryOf('ghcr.io/svc-ai/svc-toolbox-flm')).toEqual({ base: 'https://ghcr.io', repository: 'svc-ai/svc-toolbox-flm' });
    expect(registryOf('docker.io/kyuz0/comfy')).toEqual({ base: 'https://registry-1.docker.io', repository: 'kyuz0/comfy' });
    expect(registryOf('ubuntu')).toEqual({ base: 'https://registry-1.docker.io', repository: 'library/ubuntu' });
    expect(registryOf('127.0.0.1:5000/a/b')).toEqual({ base: 'http://127.0.0.1:5000', repository: 'a/b' });
    expect(registryOf('localhost/a')).toEqual({ base: 'http://localhost', repository: 'a' });
    expect(registryOf('registry.example:5000/a').base).toBe('https://registry.example:5000');
  });

  it('reads a bearer challenge', () => {
    expect(parseChallenge('Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:a/b:pull"')).toEqual({ realm: 'https://ghcr.io/token', service: 'ghcr.io', scope: 'repository:a/b:pull' });
    expect(parseChallenge('Basic realm="x"')).toBeNull();
    expect(parseChallenge(null)).toBeNull();
  });

  it('the shipped manifest.json pins every image a seed profile runs', async () => {
    const pinned = (await readManifest(new URL('../../manifest.json', import.meta.url).pathname)).map((i) => `${i.image}:${i.tag}`);
    const used = [...new Set(Object.values(SEED_PROFILES).map((p) => p.image))];
    expect(pinned.sort()).toEqual(used.sort());
    expect(JSON.parse(readFileSync(new URL('../../manifest.json', import.meta.url), 'utf8'))._schema).toBe('svc.manifest.v1');
  });
});

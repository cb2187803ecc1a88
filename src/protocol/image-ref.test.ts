import { describe, expect, it } from 'vitest';
import { isImageReference } from './image-ref.js';

describe('isImageReference', () => {
  it.each([
    'busybox', 'docker.io/library/busybox', 'docker.io/library/busybox:1.36', 'ghcr.io/ggml-org/llama.cpp:server-cuda',
    'localhost:5000/svc/engine', 'registry.example.org:443/a/b/c:v1.2_3', 'kyuz0/amd-strix-halo-comfyui:latest',
    `busybox@sha256:${'a'.repeat(64)}`, `ghcr.io/x/y:tag@sha256:${'0'.repeat(64)}`, '[fd00::1]:5000/x', 'a__b/c-d.e',
  ])('takes %s', (value) => {
    expect(isImageReference(value)).toBe(true);
  });

  it.each([
    '', '--volume=/:/host', '-v', '--privileged', 'Busybox', 'busybox:', 'busybox@sha256:abc', 'a b', 'a/../b', '/abs/path', 'a//b',
    'busybox:tag with space', 'x;rm', `${'a'.repeat(256)}`, 'busybox:-tag', 'a/-b',
  ])('refuses %j', (value) => {
    expect(isImageReference(value)).toBe(false);
  });
});

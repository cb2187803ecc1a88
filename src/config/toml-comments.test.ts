import { describe, expect, it } from 'vitest';
import { carryComments } from './toml-comments.js';

describe('comments through a rewrite', () => {
  it('keeps the header comment npm start writes above the rewritten file', () => {
    const original = '# Written by `npm start` for a fresh home.\n[memory]\nengine = "pgvector"\n';
    const rewritten = '[meta]\nschema_version = 3\n\n[memory]\nengine = "pgvector"\n';
    expect(carryComments(original, rewritten)).toEqual({ text: `# Written by \`npm start\` for a fresh home.\n\n${rewritten}`, dropped: 0 });
  });

  it('carries a comment above its table or key and at the end of its key, wherever the rewrite put them', () => {
    const original = '# header\n\n[slots]\n# why 42\nidle_timeout_s = 42 # seconds\n\n# the memory\n[memory]\nengine = "pgvector" # "a # in a string" stays\n# the end\n';
    const rewritten = '[memory]\nengine = "pgvector"\n\n[slots]\nidle_timeout_s = 42\n';
    const { text, dropped } = carryComments(original, rewritten);
    expect(dropped).toBe(0);
    expect(text).toBe('# header\n\n# the memory\n[memory]\nengine = "pgvector" # "a # in a string" stays\n\n[slots]\n# why 42\nidle_timeout_s = 42 # seconds\n\n# the end\n');
  });

  it('counts what it cannot place: a comment on a key the rewrite renamed', () => {
    const original = '[memory.embedding]\n# the old name\nrerank_url = "http://x:1" # note\n';
    const rewritten = '[memory.embedding]\nrerank_gateway_url = "http://x:1"\n';
    expect(carryComments(original, rewritten)).toEqual({ text: rewritten, dropped: 2 });
  });

  it('leaves a file without comments as it is', () => {
    expect(carryComments('[a]\nb = 1\n', '[a]\nb = 1\n')).toEqual({ text: '[a]\nb = 1\n', dropped: 0 });
  });
});

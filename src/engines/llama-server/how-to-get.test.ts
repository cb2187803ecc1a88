import { describe, expect, it } from 'vitest';
import { buildScriptPresent, doctorHint, llamaServerHelp } from './how-to-get.js';

describe('how to get a llama-server', () => {
  it('names the build script only in a checkout, which has it; a package\'s user is sent to llama.cpp and the built-in engine', async () => {
    expect(await buildScriptPresent()).toBe(true);
    expect(llamaServerHelp(true)).toMatch(/^`npm run llama-server` builds one in this checkout/);
    for (const text of [llamaServerHelp(false), doctorHint(false, 'missing'), doctorHint(false, 'broken')]) {
      expect(text).not.toMatch(/npm run llama-server|scripts\//);
      expect(text).toContain('https://github.com/ggml-org/llama.cpp/releases');
    }
    expect(llamaServerHelp(false)).toContain('SVC_LLAMA_SERVER=<path>');
    expect(doctorHint(false, 'missing')).toContain('svc slot edit <name> --provider builtin');
    expect(doctorHint(true, 'broken')).toBe('rebuild it: npm run llama-server');
  });
});

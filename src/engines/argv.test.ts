import { describe, expect, it } from 'vitest';
import { ArgvSyntaxError, flagValue, normalizeArgv, tokenize } from './argv.js';

describe('tokenize', () => {
  it('splits like a shell, with quotes and escapes', () => {
    expect(tokenize(`  -c 4096 --chat-template 'a b' --alias "x \\"y\\"" z\\ w  `)).toEqual(['-c', '4096', '--chat-template', 'a b', '--alias', 'x "y"', 'z w']);
    expect(tokenize('--empty "" --x')).toEqual(['--empty', '', '--x']);
    expect(tokenize('')).toEqual([]);
  });

  it('refuses unbalanced quotes and a trailing backslash', () => {
    expect(() => tokenize('--a "b')).toThrow(ArgvSyntaxError);
    expect(() => tokenize("--a 'b")).toThrow(/single quote/);
    expect(() => tokenize('--a b\\')).toThrow(/backslash/);
  });
});

describe('normalizeArgv', () => {
  it('keeps the last occurrence of a flag, in its position and spelling', () => {
    expect(normalizeArgv(['--ctx-size', '8192', '--jinja', '-c', '2048'])).toEqual(['--jinja', '-c', '2048']);
    expect(normalizeArgv(['-ngl', '999', '--threads', '8', '--n-gpu-layers', '0'])).toEqual(['--threads', '8', '--n-gpu-layers', '0']);
  });

  it('treats --flag=value as the same flag', () => {
    expect(normalizeArgv(['--ctx-size=8192', '-c', '512'])).toEqual(['-c', '512']);
    expect(normalizeArgv(['-c', '512', '--ctx-size=1024'])).toEqual(['--ctx-size=1024']);
  });

  it('does not take a flag as a value, and keeps negative numbers as values', () => {
    expect(normalizeArgv(['--embedding', '--pooling', 'mean', '--embedding'])).toEqual(['--pooling', 'mean', '--embedding']);
    expect(normalizeArgv(['-ngl', '-1', '--seed', '-5'])).toEqual(['-ngl', '-1', '--seed', '-5']);
  });

  it('never deduplicates repeatable flags and keeps positionals', () => {
    expect(normalizeArgv(['--lora', 'a.gguf', '--lora', 'b.gguf', 'positional'])).toEqual(['--lora', 'a.gguf', '--lora', 'b.gguf', 'positional']);
  });

  it('reads the final value of a flag', () => {
    expect(flagValue(['-c', '512', '--ctx-size=1024'], '--ctx-size')).toBe('1024');
    expect(flagValue(['--jinja'], '--jinja')).toBe('');
    expect(flagValue(['--jinja'], '-c')).toBeUndefined();
  });
});

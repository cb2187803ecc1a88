// The files the host writes hold the same rule as requests (src/protocol/no-nul.ts): a field
// that becomes a program's argument or environment refuses NUL (TOML can carry one as
// \u0000), so the file is refused at load naming the field instead of the engine failing to
// start.
import { describe, expect, it } from 'vitest';
import { McpServerFileSchema } from './schema/mcp-server.js';
import { ProfileSchema } from './schema/profiles.js';
import { serverSection } from '../protocol/slot-file.js';
import { StackSlotRowSchema } from './schema/stacks.js';
import { NUL_REFUSED } from '../protocol/input-bounds.js';

const nulPaths = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  (result.error?.issues ?? []).filter((i) => i.message === NUL_REFUSED).map((i) => i.path.join('.')).sort();

describe('config fields that reach an engine or a tool server refuse NUL', () => {
  it('a slot file: [server].extra_args and [server].env', () => {
    expect(nulPaths(serverSection.safeParse({ extra_args: '--a\u0000', env: { CUDA_VISIBLE_DEVICES: '0\u0000' } }))).toEqual(['env.CUDA_VISIBLE_DEVICES', 'extra_args']);
  });

  it('a profile\'s flags, a stack row\'s server_extra_args', () => {
    expect(nulPaths(ProfileSchema.safeParse({ flags: '--x\u0000' }))).toEqual(['flags']);
    expect(nulPaths(StackSlotRowSchema.safeParse({ slot: 'chat', model: 'm', server_extra_args: '\u0000' }))).toEqual(['server_extra_args']);
  });

  it('a tool server\'s command, arguments and environment', () => {
    const result = McpServerFileSchema.safeParse({ transport: 'stdio', command: 'x\u0000', args: ['ok', 'a\u0000'], env: { A: '\u0000' } });
    expect(nulPaths(result)).toEqual(['args.1', 'command', 'env.A']);
  });
});

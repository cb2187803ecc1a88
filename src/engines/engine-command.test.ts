import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin } from '../../test/helpers/launch-context.js';
import { engineCommandHelp, findEngineCommand } from './engine-command.js';

const bin = fakeBin(['kokoro_server', 'python3', 'flm']);
afterAll(() => bin.remove());
const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: bin.dir, ...over });

describe('findEngineCommand', () => {
  it('[engines].<x>: a command line whose program is absolute or found on PATH; its words come first', async () => {
    expect(await findEngineCommand('kokoro', bin.path('kokoro_server'), env())).toEqual({ command: bin.path('kokoro_server'), args: [], from: 'config' });
    expect(await findEngineCommand('moonshine', `python3 '/opt/moon shine/server.py' --quiet`, env())).toEqual({
      command: bin.path('python3'), args: ['/opt/moon shine/server.py', '--quiet'], from: 'config',
    });
  });

  it('falls back to SVC_<X>, then (flm only) the program on PATH; the config wins over the variable', async () => {
    expect(await findEngineCommand('kokoro', '', env({ SVC_KOKORO: `${bin.path('kokoro_server')} --x` }))).toMatchObject({ args: ['--x'], from: 'env' });
    expect(await findEngineCommand('kokoro', bin.path('python3'), env({ SVC_KOKORO: bin.path('kokoro_server') }))).toMatchObject({ command: bin.path('python3'), from: 'config' });
    expect(await findEngineCommand('flm', '', env())).toEqual({ command: bin.path('flm'), args: [], from: 'path' });
  });

  it('unset everywhere: slot.binary_missing saying how to set it', async () => {
    const error = await findEngineCommand('kokoro', '', env()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'slot.binary_missing', details: { engine: 'kokoro' } });
    expect((error as Error).message).toContain('[engines].kokoro and SVC_KOKORO are unset');
    expect((error as Error).message).toContain(engineCommandHelp('kokoro'));
    expect(engineCommandHelp('kokoro')).toMatch(/\[engines\]\.kokoro .*SVC_KOKORO .*\[engines\]\.runtime = "podman"/);
    await expect(findEngineCommand('flm', '', { PATH: '/nonexistent' })).rejects.toMatchObject({ code: 'slot.binary_missing', message: /flm is not on PATH/ });
  });

  it('a set source naming no executable is an error, never a fall-through', async () => {
    await expect(findEngineCommand('kokoro', '/opt/missing/kokoro', env({ SVC_KOKORO: bin.path('kokoro_server') }))).rejects.toMatchObject({ code: 'slot.binary_missing', details: { source: '[engines].kokoro', program: '/opt/missing/kokoro' } });
    await expect(findEngineCommand('kokoro', '', env({ SVC_KOKORO: 'nonesuch-server' }))).rejects.toMatchObject({ code: 'slot.binary_missing', details: { source: 'SVC_KOKORO' } });
    await expect(findEngineCommand('kokoro', '', env({ SVC_KOKORO: './relative/server' }))).rejects.toMatchObject({ code: 'slot.binary_missing' });
    await expect(findEngineCommand('kokoro', '', env({ SVC_KOKORO: `'unbalanced` }))).rejects.toMatchObject({ code: 'slot.config_error' });
  });
});

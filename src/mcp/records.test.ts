// Tool server records: validated like every config file, each problem with file and path;
// bad installs are refused before anything is written.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureSpec, mcpHarness } from '../../test/helpers/mcp.js';
import { checkRecordDoc, loadRecords } from './records.js';
import { policyOf, policyOverlaps, splitQualified } from './policy.js';

const stdio = { transport: 'stdio', command: '/usr/bin/node', args: ['/x.js'] };

describe('record validation', () => {
  it('accepts a minimal stdio record with defaults', () => {
    const checked = checkRecordDoc('x', { ...stdio });
    expect(checked).toMatchObject({ ok: true, value: { id: 'x', name: 'x', enabled: true, tools: { allow: [], gated: [], blocked: [], default: 'allow' } } });
  });

  it('refuses overlapping policy lists naming the later entry', () => {
    const checked = checkRecordDoc('x', { ...stdio, tools: { allow: ['a', 'b'], gated: ['c', 'b'] } });
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problems).toEqual([expect.objectContaining({ file: 'mcp-servers/x.toml', path: 'tools.gated[1]', message: expect.stringContaining('tools.allow') })]);
  });

  it('refuses an unknown transport and a missing command or url, with their paths', () => {
    const unknown = checkRecordDoc('x', { transport: 'websocket', url: 'http://h/' });
    expect(!unknown.ok && unknown.problems.map((p) => p.path)).toEqual(['transport']);
    const noCommand = checkRecordDoc('x', { transport: 'stdio' });
    expect(!noCommand.ok && noCommand.problems.map((p) => p.path)).toEqual(['command']);
    const noUrl = checkRecordDoc('x', { transport: 'sse' });
    expect(!noUrl.ok && noUrl.problems.map((p) => p.path)).toEqual(['url']);
  });

  it('resolves policies and qualified names', () => {
    const lists = { allow: ['a'], gated: ['g'], blocked: ['b'], default: 'gated' as const };
    expect(['a', 'g', 'b', 'other'].map((t) => policyOf(t, lists))).toEqual(['allow', 'gated', 'blocked', 'gated']);
    expect(policyOverlaps({ allow: ['a'], gated: [], blocked: ['a'], default: 'allow' })).toEqual([{ list: 'blocked', index: 0, name: 'a', other: 'allow' }]);
    expect(splitQualified('my_srv__do__it', ['my', 'my_srv'])).toEqual({ server: 'my_srv', tool: 'do__it' });
  });

  it('loads valid files and reports (skips) invalid ones', async () => {
    const h = mcpHarness();
    mkdirSync(h.paths.mcpServersDir, { recursive: true });
    writeFileSync(join(h.paths.mcpServersDir, 'good.toml'), 'transport = "stdio"\ncommand = "/bin/true"\n');
    writeFileSync(join(h.paths.mcpServersDir, 'bad.toml'), 'transport = "carrier-pigeon"\n');
    writeFileSync(join(h.paths.mcpServersDir, 'svc-admin.toml'), '[tools]\ngated = ["slots_load"]\n');
    const loaded = await loadRecords(h.paths, ['svc-admin']);
    expect([...loaded.records.keys()]).toEqual(['good']);
    expect(loaded.bundledPolicies.get('svc-admin')).toMatchObject({ gated: ['slots_load'] });
    expect(loaded.problems).toEqual([expect.objectContaining({ file: 'mcp-servers/bad.toml', path: 'transport', severity: 'error' })]);
  });
});

describe('install refuses bad input and writes nothing', () => {
  const nothingWritten = (h: ReturnType<typeof mcpHarness>) => {
    expect(existsSync(h.paths.mcpServersDir) ? readdirSync(h.paths.mcpServersDir) : []).toEqual([]);
    expect(existsSync(h.paths.mcpStateDir) ? readdirSync(h.paths.mcpStateDir) : []).toEqual([]);
  };

  it.each([
    ['a traversal id', { spec: fixtureSpec(), id: '../x' }, 'mcp.invalid_id', 'id'],
    ['a spec of no form', { spec: 'gopher://old.example/x' }, 'mcp.invalid_spec', 'spec'],
    ['an unknown transport in a manifest', { manifest: { id: 'm', transport: 'carrier-pigeon' as never, url: 'http://h/' } }, 'config.invalid', 'manifest.transport'],
    ['overlapping policy lists in a manifest', { manifest: { id: 'm', ...stdio, tools: { allow: ['a'], gated: [], blocked: ['a'], default: 'allow' } } as never }, 'config.invalid', 'manifest.tools.blocked[0]'],
    ['a secret api.env lacks', { manifest: { id: 'm', ...stdio, secrets: { TOKEN: 'NO_SUCH_KEY' } } as never }, 'config.invalid', 'secrets.TOKEN'],
    ['a bundled id', { spec: fixtureSpec(), id: 'svc-admin' }, 'mcp.id_reserved', undefined],
    ['a url that is not one', { url: 'stdio' }, 'mcp.invalid_spec', 'url'],
    ['two of spec, url and manifest', { spec: fixtureSpec(), url: 'http://h/' }, 'mcp.invalid_spec', 'url'],
  ])('%s', async (_name, request, code, path) => {
    const h = mcpHarness();
    const error = await h.service.install(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ code });
    if (path) expect(JSON.stringify((error as { details: unknown }).details)).toContain(`"path":"${path}"`);
    nothingWritten(h);
    expect(h.events).toEqual([]);
  });

  it('refuses uvx: when uvx is not on PATH, saying what to install', async () => {
    const h = mcpHarness({}, { env: { ...process.env, PATH: '/nonexistent' } });
    await expect(h.service.install({ spec: 'uvx:mcp-server-fetch' })).rejects.toMatchObject({ code: 'mcp.runtime_missing', details: { install: expect.stringContaining('uv') } });
    await expect(h.service.install({ spec: 'oci://ghcr.io/acme/x:1' })).rejects.toMatchObject({ code: 'mcp.runtime_missing', details: { install: expect.stringContaining('podman') } });
    nothingWritten(h);
  });

  it('refuses a second install of an id, and a patch with a missing secret', async () => {
    const h = mcpHarness();
    await h.service.install({ spec: fixtureSpec(), id: 'fix', enabled: false });
    await expect(h.service.install({ spec: fixtureSpec(), id: 'fix' })).rejects.toMatchObject({ code: 'mcp.already_installed' });
    await expect(h.service.patchConfig('fix', { secrets: { TOKEN: 'MISSING' } })).rejects.toMatchObject({ code: 'config.invalid', details: { problems: [expect.objectContaining({ path: 'secrets.TOKEN' })] } });
    await expect(h.service.patchTools('fix', { allow: ['echo'], gated: ['echo'] })).rejects.toMatchObject({ code: 'config.invalid', details: { problems: [expect.objectContaining({ path: 'tools.gated[0]' })] } });
    await expect(h.service.get('fix')).resolves.toMatchObject({ state: 'disabled', secrets: {}, tools: { allow: [], gated: [] } });
    writeFileSync(h.paths.apiEnv, 'MY_TOKEN=s3cret\n');
    await expect(h.service.patchConfig('fix', { secrets: { TOKEN: 'MY_TOKEN' } })).resolves.toMatchObject({ secrets: { TOKEN: 'MY_TOKEN' } });
    await expect(h.service.uninstall('fix')).resolves.toEqual({ uninstalled: 'fix' });
    nothingWritten(h);
    await expect(h.service.get('fix')).rejects.toMatchObject({ code: 'mcp.not_found' });
  });
});

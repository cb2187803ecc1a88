// Install specs: each accepted form, and everything else refused with the field named.
import { describe, expect, it } from 'vitest';
import { idFrom, parseSpec } from './spec.js';

describe('parseSpec', () => {
  it('reads npm specs, scoped and versioned', () => {
    expect(parseSpec('npm:@modelcontextprotocol/server-everything')).toMatchObject({ kind: 'npm', package: '@modelcontextprotocol/server-everything', version: null, suggestedId: 'everything' });
    expect(parseSpec('npm:@playwright/mcp@0.0.40')).toMatchObject({ kind: 'npm', package: '@playwright/mcp', version: '0.0.40', suggestedId: 'playwright' });
    expect(parseSpec('npm:mcp-fetch-server@^1.1')).toMatchObject({ kind: 'npm', package: 'mcp-fetch-server', version: '^1.1', suggestedId: 'fetch' });
  });

  it('reads command lines with shell quoting', () => {
    expect(parseSpec(`/usr/bin/node '/opt/my server/index.js' --flag`)).toMatchObject({ kind: 'command', command: '/usr/bin/node', args: ['/opt/my server/index.js', '--flag'], suggestedId: 'index' });
    expect(parseSpec('my-mcp-server --port 1')).toMatchObject({ kind: 'command', command: 'my-mcp-server', suggestedId: 'my' });
  });

  it('reads URLs as streamable-http, …/sse as sse, and an explicit transport', () => {
    expect(parseSpec('https://mcp.example.com/mcp')).toMatchObject({ kind: 'remote', transport: 'streamable-http', suggestedId: 'example' });
    expect(parseSpec('http://127.0.0.1:9000/sse')).toMatchObject({ kind: 'remote', transport: 'sse' });
    expect(parseSpec('http://127.0.0.1:9000/events', 'url', 'sse')).toMatchObject({ kind: 'remote', transport: 'sse' });
  });

  it('reads oci:// and uvx:', () => {
    expect(parseSpec('oci://ghcr.io/acme/tool-server:1.2')).toMatchObject({ kind: 'oci', image: 'ghcr.io/acme/tool-server:1.2', suggestedId: 'tool' });
    expect(parseSpec('uvx:mcp-server-fetch')).toMatchObject({ kind: 'uvx', package: 'mcp-server-fetch', suggestedId: 'fetch' });
  });

  it.each([
    ['', 'spec'],
    ['ftp://example.com/x', 'spec'],
    ['git+https://github.com/a/b', 'spec'],
    ['npm:', 'spec'],
    ['npm:Not A Package', 'spec'],
    ['./relative/server.js', 'spec'],
    ['node "unbalanced', 'spec'],
    ['oci://', 'spec'],
  ])('refuses %j with mcp.invalid_spec naming %s', (spec, field) => {
    expect(() => parseSpec(spec)).toThrow(expect.objectContaining({ code: 'mcp.invalid_spec', details: expect.objectContaining({ problems: [expect.objectContaining({ path: field })] }) }));
  });

  it('names the transport when a URL is asked to run over stdio', () => {
    expect(() => parseSpec('http://h/x', 'url', 'stdio')).toThrow(expect.objectContaining({ code: 'mcp.invalid_spec', details: expect.objectContaining({ problems: [expect.objectContaining({ path: 'transport' })] }) }));
  });

  it('derives readable ids', () => {
    expect(idFrom('server-filesystem')).toBe('filesystem');
    expect(idFrom('mcp', 'playwright')).toBe('playwright');
    expect(idFrom('Weird Name!')).toBe('weird-name-');
  });
});

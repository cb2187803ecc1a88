import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api-error.js';
import { checkInstall, installProblems, installRequest } from './install-request.js';

describe('the install form', () => {
  it('sends a URL as url and anything else as spec, with the id when given', () => {
    expect(installRequest(' https://example.test/mcp ', '')).toEqual({ url: 'https://example.test/mcp' });
    expect(installRequest('npm:@modelcontextprotocol/server-everything', 'everything')).toEqual({ spec: 'npm:@modelcontextprotocol/server-everything', id: 'everything' });
    expect(installRequest('node /srv/server.mjs --flag', '')).toEqual({ spec: 'node /srv/server.mjs --flag' });
  });

  it('checks what the server would refuse for sure', () => {
    expect(checkInstall('', '', true).source).toBeDefined();
    expect(checkInstall('node x.mjs', '../etc', true).id).toBeDefined();
    expect(checkInstall('node x.mjs', 'ok-1', true)).toEqual({});
    // Off the host, a spec runs a program there: refused; a URL is not.
    expect(checkInstall('npm:x', '', false).source).toMatch(/host/);
    expect(checkInstall('https://example.test/mcp', '', false)).toEqual({});
  });

  it('puts the server\'s problems beside the one source field and the id', () => {
    const invalid = new ApiError('mcp.invalid_spec', 'not a spec', { problems: [{ path: 'spec', message: 'none of the forms' }] }, 400);
    expect(installProblems(invalid)).toEqual({ source: 'none of the forms' });
    expect(installProblems(new ApiError('mcp.already_installed', 'taken', {}, 409))).toEqual({ id: 'mcp.already_installed: taken' });
    expect(installProblems(new ApiError('mcp.install_failed', 'npm failed', {}, 502))).toEqual({});
  });
});

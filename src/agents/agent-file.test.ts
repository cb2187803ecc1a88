// agents/<name>.toml (docs/agents.md, "The agent file"): the schema's defaults, its refusals with field paths,
// the disjoint tool lists, and a seed written and read back through the atomic writer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgentDoc, readAgentFile, seedAgentFile, writeAgentFile } from './agent-file.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-agent-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problemsOf = (doc: Record<string, unknown>, name = 'hermes') => {
  const read = checkAgentDoc(name, doc);
  return read.status === 'invalid' ? read.problems.map((p) => `${p.path}: ${p.message}`) : [];
};

describe('the agent file schema', () => {
  it('fills the defaults of a minimal file', () => {
    const read = checkAgentDoc('hermes', { agent: { name: 'hermes' } });
    expect(read.status).toBe('ok');
    if (read.status !== 'ok') return;
    expect(read.file).toMatchObject({ schema_version: 1, data_dir: '', agent: { name: 'hermes', display: '', workspace: '', version_pin: false }, mcp: { servers: {} } });
  });

  it('reads tool servers with their auth and tool policies', () => {
    const read = checkAgentDoc('hermes', {
      schema_version: 1,
      agent: { name: 'hermes', display: 'Hermes', workspace: '/srv/work' },
      mcp: { servers: { memory: { url: 'http://127.0.0.1:8080/mcp/memory/mcp', builtin: true, auth: { kind: 'bearer-from-env', env: 'SVC_TOKEN' }, tools: { allow: ['search'], gated: ['delete'], blocked: ['drop'] } } } },
    });
    expect(read.status).toBe('ok');
    if (read.status === 'ok') expect(read.file.mcp.servers.memory).toMatchObject({ enabled: true, builtin: true, auth: { kind: 'bearer-from-env', env: 'SVC_TOKEN' }, tools: { allow: ['search'], gated: ['delete'], blocked: ['drop'] } });
  });

  it('names the field path of each problem', () => {
    expect(problemsOf({ schema_version: 2, agent: { name: 'hermes' } })[0]).toMatch(/^schema_version: /);
    expect(problemsOf({ agent: { name: 'Hermes!' } }, 'hermes').join()).toMatch(/agent\.name: expected an agent name/);
    expect(problemsOf({ agent: { name: 'pi' } }, 'hermes')).toEqual(['agent.name: the name "pi" differs from the file\'s name (hermes)']);
    expect(problemsOf({ agent: { name: 'hermes' }, mcp: { servers: { m: { url: 'file:///etc/passwd' } } } })[0]).toMatch(/^mcp\.servers\.m\.url: /);
    expect(problemsOf({ agent: { name: 'hermes' }, mcp: { servers: { m: { url: 'http://x', auth: { kind: 'bearer-from-env' } } } } })).toEqual(['mcp.servers.m.auth.env: bearer-from-env needs env: the variable that holds the token']);
    expect(problemsOf({ agent: { name: 'hermes' }, mcp: { servers: { m: { url: 'http://x', auth: { kind: 'basic' } } } } })[0]).toMatch(/^mcp\.servers\.m\.auth\.kind: /);
  });

  it('refuses a tool in two of allow, gated and blocked, blaming the later list', () => {
    expect(problemsOf({ agent: { name: 'hermes' }, mcp: { servers: { m: { url: 'http://x', tools: { allow: ['a', 'b'], blocked: ['b'] } } } } }))
      .toEqual(['mcp.servers.m.tools.blocked[0]: "b" is already in tools.allow: the allow, gated and blocked lists must not share a tool']);
  });

  it('writes the seed atomically and reads it back', async () => {
    const path = join(dir, 'pi.toml');
    const seed = seedAgentFile('pi', 'cli', '0.73.1', '/var/lib/svc/agents/pi/data', new Date('2026-01-02T03:04:05Z'));
    await writeAgentFile(path, seed);
    expect(readFileSync(path, 'utf8')).toContain('installed_at = "2026-01-02T03:04:05.000Z"');
    const read = await readAgentFile(path, 'pi');
    expect(read).toMatchObject({ status: 'ok', file: { agent: { name: 'pi', kind: 'cli', version: '0.73.1', version_pin: false }, data_dir: '/var/lib/svc/agents/pi/data' } });
    expect(await readAgentFile(join(dir, 'none.toml'), 'none')).toEqual({ status: 'missing' });
  });
});

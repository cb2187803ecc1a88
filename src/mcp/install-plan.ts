// From an install request (POST /api/mcp/install, `svc mcp install`) to the record it would
// write: exactly one of spec, url or manifest, the id (given or derived), the programs oci://
// and uvx: need. Everything here is checked before anything touches the disk.
import { SvcError } from '../protocol/errors.js';
import type { McpInstallRequest, McpServerRecord } from '../protocol/mcp.js';
import { BUNDLED_MCP_IDS } from '../protocol/mcp.js';
import type { TomlDoc } from '../config/toml.js';
import { onPath } from './npm-install.js';
import { checkMcpId, checkRecordDoc, recordFileName } from './records.js';
import { invalidSpec, parseSpec, type ParsedSpec } from './spec.js';

export interface InstallPlan {
  id: string;
  /** The record to write; for npm its command and args are filled after the install. */
  record: McpServerRecord;
  npm: { package: string; version: string | null } | null;
}

/** Throws mcp.invalid_spec, mcp.invalid_id, mcp.id_reserved, mcp.runtime_missing or config.invalid. */
export async function planInstall(req: McpInstallRequest, env: NodeJS.ProcessEnv = process.env): Promise<InstallPlan> {
  const given = (['spec', 'url', 'manifest'] as const).filter((k) => req[k] !== undefined && req[k] !== null);
  if (given.length !== 1) {
    throw new SvcError('mcp.invalid_spec', `give exactly one of spec, url or manifest (got ${given.length === 0 ? 'none' : given.join(', ')})`, { problems: [{ path: given[1] ?? 'spec', message: 'expected exactly one of spec, url, manifest' }] });
  }
  if (req.manifest !== undefined) return planManifest(req);
  const field = given[0] as 'spec' | 'url';
  const raw = req[field];
  if (typeof raw !== 'string') throw invalidSpec(field, 'expected a string');
  const parsed = parseSpec(raw, field);
  if (field === 'url' && parsed.kind !== 'remote') throw invalidSpec('url', `expected an http(s):// URL; got ${JSON.stringify(raw)}`, raw);
  const id = req.id ?? parsed.suggestedId;
  checkId(id);
  const base = { id, name: id, description: '', spec: parsed.spec, env: {}, secrets: {}, tools: { allow: [], gated: [], blocked: [], default: 'allow' as const }, enabled: req.enabled ?? true, installed_at: new Date().toISOString(), source_url: '' };
  const runnable = await runnableOf(parsed, env);
  return { id, record: { ...base, ...runnable.fields }, npm: runnable.npm };
}

function checkId(id: string): void {
  checkMcpId(id);
  if ((BUNDLED_MCP_IDS as readonly string[]).includes(id)) throw new SvcError('mcp.id_reserved', `${id} is a bundled server's id; choose another`, { id });
}

async function runnableOf(parsed: ParsedSpec, env: NodeJS.ProcessEnv): Promise<{ fields: Pick<McpServerRecord, 'transport' | 'command' | 'args' | 'url'>; npm: InstallPlan['npm'] }> {
  switch (parsed.kind) {
    case 'npm':
      return { fields: { transport: 'stdio', command: '', args: [], url: '' }, npm: { package: parsed.package, version: parsed.version } };
    case 'command':
      return { fields: { transport: 'stdio', command: parsed.command, args: parsed.args, url: '' }, npm: null };
    case 'remote':
      return { fields: { transport: parsed.transport, command: '', args: [], url: parsed.url }, npm: null };
    case 'oci': {
      const runtime = (await onPath('podman', env)) ? 'podman' : (await onPath('docker', env)) ? 'docker' : null;
      if (!runtime) {
        throw new SvcError('mcp.runtime_missing', `${parsed.spec} runs in a container: install podman or docker first`, { spec: parsed.spec, install: 'podman or docker (e.g. apt install podman)' });
      }
      return { fields: { transport: 'stdio', command: runtime, args: ['run', '-i', '--rm', parsed.image], url: '' }, npm: null };
    }
    case 'uvx':
      if (!(await onPath('uvx', env))) {
        throw new SvcError('mcp.runtime_missing', `${parsed.spec} runs with uvx: install uv first`, { spec: parsed.spec, install: 'uv (https://docs.astral.sh/uv/: curl -LsSf https://astral.sh/uv/install.sh | sh)' });
      }
      return { fields: { transport: 'stdio', command: 'uvx', args: [parsed.package], url: '' }, npm: null };
  }
}

/** A manifest is a record's fields: validated as the file would be, problems prefixed `manifest.`. */
function planManifest(req: McpInstallRequest): InstallPlan {
  const manifest = req.manifest as Record<string, unknown>;
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) throw invalidSpec('manifest', 'expected an object with a record\'s fields');
  const id = req.id ?? (typeof manifest.id === 'string' ? manifest.id : undefined);
  if (id === undefined) throw invalidSpec('manifest.id', 'a manifest needs an id (or give id beside it)');
  checkId(id);
  const doc: TomlDoc = { ...manifest, id, installed_at: new Date().toISOString(), spec: typeof manifest.spec === 'string' ? manifest.spec : 'manifest' };
  for (const ignored of ['bundled', 'state', 'pid']) delete doc[ignored];
  if (req.enabled !== undefined) doc.enabled = req.enabled;
  const checked = checkRecordDoc(id, doc);
  if (!checked.ok) {
    const problems = checked.problems.map((p) => ({ ...p, path: p.path ? `manifest.${p.path}` : 'manifest' }));
    throw new SvcError('config.invalid', `the manifest is not a valid tool server record: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems, file: recordFileName(id) });
  }
  return { id, record: checked.value, npm: null };
}

// svc.toml schema migrations. Each migration moves a raw document from version N to N+1
// and is pure. Loading applies them in memory (so older files keep working and the user is
// told to migrate); `svc config migrate` writes the result, keeping a backup.
import type { TomlDoc } from './toml.js';
import { LATEST_SCHEMA_VERSION } from './schema/svc-toml.js';

export interface Migration {
  readonly from: number;
  readonly description: string;
  /** Returns the migrated document and a line per change it made. */
  readonly apply: (doc: TomlDoc) => { doc: TomlDoc; changes: string[] };
}

export interface MigrationResult {
  readonly doc: TomlDoc;
  readonly from: number;
  readonly to: number;
  readonly changes: string[];
}

type Table = Record<string, unknown>;

const table = (doc: Table, ...path: string[]): Table | undefined => {
  let node: unknown = doc;
  for (const key of path) node = node && typeof node === 'object' ? (node as Table)[key] : undefined;
  return node && typeof node === 'object' && !Array.isArray(node) ? (node as Table) : undefined;
};

/**
 * Version 1 is the layout of the original v0.1/v0.2 line; version 2 drops its legacy keys
 * (docs/configuration.md, "schema_version": the removed memory-graph route/provider/model options).
 */
const v1ToV2: Migration = {
  from: 1,
  description: 'rename legacy keys and drop removed memory-graph options',
  apply(input) {
    const doc = structuredClone(input) as Table;
    const changes: string[] = [];
    const embedding = table(doc, 'memory', 'embedding');
    if (embedding && 'rerank_url' in embedding) {
      if (!('rerank_gateway_url' in embedding)) embedding.rerank_gateway_url = embedding.rerank_url;
      delete embedding.rerank_url;
      changes.push('memory.embedding.rerank_url -> memory.embedding.rerank_gateway_url');
    }
    const graph = table(doc, 'memory', 'graph');
    if (graph) {
      const model = graph.model;
      if (typeof model === 'string' && model.startsWith('svc/') && !('extraction_slot' in graph)) {
        graph.extraction_slot = model.slice('svc/'.length);
        changes.push(`memory.graph.model "${model}" -> memory.graph.extraction_slot "${graph.extraction_slot}"`);
      }
      for (const removed of ['model', 'route', 'provider']) {
        if (removed in graph) {
          delete graph[removed];
          changes.push(`memory.graph.${removed} removed (no longer supported)`);
        }
      }
    }
    const models = table(doc, 'models');
    if (models && 'pull_root' in models) {
      if (!models.store) models.store = models.pull_root;
      delete models.pull_root;
      changes.push('models.pull_root -> models.store');
    }
    return { doc, changes };
  },
};

/**
 * Version 3 moves the update channel out of [telemetry] (issue 23: it picks the dist-tag
 * `svc update` follows and has nothing to do with telemetry). A file that already names
 * [updates].channel keeps it, as v1ToV2 keeps a new key that is already set.
 */
const v2ToV3: Migration = {
  from: 2,
  description: 'move [telemetry].channel to [updates].channel',
  apply(input) {
    const doc = structuredClone(input) as Table;
    const changes: string[] = [];
    const telemetry = table(doc, 'telemetry');
    // An [updates] that is not a table is left for the schema to report.
    const updates = doc.updates === undefined ? {} : table(doc, 'updates');
    if (telemetry && 'channel' in telemetry && updates) {
      const kept = 'channel' in updates;
      if (!kept) updates.channel = telemetry.channel;
      doc.updates = updates;
      delete telemetry.channel;
      if (Object.keys(telemetry).length === 0) delete doc.telemetry;
      changes.push(kept ? 'telemetry.channel removed (updates.channel is set)' : 'telemetry.channel -> updates.channel');
    }
    return { doc, changes };
  },
};

export const SVC_TOML_MIGRATIONS: readonly Migration[] = [v1ToV2, v2ToV3];

export function schemaVersionOf(doc: TomlDoc): number | undefined {
  const version = table(doc, 'meta')?.schema_version ?? 1;
  return Number.isInteger(version) ? (version as number) : undefined;
}

/**
 * Apply every migration from the document's version up to `latest`. A document of an
 * unknown version (not an integer, or newer than this build) is returned unchanged; the
 * schema reports the problem.
 */
export function migrateDocument(
  doc: TomlDoc,
  migrations: readonly Migration[] = SVC_TOML_MIGRATIONS,
  latest: number = LATEST_SCHEMA_VERSION,
): MigrationResult {
  const from = schemaVersionOf(doc);
  if (from === undefined || from >= latest) return { doc, from: from ?? 1, to: from ?? 1, changes: [] };
  let current = doc;
  const changes: string[] = [];
  for (let version = from; version < latest; version++) {
    const step = migrations.find((m) => m.from === version);
    if (!step) throw new Error(`no migration from schema_version ${version}`);
    const result = step.apply(current);
    current = result.doc;
    changes.push(...result.changes);
  }
  const meta = (table(current, 'meta') ?? {}) as Table;
  current = { ...current, meta: { ...meta, schema_version: latest } };
  return { doc: current, from, to: latest, changes };
}

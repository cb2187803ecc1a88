// The memory store's schema, as numbered migrations run on connect by the embedded database
// and by a Postgres server alike. Each runs in its own transaction with its row in
// schema_migrations, so a crash mid-migration leaves the previous version, never half of one.
// Append new migrations; never edit one that has shipped.
import type pg from 'pg';
import { withCheckedOut } from './checkout.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'banks and items',
    // `dim` beside `embedding`: pgvector's HNSW index needs a fixed dimension, so each dimension
    // in use gets a partial expression index (store.ts, hnswIndexSql), and a query names it.
    sql: `
      CREATE EXTENSION IF NOT EXISTS vector;
      CREATE TABLE memory_banks (
        id text PRIMARY KEY,
        dimension integer,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE memory_items (
        id uuid PRIMARY KEY,
        bank text NOT NULL REFERENCES memory_banks(id) ON DELETE CASCADE,
        text text NOT NULL,
        dataset text,
        tags text[] NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}',
        document_id text,
        type text NOT NULL DEFAULT 'world',
        ts timestamptz NOT NULL DEFAULT now(),
        dim integer NOT NULL,
        embedding vector NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
      );
      CREATE INDEX memory_items_bank_ts ON memory_items (bank, ts, id);
      CREATE INDEX memory_items_tsv ON memory_items USING gin (tsv);
      CREATE INDEX memory_items_tags ON memory_items USING gin (tags);
    `,
  },
  {
    version: 2,
    name: 'graph',
    // Graph extraction (src/memory/graph/): entities per bank, keyed by their lower-cased name
    // and type; which items mention them; relations between two entities, each from one item;
    // and one row per item extracted (or given up on), so a retry finds the items left.
    // Deleting an item or a bank cascades to all four.
    sql: `
      CREATE TABLE memory_entities (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bank text NOT NULL REFERENCES memory_banks(id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        first_seen timestamptz NOT NULL DEFAULT now(),
        last_seen timestamptz NOT NULL DEFAULT now(),
        mention_count integer NOT NULL DEFAULT 0,
        UNIQUE (bank, key, type)
      );
      CREATE TABLE memory_entity_mentions (
        entity_id uuid NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
        item_id uuid NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,
        PRIMARY KEY (entity_id, item_id)
      );
      CREATE INDEX memory_entity_mentions_item ON memory_entity_mentions (item_id);
      CREATE TABLE memory_relations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bank text NOT NULL REFERENCES memory_banks(id) ON DELETE CASCADE,
        source_id uuid NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
        target_id uuid NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
        type text NOT NULL,
        item_id uuid NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,
        UNIQUE (source_id, target_id, type, item_id)
      );
      CREATE INDEX memory_relations_source ON memory_relations (source_id);
      CREATE INDEX memory_relations_target ON memory_relations (target_id);
      CREATE TABLE memory_graph_extractions (
        item_id uuid PRIMARY KEY REFERENCES memory_items(id) ON DELETE CASCADE,
        bank text NOT NULL,
        status text NOT NULL CHECK (status IN ('ok', 'failed')),
        attempts integer NOT NULL,
        error text,
        at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 3,
    name: 'bank names, descriptions, config; items by document',
    // The bank admin routes (banks.ts): a display name, a description and a free config
    // object per bank; documents are items grouped by document_id, listed per bank.
    sql: `
      ALTER TABLE memory_banks ADD COLUMN name text;
      ALTER TABLE memory_banks ADD COLUMN description text;
      ALTER TABLE memory_banks ADD COLUMN config jsonb NOT NULL DEFAULT '{}';
      ALTER TABLE memory_banks ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
      CREATE INDEX memory_items_bank_document ON memory_items (bank, document_id) WHERE document_id IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: 'hindsight outbox',
    // The degraded hindsight engine's writes, acknowledged while its daemon is down, replayed
    // in seq order when it answers again (src/memory/adapters/outbox.ts).
    sql: `
      CREATE TABLE IF NOT EXISTS memory_outbox (
        seq bigserial PRIMARY KEY,
        engine text NOT NULL,
        bank text NOT NULL,
        document_id text NOT NULL,
        item jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 5,
    name: 'graph extraction pending',
    // An item queued for graph extraction is marked pending before its add is answered, so a
    // gateway restarted before it was built queues it again (graph/service.ts, resume).
    sql: `
      ALTER TABLE memory_graph_extractions DROP CONSTRAINT IF EXISTS memory_graph_extractions_status_check;
      ALTER TABLE memory_graph_extractions ADD CONSTRAINT memory_graph_extractions_status_check CHECK (status IN ('ok', 'failed', 'pending'));
      CREATE INDEX IF NOT EXISTS memory_graph_extractions_pending ON memory_graph_extractions (status) WHERE status = 'pending';
    `,
  },
];

const LOCK_KEY = 727_027; // one advisory lock: two gateways on one server migrate one at a time

/** Brings the database to the latest version; returns the versions it applied. */
export async function runMigrations(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return withCheckedOut(pool, async (client) => {
    const applied: number[] = [];
    try {
      await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`memory migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    }
    return applied;
  });
}

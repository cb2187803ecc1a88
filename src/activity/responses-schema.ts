// The tables of stored /v1/responses answers (responses-store.ts), in the activity database
// file. The activity schema version is not bumped for them, so an older svc (a rollback)
// still opens the file; this module brings what such an svc left up to date at each open.
//
// Each item is stored once: in its response's `input` or `response.output`. The item table of
// earlier versions (response_items) held a second copy of every item with an id; what replaced
// it (response_item_refs) says only where the item stands, and a lookup reads it from there.
// Sizes live in `bytes`, read through the covering index responses_age: a column after the
// large texts would otherwise cost a walk of their overflow pages to reach.
import type Database from 'better-sqlite3';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS responses (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    input TEXT NOT NULL,
    response TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at);
  CREATE TABLE IF NOT EXISTS response_item_refs (
    id TEXT NOT NULL,
    response_id TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('input', 'output')),
    position INTEGER NOT NULL,
    PRIMARY KEY (id, response_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS response_item_refs_response ON response_item_refs (response_id);
`;

/** Where each item with an id stands, for every stored response. */
const REFS_OF_ROWS = `
  INSERT OR IGNORE INTO response_item_refs (id, response_id, source, position)
    SELECT json_extract(j.value, '$.id'), s.id, 'input', j.key FROM responses s, json_each(s.input) j
      WHERE json_type(j.value, '$.id') = 'text'
    UNION ALL
    SELECT json_extract(j.value, '$.id'), s.id, 'output', j.key FROM responses s, json_each(s.response, '$.output') j
      WHERE json_type(j.value, '$.id') = 'text'`;

/** Creates the tables, and brings a file an older svc wrote (or last opened) up to date. */
export function openResponseTables(db: Database.Database): void {
  db.transaction(() => {
    db.exec(SCHEMA);
    const columns = db.pragma('table_info(responses)') as Array<{ name: string }>;
    if (!columns.some((c) => c.name === 'bytes')) db.exec('ALTER TABLE responses ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0');
    db.exec('CREATE INDEX IF NOT EXISTS responses_age ON responses (created_at, id, bytes)');
    // Rows an older svc wrote have no size yet (the column's default); every real row has some.
    db.exec(`UPDATE responses SET bytes = length(CAST(input AS BLOB)) + length(CAST(response AS BLOB))
             WHERE id IN (SELECT id FROM responses INDEXED BY responses_age WHERE bytes = 0)`);
    const legacy = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'response_items'").get();
    if (legacy) {
      // Whatever wrote it (an earlier svc, or one rolled back to): the rows say where their items are.
      db.exec(REFS_OF_ROWS);
      db.exec('DROP TABLE response_items');
      // An older svc deleted responses without knowing of their references.
      db.exec('DELETE FROM response_item_refs WHERE response_id NOT IN (SELECT id FROM responses)');
    }
  })();
}

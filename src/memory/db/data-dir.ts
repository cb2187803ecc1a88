// Where the embedded memory database keeps its data, and whether it was initialised (initdb
// ran: PG_VERSION is there). Kept apart from the database code, which loads pg: the engine
// report asks this of a database that was never opened, and must not load it to answer.
import { access } from 'node:fs/promises';
import { join } from 'node:path';

export function embeddedDataDir(stateRoot: string): string {
  return join(stateRoot, 'memory', 'pg');
}

/** Whether initdb already ran in `dataDir`; false: the first start initialises it (seconds, most of a first use). */
export async function dataDirInitialised(dataDir: string): Promise<boolean> {
  return access(join(dataDir, 'PG_VERSION')).then(() => true, () => false);
}

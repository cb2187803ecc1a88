// GET /api/memory/banks/<id>/graph/subgraph (docs/api.md, "Memory graph"): a bank's graph, as entities
// linked by their relations or as memories linked by the entities they share. `top` takes
// the `limit` best nodes by `by` and the edges among them; `ego` walks out from `node`,
// `depth` steps, keeping each node's `top_k` strongest neighbours. Only items the viewer
// may read count: another agent's private memory adds no node, no edge and no weight.
import type { SubgraphAnswer, SubgraphEdge, SubgraphNode } from '../../protocol/memory-graph.js';
import type { MemoryDatabase } from '../db/database.js';
import { VISIBLE } from '../store-sql.js';
import type { MemoryViewer } from '../types.js';

export interface SubgraphQuery {
  kind: 'memories' | 'entities';
  mode: 'top' | 'ego';
  by: string;
  limit: number;
  node?: string;
  depth: number;
  topK: number;
}

// $1 bank, $2 and $3 the viewer's private and own tags, $4 the ids or the limit.
const VIS = `vis AS (SELECT id, text, type, ts FROM memory_items WHERE bank = $1 AND ${VISIBLE.replace(/\$P/g, '$2').replace(/\$O/g, '$3')})`;

const NODES = {
  entities: `nodes AS (
    SELECT e.id::text AS id, e.name AS label, e.type, count(DISTINCT m.item_id)::int AS weight, e.last_seen AS at,
      (SELECT count(*) FROM memory_relations r WHERE (r.source_id = e.id OR r.target_id = e.id) AND r.item_id IN (SELECT id FROM vis))::int AS degree
    FROM memory_entities e JOIN memory_entity_mentions m ON m.entity_id = e.id JOIN vis ON vis.id = m.item_id
    WHERE e.bank = $1 GROUP BY e.id)`,
  memories: `nodes AS (
    SELECT vis.id::text AS id, left(vis.text, 120) AS label, vis.type, count(m.entity_id)::int AS weight, vis.ts AS at, 0 AS degree
    FROM vis LEFT JOIN memory_entity_mentions m ON m.item_id = vis.id GROUP BY vis.id, vis.text, vis.type, vis.ts)`,
};

/** The edges touching the ids in $4 (relations of entities; shared entities of memories). */
const LINKS = {
  entities: `SELECT r.source_id::text AS source, r.target_id::text AS target, r.type, count(*)::int AS weight
    FROM memory_relations r JOIN vis ON vis.id = r.item_id
    WHERE r.bank = $1 AND (r.source_id = ANY($4::uuid[]) OR r.target_id = ANY($4::uuid[])) GROUP BY 1, 2, 3`,
  memories: `SELECT a.item_id::text AS source, b.item_id::text AS target, 'shares_entity' AS type, count(*)::int AS weight
    FROM memory_entity_mentions a JOIN memory_entity_mentions b ON b.entity_id = a.entity_id AND b.item_id <> a.item_id
    JOIN vis ON vis.id = b.item_id WHERE a.item_id = ANY($4::uuid[]) GROUP BY 1, 2`,
};

const ORDER: Record<string, string> = {
  mentions: 'weight DESC, at DESC, id', entities: 'weight DESC, at DESC, id', degree: 'degree DESC, weight DESC, id', recent: 'at DESC, id',
};

interface NodeRecord { id: string; label: string; type: string; weight: number; at: Date }

const toNode = (kind: SubgraphQuery['kind'], r: NodeRecord): SubgraphNode => ({
  id: r.id, kind: kind === 'entities' ? 'entity' : 'memory', label: r.label, type: r.type, weight: r.weight, timestamp: r.at.toISOString(),
});

/** The subgraph; null when `node` (ego) is not a node the viewer can see in this bank. */
export async function subgraph(db: Pick<MemoryDatabase, 'query'>, bank: string, viewer: MemoryViewer, q: SubgraphQuery): Promise<SubgraphAnswer | null> {
  const withNodes = `WITH ${VIS}, ${NODES[q.kind]}`;
  const base = [bank, viewer.privateTag, viewer.ownTag];
  const links = async (ids: readonly string[]) => ids.length === 0 ? [] : (await db.query<SubgraphEdge>(`WITH ${VIS} ${LINKS[q.kind]}`, [...base, ids])).rows;
  let ids: string[];
  let truncated = false;
  if (q.mode === 'top') {
    const { rows } = await db.query<{ id: string }>(`${withNodes} SELECT id FROM nodes ORDER BY ${ORDER[q.by]} LIMIT $4`, [...base, q.limit + 1]);
    truncated = rows.length > q.limit;
    ids = rows.slice(0, q.limit).map((r) => r.id);
  } else {
    const start = await db.query(`${withNodes} SELECT id FROM nodes WHERE id = $4`, [...base, q.node]);
    if (start.rowCount === 0) return null;
    const seen = new Set<string>([q.node!]);
    let frontier = [q.node!];
    for (let step = 0; step < q.depth && frontier.length > 0 && !truncated; step++) {
      const strongest = new Map<string, Array<{ id: string; weight: number }>>();
      for (const edge of await links(frontier)) {
        const [from, to] = frontier.includes(edge.source) ? [edge.source, edge.target] : [edge.target, edge.source];
        const list = strongest.get(from) ?? [];
        const known = list.find((n) => n.id === to);
        if (known) known.weight += edge.weight;
        else list.push({ id: to, weight: edge.weight });
        strongest.set(from, list);
      }
      const next: string[] = [];
      for (const from of frontier) {
        const ranked = (strongest.get(from) ?? []).filter((n) => !seen.has(n.id)).sort((a, b) => b.weight - a.weight || a.id.localeCompare(b.id)).slice(0, q.topK);
        for (const { id } of ranked) {
          if (seen.has(id)) continue; // a neighbour of two frontier nodes
          if (seen.size >= q.limit) {
            truncated = true;
            break;
          }
          seen.add(id);
          next.push(id);
        }
      }
      frontier = next;
    }
    ids = [...seen];
  }
  const nodeRows = ids.length === 0 ? [] : (await db.query<NodeRecord>(`${withNodes} SELECT id, label, type, weight, at FROM nodes WHERE id = ANY($4::text[])`, [...base, ids])).rows;
  const order = new Map(ids.map((id, at) => [id, at]));
  const nodes = nodeRows.map((r) => toNode(q.kind, r)).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const inSet = new Set(ids);
  const edges = (await links(ids)).filter((e) => inSet.has(e.source) && inSet.has(e.target) && (q.kind === 'entities' || e.source < e.target));
  return { bank, kind: q.kind, mode: q.mode, by: q.by, nodes, edges, truncated };
}

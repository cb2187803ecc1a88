// The graph of one bank (GET /api/memory/banks/<id>/graph/subgraph, top mode): its entities
// (or memories) on a circle, the relations between them as lines. A gateway without graph
// extraction answers 404 there, which the view says plainly instead of failing.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { fetchSubgraph, type Subgraph } from './memory-api.js';

const SIZE = 520;
const RADIUS = 200;

function Drawing({ graph }: { graph: Subgraph }) {
  const at = new Map(graph.nodes.map((node, i) => {
    const angle = (2 * Math.PI * i) / Math.max(graph.nodes.length, 1);
    return [node.id, { x: SIZE / 2 + RADIUS * Math.cos(angle), y: SIZE / 2 + RADIUS * Math.sin(angle) }];
  }));
  return (
    <svg viewBox={`0 0 ${SIZE} ${SIZE}`} className="graph" role="img" aria-label={`${graph.nodes.length} nodes, ${graph.edges.length} edges`} data-testid="graph-drawing">
      {graph.edges.map((edge, i) => {
        const [a, b] = [at.get(edge.source), at.get(edge.target)];
        if (!a || !b) return null;
        return (
          <line key={i} x1={a.x} y1={a.y} x2={b.x} y2={b.y} className="graph-edge">
            <title>{edge.type}</title>
          </line>
        );
      })}
      {graph.nodes.map((node) => {
        const p = at.get(node.id)!;
        return (
          <g key={node.id} data-testid="graph-node">
            <circle cx={p.x} cy={p.y} r={5 + Math.min(node.weight, 10)} className={`graph-node graph-node-${node.kind}`} />
            <text x={p.x} y={p.y - 10} textAnchor="middle" className="graph-label">{node.label.slice(0, 24)}</text>
            <title>{`${node.label} (${node.type})`}</title>
          </g>
        );
      })}
    </svg>
  );
}

export function GraphView({ bank }: { bank: string }) {
  const [kind, setKind] = useState<'entities' | 'memories'>('entities');
  const graph = useQuery({ queryKey: ['memory', 'graph', bank, kind], queryFn: ({ signal }) => fetchSubgraph(bank, kind, signal) });
  return (
    <div className="card" data-testid="memory-graph">
      <div className="toolbar">
        <h2>Graph of <code>{bank}</code></h2>
        <select aria-label="Nodes" value={kind} onChange={(e) => setKind(e.target.value as 'entities' | 'memories')} data-testid="graph-kind">
          <option value="entities">Entities</option>
          <option value="memories">Memories</option>
        </select>
      </div>
      {graph.error && <ErrorNote error={graph.error} />}
      {graph.data === null && <p className="muted" data-testid="graph-unavailable">Graph not available: this gateway builds no memory graph (graph extraction is not here or not enabled).</p>}
      {graph.data && graph.data.nodes.length === 0 && <p className="muted" data-testid="graph-empty">No {kind} in this bank's graph yet (extraction runs when <code>[memory.graph]</code> is enabled).</p>}
      {graph.data && graph.data.nodes.length > 0 && <Drawing graph={graph.data} />}
      {graph.data?.truncated && <p className="muted">Showing the top {graph.data.nodes.length}.</p>}
    </div>
  );
}

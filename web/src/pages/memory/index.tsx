// The Memory page: /memory (docs/dashboard.md "Memory"): the engine, the banks with their
// counts, adding an item (tags, dataset, private), search and recall with their scores,
// deleting an item after a confirmation, and the graph of a bank. What whoami's grants do
// not allow is disabled, saying why.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { useTitle } from '../../router.js';
import { AddForm } from './add-form.js';
import { GraphView } from './graph-view.js';
import { banksQuery, engineQuery } from './memory-api.js';
import { SearchPanel } from './search-panel.js';
import './memory.css';
import { DataTable } from '../../components/data-table.js';

function EngineCard() {
  const access = useAccess();
  const engine = useQuery({ ...engineQuery, refetchInterval: 10_000, enabled: access.can('read') });
  const view = engine.data;
  return (
    <div className="card" data-testid="memory-engine">
      <h2>Engine</h2>
      {engine.error && <ErrorNote error={engine.error} />}
      {view && (
        <dl className="facts">
          <dt>Engine</dt>
          <dd data-testid="engine-name">{view.engine}{view.kind && <span className="muted"> ({view.kind})</span>}</dd>
          <dt>State</dt>
          <dd data-testid="engine-state">{!view.enabled ? 'off' : view.reachable ? 'reachable' : view.state === 'stopped' ? 'stopped (starts on the next memory request)' : 'not reachable'}</dd>
          {view.version && (<><dt>pgvector</dt><dd>{view.version}</dd></>)}
          {view.pid !== null && (<><dt>Process</dt><dd>pid {view.pid}{view.rss_bytes !== null && `, ${Math.round(view.rss_bytes / 1048576)} MiB`}</dd></>)}
          <dt>Banks</dt>
          <dd>{view.banks_total ?? '—'}</dd>
          {view.error && (<><dt>Note</dt><dd className="muted">{view.error}</dd></>)}
        </dl>
      )}
    </div>
  );
}

function BanksCard({ onPick, picked, usable }: { onPick: (bank: string) => void; picked: string | undefined; usable: boolean }) {
  const banks = useQuery({ ...banksQuery, enabled: usable });
  return (
    <div className="card" data-testid="memory-banks">
      <h2>Banks</h2>
      {!usable && <p className="muted" data-testid="memory-unusable">Memory is not available on this engine now (see the engine card).</p>}
      {banks.error && <ErrorNote error={banks.error} />}
      {banks.data && banks.data.banks.length === 0 && <p className="muted">No banks yet: the first item added makes <code>shared</code>.</p>}
      {banks.data && banks.data.banks.length > 0 && (
        <DataTable columns={['Bank', 'Items', 'Dimension', 'Graph']}>
          {banks.data.banks.map((bank) => (
            <tr key={bank.id} data-testid={`bank-${bank.id}`}>
              <td><code>{bank.id}</code></td>
              <td data-testid="bank-items">{bank.items}</td>
              <td>{bank.dimension ?? '—'}</td>
              <td>
                <button type="button" onClick={() => onPick(bank.id)} aria-pressed={picked === bank.id} data-testid="bank-graph">
                  Show graph
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}

export default function MemoryPage() {
  useTitle('Memory');
  const access = useAccess();
  // Banks, search and the graph are asked only of an engine that serves them (memory on, an
  // engine that searches; the embedded store opens on first use, but a daemon engine must be
  // reachable: a degraded hindsight answers bank administration 503), so a page opened on
  // such a gateway makes no request that fails.
  const engine = useQuery({ ...engineQuery, enabled: access.can('read') });
  const usable = engine.data !== undefined && engine.data.enabled && engine.data.features.search && (engine.data.engine === 'pgvector' || engine.data.reachable);
  const banks = useQuery({ ...banksQuery, enabled: usable });
  const [graphBank, setGraphBank] = useGraphBank(banks.data?.banks[0]?.id);
  return (
    <section className="page memory-page">
      <h1>Memory</h1>
      <div className="columns">
        <EngineCard />
        <BanksCard onPick={setGraphBank} picked={graphBank} usable={usable} />
      </div>
      <div className="columns">
        <AddForm locked={!usable || !access.can('write')} why={access.why('write') ?? (usable ? undefined : 'memory is not available on this engine now')} />
        <SearchPanel canRead={usable && access.can('read')} canDelete={access.can('write')} why={access.why('write')} />
      </div>
      {usable && graphBank !== undefined && <GraphView bank={graphBank} />}
    </section>
  );
}

/** The bank whose graph is shown: the one picked, else the first. */
function useGraphBank(first: string | undefined): [string | undefined, (bank: string) => void] {
  const [picked, setPicked] = useState<string | undefined>(undefined);
  return [picked ?? first, setPicked];
}

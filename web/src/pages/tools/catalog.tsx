// The catalog (GET /api/mcp/catalog): curated servers and, after a refresh, the official MCP
// Registry's. Each installs from its npm spec after a confirmation saying what that runs.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { McpCatalogItem } from '../../../../src/protocol/mcp.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { navigate } from '../../router.js';
import { isUrl } from './install-request.js';
import { mcpApi } from './mcp-api.js';
import { catalogQuery, serversQuery } from './queries.js';
import { DataTable } from '../../components/data-table.js';

const SHOWN = 40;
const HOST_ONLY = 'installing a program on the gateway\'s host needs this host or an admin token';

/** One catalog entry; `why` says why it cannot be installed by this caller (undefined: it can). */
function CatalogRow({ item, why, onChoose }: { item: McpCatalogItem; why: string | undefined; onChoose: (item: McpCatalogItem) => void }) {
  return (
    <tr data-testid={`catalog-${item.id}`}>
      <td>
        {item.homepage ? <a href={item.homepage} rel="noreferrer" target="_blank">{item.name || item.id}</a> : item.name || item.id}
        <div className="muted">
          {item.category} · {item.source}
        </div>
      </td>
      <td className="wrap">{item.description}</td>
      <td>
        <code>{item.spec}</code>
      </td>
      <td>
        {item.installed ? (
          <span className="muted">installed</span>
        ) : (
          <button type="button" disabled={why !== undefined} title={why} onClick={() => onChoose(item)} aria-label={`install ${item.id}`}>
            Install…
          </button>
        )}
      </td>
    </tr>
  );
}

/** What installing an entry does, for its confirmation. */
function InstallChanges({ item }: { item: McpCatalogItem }) {
  return (
    <ul>
      {isUrl(item.spec) ? (
        <li>svc connects to <code>{item.spec}</code> and reads its tools.</li>
      ) : (
        <li>
          npm installs <code>{item.spec}</code> on the gateway's host, and svc runs it there as <code>{item.id}</code>.
        </li>
      )}
      <li>Its tools are offered to omni chats under their policy, which its page lets you change (gate or block a tool).</li>
    </ul>
  );
}

export function Catalog() {
  const queries = useQueryClient();
  const access = useAccess();
  const catalog = useQuery(catalogQuery);
  const [filter, setFilter] = useState('');
  const [category, setCategory] = useState('');
  const [chosen, setChosen] = useState<McpCatalogItem | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const refresh = async () => {
    setRefreshing(true);
    setError(null);
    try {
      queries.setQueryData(catalogQuery.queryKey, await mcpApi.refreshCatalog());
    } catch (failure) {
      setError(failure);
    } finally {
      setRefreshing(false);
    }
  };
  const install = async (item: McpCatalogItem) => {
    const installed = await mcpApi.install(isUrl(item.spec) ? { url: item.spec, id: item.id } : { spec: item.spec, id: item.id });
    void queries.invalidateQueries({ queryKey: serversQuery.queryKey });
    navigate(`/tools/${encodeURIComponent(installed.id)}`);
  };
  const words = filter.trim().toLowerCase();
  const items = (catalog.data?.items ?? []).filter(
    (item) => (category === '' || item.category === category) && (words === '' || `${item.id} ${item.name} ${item.description}`.toLowerCase().includes(words)),
  );
  const why = (item: McpCatalogItem) => access.why('write') ?? (!isUrl(item.spec) && !access.hostAuthority ? HOST_ONLY : undefined);
  return (
    <div className="card" data-testid="catalog">
      <div className="toolbar">
        <h2>Catalog</h2>
        <span className="muted">{catalog.data?.refreshed_at ? `registry read ${new Date(catalog.data.refreshed_at).toLocaleString()}` : 'curated list; the registry not read yet'}</span>
        <button type="button" onClick={() => void refresh()} disabled={refreshing || !access.can('write')} title={access.why('write')} data-testid="catalog-refresh">
          {refreshing ? 'Refreshing…' : 'Refresh from the registry'}
        </button>
      </div>
      <div className="toolbar">
        <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="filter" aria-label="filter the catalog" />
        <select value={category} onChange={(e) => setCategory(e.target.value)} aria-label="category">
          <option value="">every category</option>
          {(catalog.data?.categories ?? []).map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {error !== null && <ErrorNote error={error} />}
      {catalog.error && <ErrorNote error={catalog.error} />}
      {catalog.data && items.length === 0 && <p className="muted">Nothing in the catalog matches.</p>}
      {items.length > 0 && (
        <DataTable columns={['Server', 'What it does', 'Spec', { hidden: 'Install' }]}>
          {items.slice(0, SHOWN).map((item) => (
            <CatalogRow key={`${item.source}:${item.id}`} item={item} why={why(item)} onChoose={setChosen} />
          ))}
        </DataTable>
      )}
      {items.length > SHOWN && <p className="muted">{items.length - SHOWN} more: filter to find them.</p>}
      {chosen && (
        <Confirm
          title={`Install ${chosen.name || chosen.id}?`}
          action="Install"
          danger={false}
          onConfirm={() => install(chosen)}
          onClose={() => setChosen(null)}
          changes={<InstallChanges item={chosen} />}
        />
      )}
    </div>
  );
}

// The registry (GET /api/models): each model's id, size, quant, architecture, context, where
// it lives and which slots use it (with GET /api/slots), and its actions; a scan of the roots.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ModelPayload, ScanModelsPayload } from '../../../../src/protocol/models.js';
import type { SlotViewPayload } from '../../../../src/protocol/slots.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { slotsQuery } from '../../queries.js';
import { modelsQuery } from './queries.js';
import { formatBytes } from './pull-math.js';
import { slotsUsing } from './usage.js';
import { ModelActions } from './model-actions.js';
import { DataTable } from '../../components/data-table.js';

function ModelRow({ model, slots }: { model: ModelPayload; slots: SlotViewPayload[] }) {
  const uses = slotsUsing(model, slots);
  return (
    <tr data-testid={`model-${model.id}`}>
      <th scope="row">
        {model.id}
        {model.name && <div className="muted">{model.name}</div>}
      </th>
      <td>{model.size_bytes === null ? '—' : formatBytes(model.size_bytes)}</td>
      <td>{model.quant ?? '—'}</td>
      <td>{model.architecture ?? '—'}</td>
      <td>{model.context_length?.toLocaleString() ?? '—'}</td>
      <td className="model-where">
        <code title={model.path}>{model.path}</code>
        <div className="muted">
          {model.source}
          {model.hf_repo && ` · ${model.hf_repo}`}
          {model.mmproj && ' · with mmproj'}
          {!model.present && <span className="fit fit-too-big"> file missing</span>}
        </div>
      </td>
      <td data-testid="used-by">
        {uses.length === 0
          ? '—'
          : uses.map((use) => (
              <div key={use.slot} title={use.isDefault ? 'its default model' : 'running it now'}>
                {use.slot}
                {!use.isDefault && <span className="muted"> (now)</span>}
              </div>
            ))}
      </td>
      <td>
        <ModelActions model={model} uses={uses} slots={slots} />
      </td>
    </tr>
  );
}

function ScanButton() {
  const queries = useQueryClient();
  const access = useAccess();
  const [result, setResult] = useState<ScanModelsPayload | null>(null);
  const [error, setError] = useState<unknown>(null);
  const scan = async () => {
    setError(null);
    try {
      setResult(await sendJson<ScanModelsPayload>('POST', '/api/models/scan'));
      void queries.invalidateQueries({ queryKey: modelsQuery.queryKey });
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button type="button" onClick={scan} disabled={!access.can('write')} title={access.why('write')}>
        Scan the roots
      </button>
      {result && (
        <span className="muted" role="status">
          found {result.found}, added {result.added.length}
          {result.skipped.length > 0 && `, skipped ${result.skipped.length}`}
        </span>
      )}
      {error !== null && <ErrorNote error={error} />}
    </>
  );
}

export function Registry() {
  const models = useQuery(modelsQuery);
  const slots = useQuery(slotsQuery);
  const list = models.data?.models ?? [];
  return (
    <section className="card" aria-labelledby="registry-title" data-testid="registry">
      <h2 id="registry-title">Registry</h2>
      <div className="toolbar">
        <ScanButton />
        {models.data?.store && (
          <span className="muted">
            store <code>{models.data.store}</code>
          </span>
        )}
      </div>
      {models.error && <ErrorNote error={models.error} />}
      {slots.error && <ErrorNote error={slots.error} />}
      {models.data && list.length === 0 && <p className="muted">No models yet: register a file, scan the roots, or pull one.</p>}
      {list.length > 0 && (
        <DataTable columns={['id', 'size', 'quant', 'architecture', 'context', 'where', 'slots', 'actions']}>
          {list.map((model) => (
            <ModelRow key={model.id} model={model} slots={slots.data?.slots ?? []} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

// Every stack, built-in (immutable) and the user's: what it runs, and apply, export and
// (for a user stack) delete.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { StackPayload } from '../../../../src/protocol/stacks.js';
import { ErrorNote } from '../../components/error-note.js';
import { Confirm } from '../../components/confirm.js';
import { useAccess } from '../../access.js';
import { sendJson } from '../../api-error.js';
import { Link } from '../../router.js';
import { stackPath, stacksQuery } from './queries.js';
import { ExportButton } from './export-button.js';

/** A row's enabled child capabilities (embed, rerank, …), each its own slot `<row>-<child>`. */
function childNames(row: StackPayload['slots'][number]): string[] {
  const children = Array.isArray(row.capabilities) ? (row.capabilities as Array<{ child: string; enabled?: boolean }>) : [];
  return children.filter((c) => c.enabled !== false).map((c) => c.child);
}

/** The slots a stack names, children as `chat-embed`. */
function stackSlotNames(stack: Pick<StackPayload, 'slots'>): string[] {
  return stack.slots.flatMap((row) => [String(row.slot), ...childNames(row).map((child) => `${String(row.slot)}-${child}`)]);
}

function StackCard({ stack, onDelete }: { stack: StackPayload; onDelete: (stack: StackPayload) => void }) {
  const access = useAccess();
  return (
    <article className="card stack-card" data-testid={`stack-${stack.slug}`}>
      <header>
        <h3>
          {stack.icon && <span aria-hidden="true">{stack.icon} </span>}
          {stack.name}
        </h3>
        <span className="badge">{stack.seed ? 'built in' : 'yours'}</span>
      </header>
      <p className="muted">
        <code>{stack.slug}</code> {stack.description}
      </p>
      <ul className="stack-rows">
        {stack.slots.map((row) => (
          <li key={String(row.slot)}>
            <strong>{String(row.slot)}</strong> <span className="muted">{String(row.model)}</span>
            {childNames(row).length > 0 && <span className="muted"> · with {childNames(row).join(', ')}</span>}
          </li>
        ))}
      </ul>
      <div className="actions">
        <ExportButton slug={stack.slug} />
        {!stack.seed && (
          <button type="button" className="danger" onClick={() => onDelete(stack)} aria-label={`Delete stack ${stack.slug}`} disabled={!access.can('write')} title={access.why('write')}>
            Delete
          </button>
        )}
        <Link to={`/stacks/apply/${encodeURIComponent(stack.slug)}`}>Plan & apply…</Link>
      </div>
    </article>
  );
}

export function StackList() {
  const stacks = useQuery(stacksQuery);
  const queries = useQueryClient();
  const [deleting, setDeleting] = useState<StackPayload | null>(null);
  if (stacks.error) return <ErrorNote error={stacks.error} />;
  if (!stacks.data) return <p className="muted">Loading…</p>;
  return (
    <>
      <div className="cards" data-testid="stacks">
        {stacks.data.stacks.map((stack) => (
          <StackCard key={stack.slug} stack={stack} onDelete={setDeleting} />
        ))}
      </div>
      {deleting && (
        <Confirm
          title={`Delete stack ${deleting.slug}?`}
          changes={
            <p>
              Removes <code>{deleting.slug}</code> from stacks.toml. No slot changes: the slots it named keep running as they are ({stackSlotNames(deleting).join(', ')}).
            </p>
          }
          action="Delete"
          onConfirm={async () => {
            await sendJson('DELETE', stackPath(deleting.slug));
            await queries.invalidateQueries({ queryKey: stacksQuery.queryKey });
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}

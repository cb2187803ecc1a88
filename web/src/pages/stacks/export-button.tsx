// Export a stack as a file: the envelope from GET /api/stacks/<slug>/export, saved through a
// Blob and an <a download> (the page's CSP allows blob: downloads; nothing is inlined).
import { useState } from 'react';
import type { StackEnvelopePayload } from '../../../../src/protocol/stacks.js';
import { getJson } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import { envelopeFileName } from './envelope-check.js';
import { stackPath } from './queries.js';

function saveAs(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file over; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ExportButton({ slug }: { slug: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const exportStack = async () => {
    setBusy(true);
    setError(null);
    try {
      const envelope = await getJson<StackEnvelopePayload>(`${stackPath(slug)}/export`);
      saveAs(`${JSON.stringify(envelope, null, 2)}\n`, envelopeFileName(slug));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={exportStack} disabled={busy} data-testid={`export-${slug}`} aria-label={`Export stack ${slug}`}>
        {busy ? 'Exporting…' : 'Export'}
      </button>
      {error !== null && <ErrorNote error={error} />}
    </>
  );
}

// Adding an item: its text, tags (comma separated), a dataset, and whether it is private (sent
// as X-Svc-Private: only the dashboard's agent reads it back). The banks refresh after.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { memoryApi } from './memory-api.js';

export function AddForm({ locked, why }: { locked: boolean; why: string | undefined }) {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [tags, setTags] = useState('');
  const [dataset, setDataset] = useState('');
  const [priv, setPriv] = useState(false);
  const add = useMutation({
    mutationFn: () => memoryApi.add({ text, tags: tags.split(',').map((t) => t.trim()).filter(Boolean), dataset: dataset.trim() || undefined, private: priv }),
    onSuccess: () => {
      setText('');
      void client.invalidateQueries({ queryKey: ['memory'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== '') add.mutate();
  };
  return (
    <form className="card" onSubmit={submit} data-testid="memory-add">
      <h2>Add</h2>
      <div className="field">
        <label htmlFor="memory-text">Text</label>
        <textarea id="memory-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} disabled={locked} data-testid="add-text" />
      </div>
      <div className="field">
        <label htmlFor="memory-tags">Tags <span className="muted">(comma separated)</span></label>
        <input id="memory-tags" value={tags} onChange={(e) => setTags(e.target.value)} disabled={locked} data-testid="add-tags" />
      </div>
      <div className="field">
        <label htmlFor="memory-dataset">Dataset</label>
        <input id="memory-dataset" value={dataset} onChange={(e) => setDataset(e.target.value)} disabled={locked} data-testid="add-dataset" />
      </div>
      <label className="check">
        <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} disabled={locked} data-testid="add-private" /> Private (only the dashboard reads it back)
      </label>
      {add.error && <ErrorNote error={add.error} />}
      {add.data && <p className="muted" data-testid="add-done">Added <code>{add.data.id}</code></p>}
      <div className="actions">
        <button type="submit" className="primary" disabled={locked || add.isPending || text.trim() === ''} title={why} data-testid="add-submit">
          {add.isPending ? 'Adding…' : 'Add'}
        </button>
      </div>
    </form>
  );
}

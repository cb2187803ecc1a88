// /slots/<name>: the slot's state (live), what it runs and how it would start, its actions,
// a model swap, and its engine log following live.
import { useState } from 'react';
import { ErrorNote } from '../../components/error-note.js';
import { Link, useTitle } from '../../router.js';
import { EngineLog } from './engine-log.js';
import { SlotActions } from './slot-actions.js';
import { LaunchFacts, SlotFacts } from './slot-facts.js';
import { takeNote } from './slot-notes.js';
import { SwapModel } from './swap-model.js';
import { useSlotLive } from './use-slot-live.js';

export function SlotDetail({ name }: { name: string }) {
  useTitle(`slot ${name}`);
  const { detail, error, deleted } = useSlotLive(name);
  const [note] = useState(() => takeNote(name));
  return (
    <section className="page">
      <p className="crumbs">
        <Link to="/slots">Slots</Link> /
      </p>
      <div className="toolbar slots-head">
        <h1>Slot {name}</h1>
        {detail && (
          <span className={`state state-${detail.state}`} data-testid="detail-state" data-state={detail.state}>
            {detail.state}
          </span>
        )}
      </div>
      {note.map((line) => (
        <p key={line} className="warn-note" data-testid="slot-note">
          {line}
        </p>
      ))}
      {deleted && (
        <p className="warn-note" role="status">
          This slot was deleted. <Link to="/slots">Back to the slots</Link>
        </p>
      )}
      {error !== null && !deleted && <ErrorNote error={error} />}
      {detail && !deleted && (
        <>
          <SlotActions slot={detail} />
          <div className="columns">
            <div className="card">
              <h2>Now</h2>
              <SlotFacts slot={detail} />
            </div>
            <div className="card">
              <h2>Swap model</h2>
              <SwapModel slot={detail} />
              <h2>Next start</h2>
              <LaunchFacts slot={detail} />
            </div>
          </div>
          <EngineLog name={name} />
        </>
      )}
      {!detail && error === null && !deleted && <p className="muted">Loading…</p>}
    </section>
  );
}

// The filter controls: type (an action family or an exact action from a link), outcome,
// slot, and a time range in the browser's time zone. Each change applies at once.
import { useQuery } from '@tanstack/react-query';
import { Field } from '../../components/field.js';
import { slotsQuery } from '../../queries.js';
import { ACTION_FAMILIES, NO_FILTERS, isoOfLocalInput, localInputOf, type ActivityFilters, type Outcome } from './filters.js';

interface FilterBarProps {
  filters: ActivityFilters;
  onChange: (next: ActivityFilters) => void;
  /** Problems the API found in the query, by parameter (since, until, …). */
  problems: Record<string, string>;
}

export function FilterBar({ filters, onChange, problems }: FilterBarProps) {
  const slots = useQuery(slotsQuery);
  const set = (patch: Partial<ActivityFilters>) => onChange({ ...filters, ...patch });
  const families = ACTION_FAMILIES.map((family) => `${family}.*`);
  // An exact action or another prefix arrives from a link: keep it choosable.
  const types = filters.type && !families.includes(filters.type) ? [filters.type, ...families] : families;
  const slotNames = (slots.data?.slots ?? []).map((slot) => slot.name);
  if (filters.slot && !slotNames.includes(filters.slot)) slotNames.unshift(filters.slot);
  return (
    <form className="activity-filters" data-testid="activity-filters" onSubmit={(event) => event.preventDefault()}>
      <Field label="Type" problem={problems.action}>
        <select value={filters.type} onChange={(event) => set({ type: event.target.value })} data-testid="filter-type">
          <option value="">any</option>
          {types.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Outcome" problem={problems.outcome}>
        <select value={filters.outcome} onChange={(event) => set({ outcome: event.target.value as Outcome })} data-testid="filter-outcome">
          <option value="">any</option>
          <option value="ok">ok (info)</option>
          <option value="error">error (warn)</option>
        </select>
      </Field>
      <Field label="Slot" problem={problems.target}>
        <select value={filters.slot} onChange={(event) => set({ slot: event.target.value })} data-testid="filter-slot">
          <option value="">any</option>
          {slotNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="From" problem={problems.since}>
        <input type="datetime-local" value={localInputOf(filters.since)} onChange={(event) => set({ since: isoOfLocalInput(event.target.value) })} data-testid="filter-since" />
      </Field>
      <Field label="Until" problem={problems.until}>
        <input type="datetime-local" value={localInputOf(filters.until)} onChange={(event) => set({ until: isoOfLocalInput(event.target.value) })} data-testid="filter-until" />
      </Field>
      <button type="button" onClick={() => onChange(NO_FILTERS)} disabled={Object.values(filters).every((value) => !value)}>
        Clear filters
      </button>
    </form>
  );
}

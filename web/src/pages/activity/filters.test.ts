import { describe, expect, it } from 'vitest';
import { activityPath, filtersFromSearch, isoOfLocalInput, localInputOf, NO_FILTERS, rowMatches, searchOf } from './filters.js';

const row = { action: 'slot.load', target: 'chat', outcome: 'ok', ts: '2026-05-01T12:00:00.000Z' };

describe('activity filters', () => {
  it('round-trip through the URL, dropping what is not a filter', () => {
    const filters = filtersFromSearch('?type=slot.*&slot=chat&outcome=error&since=2026-05-01T10:00:00%2B02:00&junk=1');
    expect(filters).toEqual({ type: 'slot.*', outcome: 'error', slot: 'chat', since: '2026-05-01T08:00:00.000Z', until: '' });
    expect(searchOf(filters)).toBe('?type=slot.*&outcome=error&slot=chat&since=2026-05-01T08%3A00%3A00.000Z');
    expect(filtersFromSearch(searchOf(filters))).toEqual(filters);
    expect(searchOf(NO_FILTERS)).toBe('');
    expect(filtersFromSearch('?outcome=warn&since=yesterday')).toEqual(NO_FILTERS);
  });

  it('become the API query: action, target, outcome, time range, page size and cursor', () => {
    const path = activityPath({ type: 'model.*', outcome: 'ok', slot: 'chat', since: '2026-05-01T00:00:00.000Z', until: '' }, 'abc');
    const params = new URL(path, 'http://x').searchParams;
    expect(Object.fromEntries(params)).toEqual({ action: 'model.*', target: 'chat', outcome: 'ok', since: '2026-05-01T00:00:00.000Z', limit: '50', cursor: 'abc' });
    expect(activityPath(NO_FILTERS, null)).toBe('/api/activity?limit=50');
  });

  it('judge a live row as the API would: exact action or prefix, slot, outcome, half-open time range', () => {
    expect(rowMatches(NO_FILTERS, row)).toBe(true);
    expect(rowMatches({ ...NO_FILTERS, type: 'slot.*' }, row)).toBe(true);
    expect(rowMatches({ ...NO_FILTERS, type: 'slot.load' }, row)).toBe(true);
    expect(rowMatches({ ...NO_FILTERS, type: 'slot' }, row)).toBe(false);
    expect(rowMatches({ ...NO_FILTERS, type: 'slo.*' }, row)).toBe(false);
    expect(rowMatches({ ...NO_FILTERS, slot: 'embed' }, row)).toBe(false);
    expect(rowMatches({ ...NO_FILTERS, outcome: 'error' }, row)).toBe(false);
    expect(rowMatches({ ...NO_FILTERS, since: row.ts }, row)).toBe(true);
    expect(rowMatches({ ...NO_FILTERS, until: row.ts }, row)).toBe(false);
    expect(rowMatches({ ...NO_FILTERS, until: '2026-05-01T12:00:00.001Z' }, row)).toBe(true);
  });

  it('convert datetime-local values in the browser zone to UTC and back', () => {
    const iso = isoOfLocalInput('2026-05-01T12:30');
    expect(iso).toBe(new Date(2026, 4, 1, 12, 30).toISOString());
    expect(localInputOf(iso)).toBe('2026-05-01T12:30');
    expect(isoOfLocalInput('')).toBe('');
  });
});

// The filters live in the page's URL query, so a filtered view can be linked or bookmarked.
// A change replaces the history entry (a filter tweak is not a page to go back to); the back
// button and a pasted link are read through popstate and the first render.
import { useCallback, useEffect, useState } from 'react';
import { filtersFromSearch, searchOf, type ActivityFilters } from './filters.js';

export function useUrlFilters(): [ActivityFilters, (next: ActivityFilters) => void] {
  const [filters, setFilters] = useState(() => filtersFromSearch(window.location.search));
  useEffect(() => {
    const reread = () => setFilters(filtersFromSearch(window.location.search));
    window.addEventListener('popstate', reread);
    return () => window.removeEventListener('popstate', reread);
  }, []);
  const change = useCallback((next: ActivityFilters) => {
    window.history.replaceState(window.history.state, '', `${window.location.pathname}${searchOf(next)}`);
    setFilters(next);
  }, []);
  return [filters, change];
}

// Path routes (/, /slots, …: linkable, no # fragments) over the History API. The pages are
// few and flat, so a table and popstate do what a router library would; pages after the
// first are lazy chunks (React.lazy), which keeps the first load small.
import { useEffect, useSyncExternalStore, type ComponentType, type MouseEvent, type ReactNode } from 'react';

export interface Route {
  path: string;
  /** The nav label, and the page title after "svc ·". */
  title: string;
  page: ComponentType;
}

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
};

export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

export const usePath = (): string => useSyncExternalStore(subscribe, () => window.location.pathname);

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `svc · ${title}`;
  }, [title]);
}

export function Link({ to, children, current }: { to: string; children: ReactNode; current?: boolean }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    // Let the browser open new tabs and windows itself.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={follow} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

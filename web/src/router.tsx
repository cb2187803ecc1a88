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

/** The route that owns `path`: its own path, or a sub-path of it (/slots/chat is /slots's). */
export function routeFor<R extends { path: string }>(routes: readonly R[], path: string): R | undefined {
  return routes.find((r) => r.path === path) ?? routes.find((r) => r.path !== '/' && path.startsWith(`${r.path}/`));
}

/** The path below a page's route, split ("/slots/chat/edit" under "/slots" is ["chat", "edit"]). */
export function useSubPath(base: string): string[] {
  const path = usePath();
  if (!path.startsWith(`${base}/`)) return [];
  return path.slice(base.length + 1).split('/').filter(Boolean).map(decodeURIComponent);
}

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

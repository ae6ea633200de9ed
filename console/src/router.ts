import { useEffect, useState } from 'preact/hooks';

/** A tiny History API router under /console (the service answers index.html for every page). */
const BASE = '/console';

export function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE)
    ? window.location.pathname.slice(BASE.length)
    : window.location.pathname;
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  window.history.pushState(null, '', BASE + path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function href(path: string): string {
  return BASE + path;
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return path;
}

/** Follows a same-origin link without reloading the page (ctrl/middle click still opens a tab). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || !url.pathname.startsWith(BASE) || anchor.target)
    return;
  event.preventDefault();
  navigate(url.pathname.slice(BASE.length) + url.search);
}

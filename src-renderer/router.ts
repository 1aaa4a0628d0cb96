import { useSyncExternalStore } from 'react';

const CHANGE = 'promptledger:navigate';

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

const snapshot = () => location.pathname + location.search;

/** The current path and query, re-rendering on navigation (history API; the server serves index.html for any page path). */
export function useLocation(): { path: string; params: URLSearchParams } {
  const url = useSyncExternalStore(subscribe, snapshot);
  const [path, search = ''] = url.split('?');
  return { path, params: new URLSearchParams(search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

/** Rewrites some query parameters of the current page (filters live in the URL so they can be shared and survive reloads). */
export function setParams(changes: Record<string, string | string[] | null | undefined>, options: { replace?: boolean } = { replace: true }): void {
  const params = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    params.delete(key);
    if (value === null || value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  const search = params.toString();
  navigate(location.pathname + (search ? `?${search}` : ''), options);
}

import { createContext, useContext, useEffect, useRef, useState, type DependencyList } from 'react';
import { errorText, type Api } from './client';

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside a signed-in view');
  return api;
}

export interface Loaded<T> {
  data?: T;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

const sameDeps = (a: DependencyList, b: DependencyList) => a.length === b.length && a.every((d, i) => Object.is(d, b[i]));

/**
 * Loads data for a view and reloads when deps change; an answer for stale deps is dropped
 * (aborted), so a slow early request can never overwrite a newer one. `loading` is true from the
 * very render whose deps changed: the effect that starts the load runs after that render, and a
 * view reading `loading: false` there would show the old deps' answer as the new one's (the
 * compare view's "4 of 4 rows" under a just-ticked "Regressions only"). `data` stays the last
 * answer while loading, for views that keep it on screen.
 */
export function useLoad<T>(load: (api: Api, signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const api = useApi();
  const [tick, setTick] = useState(0);
  const key = [api, tick, ...deps];
  const [state, setState] = useState<{ data?: T; error: string | null; loading: boolean; for?: DependencyList }>({ error: null, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    loadRef.current(api, controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false, for: key }),
      (error: unknown) => !controller.signal.aborted && setState((s) => ({ ...s, error: errorText(error), loading: false, for: key })),
    );
    return () => controller.abort();
  }, key);
  const settled = state.for !== undefined && sameDeps(state.for, key);
  return { data: state.data, error: settled ? state.error : null, loading: !settled, reload: () => setTick((t) => t + 1) };
}

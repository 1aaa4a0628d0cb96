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

/**
 * Loads data for a view and reloads when deps change; an answer for stale deps is dropped
 * (aborted), so a slow early request can never overwrite a newer one.
 */
export function useLoad<T>(load: (api: Api, signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const api = useApi();
  const [state, setState] = useState<{ data?: T; error: string | null; loading: boolean }>({ error: null, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    loadRef.current(api, controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState((s) => ({ ...s, error: errorText(error), loading: false })),
    );
    return () => controller.abort();
  }, [api, tick, ...deps]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

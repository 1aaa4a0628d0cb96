import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText, type Query } from '../../api/client';
import { useApi } from '../../api/context';
import type { RequestItem, RequestPage } from '../../api/types';

/** A small first page paints fast; later pages are larger so scrolling fetches rarely. */
const FIRST_PAGE = 100;
const NEXT_PAGE = 200;

export interface RequestPages {
  items: RequestItem[];
  total: number;
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  /** Bumped every time a fresh first page arrives (the tests and the perf probe read it). */
  generation: number;
  loadMore: () => void;
  reload: () => void;
  /** Puts a changed record (a review saved in the detail) in its row without reloading the list. */
  replace: (item: RequestItem) => void;
}

/**
 * Keyset pages of the request log for one filter. Rows accumulate as the user scrolls; a new
 * filter aborts whatever is in flight, so an old answer never lands in the new list.
 */
export function useRequestPages(signature: string, query: Query): RequestPages {
  const api = useApi();
  const [items, setItems] = useState<RequestItem[]>([]);
  const [total, setTotal] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [tick, setTick] = useState(0);
  const inflight = useRef<AbortController | null>(null);
  const queryRef = useRef(query);
  queryRef.current = query;

  useEffect(() => {
    inflight.current?.abort();
    const controller = new AbortController();
    inflight.current = controller;
    setLoading(true);
    setError(null);
    api<RequestPage>('/api/public/v2/requests', { query: { ...queryRef.current, limit: FIRST_PAGE }, signal: controller.signal }).then(
      (page) => {
        if (controller.signal.aborted) return;
        setItems(page.items);
        setTotal(page.total_estimate);
        setCursor(page.next_cursor);
        setLoading(false);
        setGeneration((g) => g + 1);
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setItems([]);
        setCursor(null);
        setError(errorText(err));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [api, signature, tick]);

  const loadMore = useCallback(() => {
    if (!cursor || loading) return;
    const controller = new AbortController();
    inflight.current = controller;
    setLoading(true);
    api<RequestPage>('/api/public/v2/requests', { query: { ...queryRef.current, limit: NEXT_PAGE, cursor }, signal: controller.signal }).then(
      (page) => {
        if (controller.signal.aborted) return;
        setItems((prev) => prev.concat(page.items));
        setCursor(page.next_cursor);
        setLoading(false);
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setError(errorText(err));
        setLoading(false);
      },
    );
  }, [api, cursor, loading]);

  const replace = useCallback((item: RequestItem) => setItems((prev) => prev.map((r) => (r.id === item.id ? item : r))), []);
  return { items, total, hasMore: cursor !== null, loading, error, generation, loadMore, reload: () => setTick((t) => t + 1), replace };
}

import { useEffect, useRef, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { ReportRows } from '../../api/types';

const RUN_ROWS_PER_PAGE = 100;

/** While a run runs, a page of its grid is fetched at most this often (2 a second). */
const GRID_REFRESH_MS = 500;

/** Cells that can still change while the run goes on. */
const UNFINISHED = new Set(['QUEUED', 'RUNNING']);

/** Whether nothing on the page can change before the run ends (every cell computed). */
const settled = (page: ReportRows | undefined) =>
  page !== undefined && page.rows.every((row) => Object.values(row.cells).every((cell) => !UNFINISHED.has(cell.status)));

/**
 * Why the grid asks for its page again: a `progress` event of the run (which carries counts, not
 * cells: RunProgress), or a change that must show (the run ended, a person entered a value).
 */
export type RowsRefresh = 'progress' | 'final';

/**
 * A page of a run's rows, kept current while the run runs. The progress stream says how many cells
 * are done, not which, so the page is fetched again — but never two fetches at once (a slow page
 * is not aborted and started over by every event), at most one per GRID_REFRESH_MS, and the events
 * that arrive meanwhile are answered by one fetch after it, so the grid ends on the latest state.
 * A page whose every cell is computed is not fetched for progress: nothing on it changes until the
 * run ends, which fetches it once more (a 1,000-row run viewed on its first page no longer fetches
 * that page for the other 900 rows' events).
 */
export function useRunRows(runId: number, page: number) {
  const api = useApi();
  const [state, setState] = useState<{ data?: ReportRows; error: string | null }>({ error: null });
  const refresh = useRef<(why: RowsRefresh) => void>(() => undefined);

  useEffect(() => {
    let current: ReportRows | undefined;
    let inFlight: AbortController | null = null;
    let wanted: RowsRefresh | null = 'final';
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastStart = -Infinity;
    let stopped = false;

    const pump = () => {
      if (stopped || inFlight || !wanted) return;
      if (wanted === 'progress' && settled(current)) return void (wanted = null);
      const wait = lastStart + GRID_REFRESH_MS - Date.now();
      // A final refresh (the run's end) does not wait for the pace; progress does.
      if (wanted === 'progress' && wait > 0) {
        timer ??= setTimeout(() => {
          timer = undefined;
          pump();
        }, wait);
        return;
      }
      clearTimeout(timer);
      timer = undefined;
      wanted = null;
      lastStart = Date.now();
      const controller = (inFlight = new AbortController());
      api<ReportRows>(`/api/public/v2/reports/${runId}/rows`, { signal: controller.signal, query: { page, per_page: RUN_ROWS_PER_PAGE } })
        .then(
          (data) => {
            if (stopped) return;
            current = data;
            setState({ data, error: null });
          },
          (error: unknown) => {
            if (!stopped) setState((s) => ({ ...s, error: errorText(error) }));
          },
        )
        .finally(() => {
          inFlight = null;
          pump();
        });
    };

    refresh.current = (why) => {
      wanted = why === 'final' || wanted === 'final' ? 'final' : 'progress';
      pump();
    };
    pump();
    return () => {
      stopped = true;
      clearTimeout(timer);
      inFlight?.abort();
    };
  }, [api, runId, page]);

  return { ...state, refresh: (why: RowsRefresh) => refresh.current(why) };
}

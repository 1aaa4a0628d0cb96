import { setParams } from '../../router';

export const SORT_KEYS = ['time', 'latency', 'cost', 'tokens', 'score'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface SortState {
  sort: SortKey;
  order: 'asc' | 'desc';
}

/** The URL's `sort`/`order` (absent: newest first), for the explorer API's parameters of the same names. */
export function sortFromUrl(params: URLSearchParams): SortState {
  const sort = params.get('sort');
  return {
    sort: (SORT_KEYS as readonly string[]).includes(sort ?? '') ? (sort as SortKey) : 'time',
    order: params.get('order') === 'asc' ? 'asc' : 'desc',
  };
}

/**
 * A column title that sorts the list server-side: the first click sorts largest (newest) first,
 * the next one flips. The default order leaves the URL clean.
 */
export function SortHeader({ label, column, state, numeric }: { label: string; column: SortKey; state: SortState; numeric?: boolean }) {
  const active = state.sort === column;
  const next: SortState = { sort: column, order: active && state.order === 'desc' ? 'asc' : 'desc' };
  const isDefault = next.sort === 'time' && next.order === 'desc';
  return (
    <div className={numeric ? 'num' : undefined} role="columnheader" aria-sort={active ? (state.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button
        type="button"
        className={`sort-head${active ? ' active' : ''}`}
        title={`Sort by ${label.toLowerCase()}`}
        onClick={() => setParams({ sort: isDefault ? null : next.sort, order: isDefault ? null : next.order, request: null })}
      >
        {label}
        <span aria-hidden className="sort-mark">{active ? (state.order === 'asc' ? '▲' : '▼') : '↕'}</span>
      </button>
    </div>
  );
}

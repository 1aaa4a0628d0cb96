import type { Query } from '../../api/client';
import { REVIEW_FILTER_KEYS, reviewQuery } from '../review/review-filters';

export const RANGES = { '1h': 3600, '24h': 86400, '7d': 7 * 86400, '30d': 30 * 86400, '90d': 90 * 86400 } as const;
export type RangeKey = keyof typeof RANGES;

/** URL parameters that are filters (everything but the open request). */
export const FILTER_KEYS = ['q', 'tag', 'meta', 'model', 'provider', 'status', 'score_min', 'score_max', 'range', 'from', 'to', 'prompt_id', 'prompt_version', ...REVIEW_FILTER_KEYS];

/**
 * The page URL (short, shareable names) → the explorer API's query. `meta=env=prod` becomes
 * `metadata[env]=prod`; `range=24h` becomes a start time computed now.
 */
export function apiQueryFromUrl(params: URLSearchParams, now = Date.now()): Query {
  const query: Query = {
    q: params.get('q') ?? undefined,
    tags: params.getAll('tag'),
    model: params.get('model') ?? undefined,
    provider: params.get('provider') ?? undefined,
    status: params.get('status') ?? undefined,
    score_min: params.get('score_min') ?? undefined,
    score_max: params.get('score_max') ?? undefined,
    prompt_id: params.get('prompt_id') ?? undefined,
    prompt_version_number: params.get('prompt_version') ?? undefined,
    ...reviewQuery(params),
  };
  for (const pair of params.getAll('meta')) {
    const eq = pair.indexOf('=');
    if (eq > 0) query[`metadata[${pair.slice(0, eq)}]`] = pair.slice(eq + 1);
  }
  const range = params.get('range') as RangeKey | null;
  if (range && range in RANGES) query.start_time = new Date(now - RANGES[range] * 1000).toISOString();
  const from = params.get('from');
  const to = params.get('to');
  if (from) query.start_time = new Date(from).toISOString();
  if (to) query.end_time = new Date(to).toISOString();
  return query;
}

export function filterSignature(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const key of FILTER_KEYS) for (const v of params.getAll(key)) kept.append(key, v);
  return kept.toString();
}

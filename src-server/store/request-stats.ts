import type { Db } from './db';

/** Latency histogram buckets grow by 5%, so a percentile read from them is within ±2.5%. */
const BUCKET_GROWTH = 1.05;
const LOG_GROWTH = Math.log(BUCKET_GROWTH);

const DAY_MS = 86_400_000;
let lastDay = { number: NaN, text: '' };
/** `YYYY-MM-DD` of an instant in UTC; every stored request asks, nearly always for the same day as the last. */
export function utcDay(epochMs: number): string {
  const number = Math.floor(epochMs / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, text: new Date(number * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

export const latencyBucket = (ms: number) => (ms < 1 ? 0 : Math.floor(Math.log(ms) / LOG_GROWTH) + 1);

/** The representative latency of a bucket: the geometric middle of its range. */
const bucketValue = (bucket: number) => (bucket === 0 ? 0 : Math.pow(BUCKET_GROWTH, bucket - 0.5));

export interface StatsFilter {
  startDay?: string;
  endDay?: string;
  provider?: string;
  model?: string;
}

interface Totals {
  requests: number;
  errors: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms_sum: number;
}

interface RollupRow extends Totals {
  day: string;
  provider: string;
  model: string;
}

interface BucketRow {
  day: string;
  provider: string;
  model: string;
  bucket: number;
  requests: number;
}

export function createRequestStatsStore(db: Db) {
  function where(workspaceId: number, f: StatsFilter) {
    const clauses = ['workspace_id = ?'];
    const params: unknown[] = [workspaceId];
    if (f.startDay) (clauses.push('day >= ?'), params.push(f.startDay));
    if (f.endDay) (clauses.push('day <= ?'), params.push(f.endDay));
    if (f.provider) (clauses.push('provider = ?'), params.push(f.provider));
    if (f.model) (clauses.push('model = ?'), params.push(f.model));
    return { sql: clauses.join(' AND '), params };
  }

  return {
    rollups(workspaceId: number, f: StatsFilter): RollupRow[] {
      const w = where(workspaceId, f);
      return db
        .prepare<unknown[], RollupRow>(`SELECT * FROM request_rollups WHERE ${w.sql} ORDER BY day, provider, model`)
        .all(...w.params);
    },
    /** Histogram rows merged in SQL per group, so JS sees hundreds of rows, not days x models x buckets. */
    buckets(workspaceId: number, f: StatsFilter, by: 'total' | 'day' | 'model'): BucketRow[] {
      const w = where(workspaceId, f);
      const keys = { total: "'' AS day, '' AS provider, '' AS model", day: "day, '' AS provider, '' AS model", model: "'' AS day, provider, model" }[by];
      const group = { total: 'bucket', day: 'day, bucket', model: 'provider, model, bucket' }[by];
      return db
        .prepare<unknown[], BucketRow>(
          `SELECT ${keys}, bucket, sum(requests) AS requests FROM request_latency_buckets WHERE ${w.sql} GROUP BY ${group}`,
        )
        .all(...w.params);
    },
    total(workspaceId: number): number {
      return (
        db
          .prepare<[number], { n: number | null }>('SELECT sum(requests) AS n FROM request_rollups WHERE workspace_id = ?')
          .get(workspaceId)!.n ?? 0
      );
    },
  };
}

export type RequestStatsStore = ReturnType<typeof createRequestStatsStore>;

/** Percentiles from a bucket histogram (bucket -> count). */
export function percentiles(histogram: Map<number, number>, wanted: number[]): number[] {
  const buckets = [...histogram.entries()].sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, count]) => n + count, 0);
  return wanted.map((p) => {
    if (total === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (const [bucket, count] of buckets) {
      seen += count;
      if (seen >= rank) return Math.round(bucketValue(bucket));
    }
    return Math.round(bucketValue(buckets[buckets.length - 1][0]));
  });
}

import { isoDate } from '../iso-date';
import type { Db } from './db';
import { latencyBucket, utcDay } from './request-stats';
import { packJson, unpackJson } from './json-pack';
import { createTextCheck, type StoredText } from './text-check';
import { BLOCK_BITS, createTextIndex, storedSearchText, textQuery, type TextQuery } from './text-index';

/** Where a request's price came from (API.md §7; services/pricing.ts decides). */
export type PriceSource = 'client' | 'provider' | 'table' | 'none';

/** A request as stored: JSON columns are strings, times epoch milliseconds. */
interface RequestRow {
  id: number;
  workspace_id: number;
  provider: string;
  model: string;
  input: string;
  output: string;
  request_start_time: number;
  request_end_time: number;
  latency_ms: number;
  parameters: string;
  tags: string;
  metadata: string;
  prompt_id: number | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
  prompt_version_id: number | null;
  prompt_input_variables: string;
  input_tokens: number;
  output_tokens: number;
  price: number;
  function_name: string;
  score: number | null;
  status: string;
  error_type: string | null;
  error_message: string | null;
  api_type: string | null;
  group_id: number | null;
  created_at: number;
  /** The span this request belongs to (hex, as OTLP/JSON writes it), and its trace once the span is known. */
  span_id: string | null;
  trace_id: string | null;
  note: string | null;
  /** NULL on rows logged before migration 009 (see there). */
  price_source: PriceSource | null;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  /** The part of `cache_write_tokens` written to a 1-hour cache (migration 020). */
  cache_write_1h_tokens: number | null;
  reasoning_tokens: number | null;
  /** A 64-bit key; read as a lossy double here and never used in JS (see migration 001). */
  fts_key: number | null;
}

/** What deleting a request must undo besides its row. */
type DeletableRow = Pick<RequestRow, 'id' | 'workspace_id' | 'fts_key' | 'request_start_time' | 'provider' | 'model' | 'status'
  | 'price' | 'input_tokens' | 'output_tokens' | 'latency_ms' | 'span_id' | 'trace_id'>;

/** A logged request decoded: JSON parsed, times ISO 8601 (scores live apart, see `scores`). */
export interface LoggedRequest {
  id: number;
  workspace_id: number;
  provider: string;
  model: string;
  input: unknown;
  output: unknown;
  request_start_time: string;
  request_end_time: string;
  latency_ms: number;
  parameters: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  prompt_id: number | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
  prompt_version_id: number | null;
  prompt_input_variables: Record<string, unknown> | null;
  input_tokens: number;
  output_tokens: number;
  price: number;
  function_name: string;
  /** The `default` score, null when none was given (every named score: `scores`). */
  score: number | null;
  status: string;
  error_type: string | null;
  error_message: string | null;
  api_type: string | null;
  group_id: number | null;
  span_id: string | null;
  trace_id: string | null;
  note: string | null;
  price_source: PriceSource;
  created_at: string;
}

function decode(r: RequestRow): LoggedRequest {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    provider: r.provider,
    model: r.model,
    input: JSON.parse(unpackJson(r.input)),
    output: JSON.parse(unpackJson(r.output)),
    request_start_time: isoDate(r.request_start_time),
    request_end_time: isoDate(r.request_end_time),
    latency_ms: r.latency_ms,
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    tags: JSON.parse(r.tags) as string[],
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    prompt_id: r.prompt_id,
    prompt_name: r.prompt_name,
    prompt_version_number: r.prompt_version_number,
    prompt_version_id: r.prompt_version_id,
    prompt_input_variables: JSON.parse(r.prompt_input_variables) as Record<string, unknown> | null,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    price: r.price,
    function_name: r.function_name,
    score: r.score,
    status: r.status,
    error_type: r.error_type,
    error_message: r.error_message,
    api_type: r.api_type,
    group_id: r.group_id,
    span_id: r.span_id,
    trace_id: r.trace_id,
    note: r.note,
    price_source: r.price_source ?? (r.price > 0 ? 'client' : 'none'),
    created_at: isoDate(r.created_at),
  };
}

export type RequestSortKey = 'time' | 'latency' | 'cost' | 'tokens' | 'score';
export interface RequestOrder {
  by: RequestSortKey;
  direction: 'asc' | 'desc';
}
export const NEWEST_FIRST: RequestOrder = { by: 'time', direction: 'desc' };

/** Unscored requests sort after every score in either direction (scores are 0–100). */
const unscored = (direction: RequestOrder['direction']) => (direction === 'desc' ? -1 : 101);

/** The SQL that orders a list: never null, so keyset comparisons hold for every row. */
function sortExpression(order: RequestOrder): string {
  switch (order.by) {
    case 'time':
      return 'r.request_start_time';
    case 'latency':
      return 'r.latency_ms';
    case 'cost':
      return 'r.price';
    case 'tokens':
      return '(r.input_tokens + r.output_tokens)';
    case 'score':
      return `coalesce(r.score, ${unscored(order.direction)})`;
  }
}

/** The same value as `sortExpression`, read from a decoded row. */
function sortValue(r: LoggedRequest, order: RequestOrder): number {
  switch (order.by) {
    case 'time':
      return Date.parse(r.request_start_time);
    case 'latency':
      return r.latency_ms;
    case 'cost':
      return r.price;
    case 'tokens':
      return r.input_tokens + r.output_tokens;
    case 'score':
      return r.score ?? unscored(order.direction);
  }
}

/** Where a list page ends, for the next page's `after`. */
export const keysetOf = (r: LoggedRequest, order: RequestOrder = NEWEST_FIRST): Keyset => ({ value: sortValue(r, order), id: r.id });

export type NewRequest = Omit<RequestRow, 'id' | 'tags' | 'metadata' | 'score' | 'fts_key' | 'note' | 'price_source' | 'cached_input_tokens' | 'cache_write_tokens' | 'cache_write_1h_tokens' | 'reasoning_tokens'> & {
  price_source: PriceSource;
  /** Parts of input and output tokens priced at their own rate, when the call reported them. */
  cached_input_tokens?: number | null;
  cache_write_tokens?: number | null;
  cache_write_1h_tokens?: number | null;
  reasoning_tokens?: number | null;
  tags: string[];
  metadata: Record<string, string>;
  scores: Record<string, number>;
  /** The text of input and output, for the full-text index. */
  searchText: string;
};

/** See the store's `tally`. */
export interface Tally {
  add(id: number, request: NewRequest): void;
  write(): void;
}

export interface RequestFilter {
  q?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  provider?: string;
  model?: string;
  promptId?: number;
  promptVersionNumber?: number;
  status?: string;
  scoreMin?: number;
  scoreMax?: number;
  startTime?: number;
  endTime?: number;
  groupId?: number;
  hasNote?: boolean;
  scored?: boolean;
  scoreName?: string;
}

/** The last row of a page: its sort value (the start time, newest first) and id. */
export interface Keyset {
  value: number;
  id: number;
}

/** Counting a filtered list stops here: the explorer shows "1,000+" rather than walk every match
 * (a common word in a million-row log matches hundreds of thousands). */
export const COUNT_CAP = 1_000;

// How a text query combined with other filters or another order is answered (docs/performance.md,
// "Text search on 1,000,000 requests"). Walking the text index costs ~4 µs per match examined;
// checking a row against the text without it (text-check.ts) ~90 µs. So:
/** A filter that at most this many requests match drives the walk, each of its rows checked
 * against the text, instead of walking every text match (`kalo` + a 0.1% tag: 660,000 of them). */
const RARE_FILTER = 1_000;
/** Sorted by another column (or oldest first), up to this many text matches are read and sorted;
 * with more, the column's index is walked and each row checked (a common word then needs ~2 rows
 * checked per row of the page). */
const SORTED_TEXT_MATCHES = 10_000;
/** Sorted by another column, a tag or metadata filter matching more requests than this is
 * checked per row of the column's index instead of driving (see sideTableDrives). */
const SORTED_FILTER = 5_000;
/** Text matches a filtered count examines; past them it estimates from how far it got. */
const COUNT_BUDGET = 2_000;
/** Rows checked against the text at a time. */
const CHECK_CHUNK = 100;

export interface RequestStoreOptions {
  /**
   * Set by the ingest thread: a new request's text is not indexed in its transaction; its id goes
   * to `text_unindexed` and its text here, for the thread's text queue to index once the
   * transaction commits (text-index.ts `createTextQueue`). Unset, insert indexes at once.
   */
  textLater?: (id: number, text: string) => void;
}

export function createRequestStore(db: Db, options: RequestStoreOptions = {}) {
  const { textLater } = options;
  // A punctuation-only term is looked for in the JSON text as logged (see buildListQuery).
  db.function('request_json', { deterministic: true }, (stored: unknown) => unpackJson(String(stored)));
  const insert = db.prepare(`
    INSERT INTO requests (workspace_id, provider, model, input, output, request_start_time,
      request_end_time, latency_ms, parameters, tags, metadata, prompt_id, prompt_name,
      prompt_version_number, prompt_version_id, prompt_input_variables, input_tokens, output_tokens,
      price, function_name, score, status, error_type, error_message, api_type, group_id, created_at,
      span_id, trace_id, price_source, cached_input_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens)
    VALUES (@workspace_id, @provider, @model, @input, @output, @request_start_time,
      @request_end_time, @latency_ms, @parameters, @tags, @metadata, @prompt_id, @prompt_name,
      @prompt_version_number, @prompt_version_id, @prompt_input_variables, @input_tokens,
      @output_tokens, @price, @function_name, @score, @status, @error_type, @error_message,
      @api_type, @group_id, @created_at, @span_id, @trace_id, @price_source, @cached_input_tokens, @cache_write_tokens,
      @cache_write_1h_tokens, @reasoning_tokens)`);
  const insertTag = db.prepare(
    'INSERT OR IGNORE INTO request_tags (request_id, workspace_id, tag, request_start_time) VALUES (?, ?, ?, ?)',
  );
  const upsertMetadata = db.prepare(`
    INSERT INTO request_metadata (request_id, workspace_id, key, value, request_start_time) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (request_id, key) DO UPDATE SET value = excluded.value`);
  const upsertScore = db.prepare(`
    INSERT INTO request_scores (request_id, name, value) VALUES (?, ?, ?)
    ON CONFLICT (request_id, name) DO UPDATE SET value = excluded.value`);
  const setDefaultScore = db.prepare('UPDATE requests SET score = ? WHERE id = ?');
  const text = createTextIndex(db);
  const markUnindexed = db.prepare('INSERT OR IGNORE INTO text_unindexed (id) VALUES (?)');
  const unmarkUnindexed = db.prepare('DELETE FROM text_unindexed WHERE id = ?');
  const textCheck = createTextCheck(db);
  // How many requests an indexed filter matches, counted no further than asked.
  const rowsUpTo = {
    tag: db.prepare<[number, string, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM request_tags WHERE workspace_id = ? AND tag = ? LIMIT ?)'),
    metadata: db.prepare<[number, string, string, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM request_metadata WHERE workspace_id = ? AND key = ? AND value = ? LIMIT ?)'),
    status: db.prepare<[number, string, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM requests WHERE workspace_id = ? AND status = ? LIMIT ?)'),
    model: db.prepare<[number, string, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM requests WHERE workspace_id = ? AND model = ? LIMIT ?)'),
    prompt: db.prepare<[number, number, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM requests WHERE workspace_id = ? AND prompt_id = ? LIMIT ?)'),
    group: db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM requests WHERE group_id = ? LIMIT ?)'),
    text: db.prepare<[string, number], { n: number }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM requests_fts WHERE requests_fts MATCH ? LIMIT ?)'),
  };
  const examined = db.prepare<[string], { n: number; lowest: number | null }>(`
    SELECT count(*) AS n, min(rowid) AS lowest FROM
      (SELECT rowid FROM requests_fts WHERE requests_fts MATCH ? ORDER BY rowid DESC LIMIT ${COUNT_BUDGET})`);
  const idRange = db.prepare<[], { lowest: number | null; highest: number | null }>(
    // Two subqueries: SQLite reads min() or max() of a rowid from the B-tree's edge only when alone.
    'SELECT (SELECT min(id) FROM requests) AS lowest, (SELECT max(id) FROM requests) AS highest');
  // Tags, metadata and scores go with their request (ON DELETE CASCADE).
  const deleteRows = db.prepare('DELETE FROM requests WHERE id IN (SELECT value FROM json_each(?))');
  const deleteScore = db.prepare('DELETE FROM request_scores WHERE request_id = ? AND name = ?');
  const updateNote = db.prepare('UPDATE requests SET note = ? WHERE id = ?');
  const storedText = db.prepare<[number], { input: string; output: string }>('SELECT input, output FROM requests WHERE id = ?');
  const upsertRollup = db.prepare(`
    INSERT INTO request_rollups (workspace_id, day, provider, model, requests, errors, cost,
      input_tokens, output_tokens, latency_ms_sum)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (workspace_id, day, provider, model) DO UPDATE SET
      requests = requests + excluded.requests, errors = errors + excluded.errors, cost = cost + excluded.cost,
      input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens,
      latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum`);
  const upsertBucket = db.prepare(`
    INSERT INTO request_latency_buckets (workspace_id, day, provider, model, bucket, requests)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (workspace_id, day, provider, model, bucket) DO UPDATE SET requests = requests + excluded.requests`);
  const byId = db.prepare<[number, number], RequestRow>('SELECT * FROM requests WHERE id = ? AND workspace_id = ?');
  const updateMetadataJson = db.prepare('UPDATE requests SET metadata = ? WHERE id = ?');
  const updatePromptLink = db.prepare(`
    UPDATE requests SET prompt_id = ?, prompt_name = ?, prompt_version_number = ?, prompt_version_id = ?,
      prompt_input_variables = ? WHERE id = ?`);
  const updateGroup = db.prepare('UPDATE requests SET group_id = ? WHERE id = ?');
  const insertGroup = db.prepare('INSERT INTO request_groups (workspace_id, created_at) VALUES (?, ?)');
  const groupExists = db.prepare<[number, number], { id: number }>(
    'SELECT id FROM request_groups WHERE id = ? AND workspace_id = ?',
  );
  const rowsByIds = db.prepare<[string], RequestRow>('SELECT * FROM requests WHERE id IN (SELECT value FROM json_each(?))');
  const scoresOf = db.prepare<[string], { request_id: number; name: string; value: number }>(
    'SELECT request_id, name, value FROM request_scores WHERE request_id IN (SELECT value FROM json_each(?))',
  );
  // Deleting undoes everything insert did (and what spans.ts added): tags, metadata and scores go
  // by ON DELETE CASCADE; the text index, the dashboard rollups and the trace rollup by hand.
  const deletable = db.prepare<[number, number], DeletableRow>(`
    SELECT id, workspace_id, fts_key, request_start_time, provider, model, status, price, input_tokens,
      output_tokens, latency_ms, span_id, trace_id FROM requests WHERE id = ? AND workspace_id = ?`);
  const deleteRow = db.prepare('DELETE FROM requests WHERE id = ?');
  const subtractRollup = db.prepare(`
    UPDATE request_rollups SET requests = requests - 1, errors = errors - ?, cost = cost - ?,
      input_tokens = input_tokens - ?, output_tokens = output_tokens - ?, latency_ms_sum = latency_ms_sum - ?
    WHERE workspace_id = ? AND day = ? AND provider = ? AND model = ?`);
  const dropEmptyRollup = db.prepare(
    'DELETE FROM request_rollups WHERE workspace_id = ? AND day = ? AND provider = ? AND model = ? AND requests <= 0',
  );
  const subtractBucket = db.prepare(`
    UPDATE request_latency_buckets SET requests = requests - 1
    WHERE workspace_id = ? AND day = ? AND provider = ? AND model = ? AND bucket = ?`);
  const dropEmptyBucket = db.prepare(
    'DELETE FROM request_latency_buckets WHERE workspace_id = ? AND day = ? AND provider = ? AND model = ? AND bucket = ? AND requests <= 0',
  );
  const subtractFromTrace = db.prepare(`
    UPDATE traces SET input_tokens = input_tokens - ?, output_tokens = output_tokens - ?, price = price - ?,
      request_count = request_count - 1
    WHERE workspace_id = ? AND trace_id = ?`);
  const unlinkSpan = db.prepare('UPDATE spans SET request_id = NULL WHERE workspace_id = ? AND span_id = ? AND request_id = ?');

  /**
   * Removes the text index's rows of `ids`, requests that still exist. One not yet indexed has
   * none: its id leaves `text_unindexed`, so the ingest thread's queue skips it (and never indexes
   * its text under the id should a new request reuse it).
   */
  function removeFromTextIndex(ids: number[]): void {
    for (const id of ids) {
      if (unmarkUnindexed.run(id).changes === 0) text.remove(id);
      textCheck.forget(id);
    }
  }

  /**
   * The newest `limit` matches of a text query, in list order. The index yields matches by id,
   * newest id first, which is nearly but not exactly start-time order (a request logged late, a
   * skewed clock); the walk keeps the best `limit` and stops once no older id can start later than
   * the page's last row (text.newestStartUpTo), so a common word costs about a block of ids, not
   * every match.
   */
  function newestMatches(fromWhere: string, params: unknown[], limit: number): Keyset[] {
    const bound = text.newestStartUpTo();
    const best: Keyset[] = [];
    const candidates = db.prepare<unknown[], Keyset>(
      `SELECT r.id AS id, r.request_start_time AS value ${fromWhere} ORDER BY f.rowid DESC`,
    );
    for (const row of candidates.iterate(...params)) {
      const last = best.at(-1);
      if (best.length === limit && last && bound(row.id) < last.value) break;
      if (best.length === limit && last && !newer(row, last)) continue;
      let at = best.length;
      while (at > 0 && newer(row, best[at - 1])) at--;
      best.splice(at, 0, row);
      if (best.length > limit) best.pop();
    }
    return best;
  }

  /** The fewest requests any one indexed filter of `f` matches, counted up to `upTo`. */
  function rareFilterRows(workspaceId: number, f: RequestFilter, upTo: number): number {
    const counts: number[] = [];
    for (const tag of new Set(f.tags ?? [])) counts.push(rowsUpTo.tag.get(workspaceId, tag, upTo)!.n);
    for (const [key, value] of Object.entries(f.metadata ?? {})) counts.push(rowsUpTo.metadata.get(workspaceId, key, value, upTo)!.n);
    if (f.status !== undefined) counts.push(rowsUpTo.status.get(workspaceId, f.status, upTo)!.n);
    if (f.model !== undefined) counts.push(rowsUpTo.model.get(workspaceId, f.model, upTo)!.n);
    if (f.promptId !== undefined) counts.push(rowsUpTo.prompt.get(workspaceId, f.promptId, upTo)!.n);
    if (f.groupId !== undefined) counts.push(rowsUpTo.group.get(f.groupId, upTo)!.n);
    return Math.min(Infinity, ...counts);
  }

  /** Whether a text query is answered by walking the index ('index') or by checking the rows
   * another plan yields ('check'); see RARE_FILTER and SORTED_TEXT_MATCHES. */
  function textPlan(workspaceId: number, f: RequestFilter, order: RequestOrder | null): 'index' | 'check' {
    const match = textQuery(f.q ?? '').match;
    if (match === null) return 'index';
    if (rareFilterRows(workspaceId, f, RARE_FILTER + 1) <= RARE_FILTER) return 'check';
    const newestFirst = order === null || (order.by === 'time' && order.direction === 'desc');
    if (!newestFirst && rowsUpTo.text.get(match, SORTED_TEXT_MATCHES + 1)!.n > SORTED_TEXT_MATCHES) return 'check';
    return 'index';
  }

  /**
   * Whether a tag or metadata filter drives the list from its side table. In time order always
   * (its index is in list order). Sorted by another column, only when it matches at most
   * SORTED_FILTER requests: otherwise the column's index is walked and the filter checked per row
   * (a 10% tag sorted by score read and sorted 100,000 rows of a million: ~300 ms; now ~500 rows).
   */
  function sideTableDrives(workspaceId: number, f: RequestFilter, order: RequestOrder): boolean {
    if (order.by === 'time' || ((f.tags ?? []).length === 0 && Object.keys(f.metadata ?? {}).length === 0)) return true;
    return rareFilterRows(workspaceId, { tags: f.tags, metadata: f.metadata }, SORTED_FILTER + 1) <= SORTED_FILTER;
  }

  /**
   * The page of a 'check' plan: the rows the filters and order yield without the text index, a
   * chunk at a time (a fresh keyset query each, as text-check writes to its own table between
   * them), each checked against the text, until `limit` match.
   */
  function checkedPage(query: ListQuery, key: string, id: string, dir: 'ASC' | 'DESC', after: Keyset | undefined, limit: number): Keyset[] {
    const matched: Keyset[] = [];
    const chunk = db.prepare<unknown[], Keyset & StoredText>(`
      SELECT ${id} AS id, ${key} AS value, r.input AS input, r.output AS output, r.note AS note ${query.from}
      WHERE ${query.where} AND (${key}, ${id}) ${dir === 'DESC' ? '<' : '>'} (?, ?)
      ORDER BY ${key} ${dir}, ${id} ${dir} LIMIT ${CHECK_CHUNK}`);
    const first = db.prepare<unknown[], Keyset & StoredText>(`
      SELECT ${id} AS id, ${key} AS value, r.input AS input, r.output AS output, r.note AS note ${query.from}
      WHERE ${query.where} ORDER BY ${key} ${dir}, ${id} ${dir} LIMIT ${CHECK_CHUNK}`);
    let last = after;
    for (;;) {
      const rows = last ? chunk.all(...query.params, last.value, last.id) : first.all(...query.params);
      const ok = textCheck.matches(query.match!, rows);
      for (const [i, row] of rows.entries()) if (ok[i] && matched.length < limit) matched.push({ value: row.value, id: row.id });
      if (matched.length >= limit || rows.length < CHECK_CHUNK) return matched;
      last = { value: rows.at(-1)!.value, id: rows.at(-1)!.id };
    }
  }

  function byKeys(keys: Keyset[]): LoggedRequest[] {
    const rows = new Map(rowsByIds.all(JSON.stringify(keys.map((k) => k.id))).map((r) => [r.id, r]));
    return keys.map((k) => decode(rows.get(k.id)!));
  }

  function addScore(requestId: number, name: string, value: number): void {
    upsertScore.run(requestId, name, value);
    if (name === 'default') setDefaultScore.run(value, requestId);
  }

  /**
   * Sums of a batch of inserts for the dashboard's rollups (per workspace, day, provider, model),
   * its latency histogram and the text index's time blocks; `write` adds them to their tables.
   * Written once per key per batch: at batches of ~50 requests over a few models that is two
   * upserts per batch, not two (plus a time block) per request. Call `write` in the inserts'
   * transaction.
   */
  function tally(): Tally {
    const rollups = new Map<string, { ws: number; day: string; provider: string; model: string; requests: number; errors: number; cost: number; input: number; output: number; latency: number }>();
    const buckets = new Map<string, { ws: number; day: string; provider: string; model: string; bucket: number; requests: number }>();
    const blocks = new Map<number, number>();
    return {
      add(id, r) {
        const day = utcDay(r.request_start_time);
        const key = JSON.stringify([r.workspace_id, day, r.provider, r.model]);
        let sum = rollups.get(key);
        if (!sum) rollups.set(key, (sum = { ws: r.workspace_id, day, provider: r.provider, model: r.model, requests: 0, errors: 0, cost: 0, input: 0, output: 0, latency: 0 }));
        sum.requests++;
        if (r.status === 'ERROR') sum.errors++;
        sum.cost += r.price;
        sum.input += r.input_tokens;
        sum.output += r.output_tokens;
        sum.latency += r.latency_ms;
        const bucket = latencyBucket(r.latency_ms);
        const bucketKey = `${key}${bucket}`;
        const counted = buckets.get(bucketKey);
        if (counted) counted.requests++;
        else buckets.set(bucketKey, { ws: r.workspace_id, day, provider: r.provider, model: r.model, bucket, requests: 1 });
        const block = Math.floor(id / 2 ** BLOCK_BITS);
        blocks.set(block, Math.max(blocks.get(block) ?? -Infinity, r.request_start_time));
      },
      write() {
        for (const r of rollups.values()) upsertRollup.run(r.ws, r.day, r.provider, r.model, r.requests, r.errors, r.cost, r.input, r.output, r.latency);
        for (const b of buckets.values()) upsertBucket.run(b.ws, b.day, b.provider, b.model, b.bucket, b.requests);
        for (const [block, start] of blocks) text.noteStart(block, start);
        rollups.clear();
        buckets.clear();
        blocks.clear();
      },
    };
  }

  return {
    /**
     * Writes the request and everything that indexes it; call inside a transaction. With a `batch`
     * tally (see `tally`) the dashboard rollups and the text index's time blocks are summed there and
     * written once per key when the batch ends, instead of one upsert each per request.
     */
    insert(request: NewRequest, batch?: Tally): number {
      const { tags, metadata, scores, searchText } = request;
      // Each parameter named, not the request spread into a copy: two objects of ~35 properties
      // less per row on the paths that log the most (ingest, an evaluation's calls).
      const r = request;
      const id = Number(
        insert.run({
          workspace_id: r.workspace_id, provider: r.provider, model: r.model, input: packJson(r.input), output: packJson(r.output),
          request_start_time: r.request_start_time, request_end_time: r.request_end_time, latency_ms: r.latency_ms,
          parameters: r.parameters, tags: JSON.stringify(tags), metadata: JSON.stringify(metadata), prompt_id: r.prompt_id,
          prompt_name: r.prompt_name, prompt_version_number: r.prompt_version_number, prompt_version_id: r.prompt_version_id,
          prompt_input_variables: r.prompt_input_variables, input_tokens: r.input_tokens, output_tokens: r.output_tokens,
          price: r.price, function_name: r.function_name, score: scores.default ?? null, status: r.status,
          error_type: r.error_type, error_message: r.error_message, api_type: r.api_type, group_id: r.group_id,
          created_at: r.created_at, span_id: r.span_id, trace_id: r.trace_id, price_source: r.price_source,
          cached_input_tokens: r.cached_input_tokens ?? null, cache_write_tokens: r.cache_write_tokens ?? null,
          cache_write_1h_tokens: r.cache_write_1h_tokens ?? null, reasoning_tokens: r.reasoning_tokens ?? null,
        }).lastInsertRowid,
      );
      const ws = request.workspace_id;
      const start = request.request_start_time;
      for (const tag of tags) insertTag.run(id, ws, tag, start);
      for (const [key, value] of Object.entries(metadata)) upsertMetadata.run(id, ws, key, value, start);
      for (const [name, value] of Object.entries(scores)) upsertScore.run(id, name, value);
      if (textLater) {
        markUnindexed.run(id);
        textLater(id, searchText);
      } else text.add(id, searchText);
      const counted = batch ?? tally();
      counted.add(id, request);
      if (!batch) counted.write();
      return id;
    },

    tally,

    /**
     * Removes requests with everything that indexes them, the text index through
     * `removeFromTextIndex` (one place that knows its layout); call inside a transaction. The
     * dashboard's daily rollups keep counting them: they are history, not the requests.
     * Retention's prune uses this; the explorer's delete is `deleteRequests`, which also takes the
     * requests out of the rollups.
     */
    remove(ids: number[]): number {
      if (ids.length === 0) return 0;
      const list = JSON.stringify(ids);
      removeFromTextIndex(ids);
      return deleteRows.run(list).changes;
    },

    /**
     * Deletes the workspace's requests among `ids` and everything that belongs to them, as if they
     * had never been logged (dashboard totals and trace rollups included); ids that are unknown or
     * another workspace's are skipped. Returns how many were deleted. Call inside a transaction,
     * with a bounded number of ids (the caller batches, so ingest is never held off for long).
     */
    deleteRequests(workspaceId: number, ids: readonly number[]): number {
      let deleted = 0;
      for (const id of ids) {
        const r = deletable.get(id, workspaceId);
        if (!r) continue;
        removeFromTextIndex([r.id]);
        const ws = r.workspace_id;
        const day = utcDay(r.request_start_time);
        subtractRollup.run(r.status === 'ERROR' ? 1 : 0, r.price, r.input_tokens, r.output_tokens, r.latency_ms, ws, day, r.provider, r.model);
        dropEmptyRollup.run(ws, day, r.provider, r.model);
        const bucket = latencyBucket(r.latency_ms);
        subtractBucket.run(ws, day, r.provider, r.model, bucket);
        dropEmptyBucket.run(ws, day, r.provider, r.model, bucket);
        if (r.trace_id !== null) subtractFromTrace.run(r.input_tokens, r.output_tokens, r.price, ws, r.trace_id);
        if (r.span_id !== null) unlinkSpan.run(ws, r.span_id, r.id);
        deleteRow.run(r.id);
        deleted++;
      }
      return deleted;
    },

    get(workspaceId: number, id: number): LoggedRequest | undefined {
      const row = byId.get(id, workspaceId);
      return row === undefined ? undefined : decode(row);
    },

    scores(ids: number[]): Map<number, Record<string, number>> {
      const result = new Map<number, Record<string, number>>(ids.map((id) => [id, {}]));
      for (const row of scoresOf.all(JSON.stringify(ids))) result.get(row.request_id)![row.name] = row.value;
      return result;
    },

    addScore,

    removeScore(requestId: number, name: string): void {
      deleteScore.run(requestId, name);
      if (name === 'default') setDefaultScore.run(null, requestId);
    },

    /**
     * Sets or removes a request's note and re-indexes its text with it, in the caller's transaction.
     * The index (contentless, keyed by id) cannot change part of a row: the row is deleted and the
     * whole text written again. A request still waiting in `text_unindexed` is taken off it and
     * indexed here, so the ingest thread's queue skips it (its queued text lacks the note).
     */
    setNote(requestId: number, note: string | null): void {
      updateNote.run(note, requestId);
      const row = storedText.get(requestId);
      if (!row) return;
      if (unmarkUnindexed.run(requestId).changes === 0) text.remove(requestId);
      text.add(requestId, storedSearchText(row.input, row.output, note));
      textCheck.forget(requestId);
    },

    /** Adds or replaces metadata keys of a request of the workspace; false when there is none. */
    mergeMetadata(workspaceId: number, id: number, metadata: Record<string, string>): boolean {
      const row = byId.get(id, workspaceId);
      if (!row) return false;
      const merged = { ...(JSON.parse(row.metadata) as Record<string, string>), ...metadata };
      updateMetadataJson.run(JSON.stringify(merged), row.id);
      for (const [key, value] of Object.entries(metadata)) {
        upsertMetadata.run(row.id, row.workspace_id, key, value, row.request_start_time);
      }
      return true;
    },

    setPromptLink(
      id: number,
      link: { promptId: number | null; promptName: string | null; versionNumber: number | null; versionId: number | null },
      inputVariables: Record<string, unknown>,
    ): void {
      updatePromptLink.run(link.promptId, link.promptName, link.versionNumber, link.versionId,
        JSON.stringify(inputVariables), id);
    },

    setGroup: (id: number, groupId: number) => updateGroup.run(groupId, id),
    createGroup: (workspaceId: number, now: number) => Number(insertGroup.run(workspaceId, now).lastInsertRowid),
    groupExists: (workspaceId: number, id: number) => groupExists.get(id, workspaceId) !== undefined,

    /**
     * One page in `order`, ties by id in the same direction. Time order walks an index (see
     * buildListQuery); the other orders sort the matching rows (a top-N sort: memory stays one
     * page, time grows with the number of matches — see docs/decisions.md for the figures).
     */
    list(workspaceId: number, filter: RequestFilter, after: Keyset | undefined, limit: number, order: RequestOrder = NEWEST_FIRST): LoggedRequest[] {
      const query = buildListQuery(workspaceId, filter, textPlan(workspaceId, filter, order), sideTableDrives(workspaceId, filter, order));
      const params = [...query.params];
      const byTime = order.by === 'time';
      const key = byTime ? query.timeColumn : sortExpression(order);
      const id = byTime ? query.idColumn : 'r.id';
      const dir = order.direction === 'desc' ? 'DESC' : 'ASC';
      if (query.match !== null && !query.textDriven) return byKeys(checkedPage(query, key, id, dir, after, limit));
      let keyset = '';
      if (after) {
        keyset = ` AND (${key}, ${id}) ${dir === 'DESC' ? '<' : '>'} (?, ?)`;
        params.push(after.value, after.id);
      }
      // Newest first, a text query walks the index (newestMatches); other orders sort the matches.
      if (query.textDriven && byTime && dir === 'DESC') {
        return byKeys(newestMatches(`${query.from} WHERE ${query.where}${keyset}`, params, limit));
      }
      const sql = `SELECT r.* ${query.from} WHERE ${query.where}${keyset} ORDER BY ${key} ${dir}, ${id} ${dir} LIMIT ?`;
      return db.prepare<unknown[], RequestRow>(sql).all(...params, limit).map(decode);
    },

    /**
     * Exact up to COUNT_CAP, which means "at least that many" — except a text query with other
     * filters whose first COUNT_BUDGET text matches (newest ids) hold fewer than COUNT_CAP: then the
     * matches found, scaled to the whole id range as if the rest were alike (docs/decisions.md).
     */
    count(workspaceId: number, filter: RequestFilter): number {
      const plan = textPlan(workspaceId, filter, null);
      const query = buildListQuery(workspaceId, filter, plan);
      if (query.match !== null && plan === 'check') {
        const rows = db.prepare<unknown[], StoredText>(`SELECT r.id AS id, r.input AS input, r.output AS output, r.note AS note ${query.from} WHERE ${query.where}`).all(...query.params);
        let n = 0;
        for (let i = 0; i < rows.length && n < COUNT_CAP; i += CHECK_CHUNK) {
          n += textCheck.matches(query.match, rows.slice(i, i + CHECK_CHUNK)).filter(Boolean).length;
        }
        return Math.min(n, COUNT_CAP);
      }
      const [from, where] = query.textDriven ? [query.budgetedFrom, query.budgetedWhere] : [query.from, query.where];
      const sql = `SELECT count(*) AS n FROM (SELECT 1 ${from} WHERE ${where} LIMIT ${COUNT_CAP})`;
      const n = (db.prepare<unknown[], { n: number }>(sql).get(...query.params) as { n: number }).n;
      if (!query.textDriven || n >= COUNT_CAP) return n;
      const seen = examined.get(query.match!)!;
      if (seen.n < COUNT_BUDGET || seen.lowest === null) return n;
      const ids = idRange.get()!;
      const share = (ids.highest! - seen.lowest + 1) / (ids.highest! - ids.lowest! + 1);
      return Math.min(COUNT_CAP, Math.max(n, Math.round(n / share)));
    },
  };
}

export type RequestStore = ReturnType<typeof createRequestStore>;

/** List order: newest start first, then the higher id. */
const newer = (a: Keyset, b: Keyset) => a.value > b.value || (a.value === b.value && a.id > b.id);

const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type ListQuery = ReturnType<typeof buildListQuery>;

/**
 * Chooses the index that yields rows already in list order: a tag or metadata filter drives from
 * its side table (a rare tag then costs one page, not a table scan); otherwise requests' own
 * indexes, which all end in (request_start_time, id). With `text` 'check', a text query does not
 * drive: the rows come from the other filters' plan and the caller checks them against `match`
 * (text-check.ts); the substring conditions stay. With `sideTables` false, tags and metadata are
 * conditions on the rows another index yields (a sort column's), never the driver.
 */
function buildListQuery(workspaceId: number, f: RequestFilter, text: 'index' | 'check' = 'index', sideTables = true) {
  const where: string[] = [];
  const params: unknown[] = [];
  let from = 'FROM requests r';
  let timeColumn = 'r.request_start_time';
  let idColumn = 'r.id';
  const tags = [...new Set(f.tags ?? [])];
  const metadata = Object.entries(f.metadata ?? {});
  const terms: TextQuery = textQuery(f.q ?? '');
  const textDriven = terms.match !== null && text === 'index';
  // A count reads no more than COUNT_BUDGET text matches (the same MATCH parameter, first).
  let budgetedFrom = '';

  if (textDriven) {
    // CROSS JOIN keeps the index outermost: FTS5 answers MATCH of a prefix term plus `rowid = ?`
    // with every match, ignoring the rowid (SQLite 3.53; measured), so it must never be probed by id.
    from = 'FROM requests_fts f CROSS JOIN requests r ON r.id = f.rowid';
    budgetedFrom = `FROM (SELECT rowid FROM requests_fts WHERE requests_fts MATCH ? ORDER BY rowid DESC LIMIT ${COUNT_BUDGET}) f
      CROSS JOIN requests r ON r.id = f.rowid`;
    where.push('f.requests_fts MATCH ?', 'r.workspace_id = ?');
    params.push(terms.match, workspaceId);
  } else if (tags.length > 0 && sideTables) {
    from = 'FROM request_tags d JOIN requests r ON r.id = d.request_id';
    where.push('d.workspace_id = ? AND d.tag = ?');
    params.push(workspaceId, tags.shift());
    timeColumn = 'd.request_start_time';
    idColumn = 'd.request_id';
  } else if (metadata.length > 0 && sideTables) {
    const [key, value] = metadata.shift()!;
    from = 'FROM request_metadata d JOIN requests r ON r.id = d.request_id';
    where.push('d.workspace_id = ? AND d.key = ? AND d.value = ?');
    params.push(workspaceId, key, value);
    timeColumn = 'd.request_start_time';
    idColumn = 'd.request_id';
  } else {
    where.push('r.workspace_id = ?');
    params.push(workspaceId);
  }
  for (const tag of tags) {
    where.push('EXISTS (SELECT 1 FROM request_tags t WHERE t.request_id = r.id AND t.tag = ?)');
    params.push(tag);
  }
  for (const [key, value] of metadata) {
    where.push('EXISTS (SELECT 1 FROM request_metadata m WHERE m.request_id = r.id AND m.key = ? AND m.value = ?)');
    params.push(key, value);
  }
  const equal: Array<[string, unknown]> = [
    ['r.provider', f.provider],
    ['r.model', f.model],
    ['r.prompt_id', f.promptId],
    ['r.prompt_version_number', f.promptVersionNumber],
    ['r.status', f.status],
    ['r.group_id', f.groupId],
  ];
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (f.scoreMin !== undefined) (where.push('r.score >= ?'), params.push(f.scoreMin));
  if (f.scoreMax !== undefined) (where.push('r.score <= ?'), params.push(f.scoreMax));
  if (f.hasNote !== undefined) where.push(f.hasNote ? 'r.note IS NOT NULL' : 'r.note IS NULL');
  if (f.scored !== undefined) where.push(`${f.scored ? '' : 'NOT '}EXISTS (SELECT 1 FROM request_scores s WHERE s.request_id = r.id)`);
  if (f.scoreName !== undefined) {
    where.push('EXISTS (SELECT 1 FROM request_scores s WHERE s.request_id = r.id AND s.name = ?)');
    params.push(f.scoreName);
  }
  if (f.startTime !== undefined) (where.push(`${timeColumn} >= ?`), params.push(f.startTime));
  if (f.endTime !== undefined) (where.push(`${timeColumn} <= ?`), params.push(f.endTime));

  // The index holds no positions: a Chinese/Japanese run is confirmed in the stored text (as
  // stored: packing replaces only ASCII syntax, store/json-pack.ts), and a term with no word in it
  // (punctuation) can only be found in the JSON text as logged. The note is indexed too.
  for (const term of terms.confirm) {
    where.push("(r.input LIKE ? ESCAPE '\\' OR r.output LIKE ? ESCAPE '\\' OR r.note LIKE ? ESCAPE '\\')");
    params.push(likePattern(term), likePattern(term), likePattern(term));
  }
  for (const term of terms.scan) {
    where.push("(request_json(r.input) LIKE ? ESCAPE '\\' OR request_json(r.output) LIKE ? ESCAPE '\\' OR r.note LIKE ? ESCAPE '\\')");
    params.push(likePattern(term), likePattern(term), likePattern(term));
  }
  // The budgeted count's MATCH is in its FROM, before every other parameter, as in `where`.
  const budgetedWhere = textDriven ? where.slice(1).join(' AND ') : '';
  return { from, where: where.join(' AND '), budgetedFrom, budgetedWhere, params, timeColumn, idColumn, textDriven, match: terms.match };
}

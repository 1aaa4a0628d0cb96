import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey } from '../../src-server/services/auth';
import { searchText } from '../../src-server/store/text-index';
import { closeDatabase, openDatabase } from '../../src-server/store/db';
import { latencyBucket } from '../../src-server/store/request-stats';
import { createRequestStore } from '../../src-server/store/requests';
import { BLOCK_BITS } from '../../src-server/store/text-index';
import { createWorkspaceStore } from '../../src-server/store/workspaces';
import { migrations } from '../../src-server/store/migrations';
import { logRecord } from './corpus';

export const BENCH_KEY = 'pl_bench_key';
const DAY = 86_400_000;
/** The seeded log spans the 90 days before this instant. */
export const SEED_END = Date.UTC(2026, 10, 1);
export const SEED_START = SEED_END - 90 * DAY;

/**
 * Seeds `rows` requests into `<dir>/promptledger.db` through the store's own insert path (the code
 * POST /log-request uses, minus HTTP) from the deterministic corpus, with the key BENCH_KEY.
 * Shared by the query and UI benchmarks, so either can reuse the other's directory.
 */
export function seedRequests(dir: string, rows: number, progress: (line: string) => void = console.log): void {
  mkdirSync(dir, { recursive: true });
  // Seeding only: no fsync per batch. The insert path itself is the product's.
  const db = openDatabase(join(dir, 'promptledger.db'), { synchronous: 'OFF' });
  const workspaces = createWorkspaceStore(db);
  workspaces.insertWorkspace('Default', Date.now());
  workspaces.insertKey({ workspace_id: 1, name: 'bench', prefix: BENCH_KEY.slice(0, 10), key_hash: hashKey(BENCH_KEY), created_at: Date.now() });
  const store = createRequestStore(db);
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const r = logRecord(i, SEED_START + Math.floor(((SEED_END - SEED_START) * i) / rows));
      store.insert({
        workspace_id: 1, provider: r.provider, model: r.model,
        input: JSON.stringify(r.input), output: JSON.stringify(r.output),
        request_start_time: r.start, request_end_time: r.end, latency_ms: r.latency,
        parameters: JSON.stringify(r.parameters), tags: r.tags, metadata: r.metadata,
        scores: r.score === null ? {} : { default: r.score },
        prompt_id: null, prompt_name: null, prompt_version_number: null, prompt_version_id: null,
        prompt_input_variables: '{}', input_tokens: r.inputTokens, output_tokens: r.outputTokens, price: r.price, price_source: 'client',
        function_name: 'openai.chat.completions.create', status: r.status, error_type: null, error_message: null,
        span_id: null, trace_id: null,
        api_type: 'chat-completions', group_id: null, created_at: r.end,
        searchText: searchText(r.input, r.output),
      });
    }
  });
  const t0 = performance.now();
  for (let i = 0; i < rows; i += 10_000) {
    batch(i, Math.min(rows, i + 10_000));
    if ((i / 10_000) % 10 === 9) progress(`  seeded ${i + 10_000} rows (${((i + 10_000) / ((performance.now() - t0) / 1000)).toFixed(0)} rows/s)`);
  }
  db.exec('ANALYZE');
  closeDatabase(db);
  progress(`  seeded ${rows} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/**
 * A directory holding `rows` seeded requests, seeded once and reused by later runs (and by other
 * benchmarks): `$BENCH_CACHE` or the OS temp dir, named after the row count and a hash of the
 * migrations, so a schema change seeds afresh instead of reusing a stale copy. Never committed.
 */
export function cachedRequests(rows: number): string {
  const schema = createHash('sha256').update(migrations.map((m) => m.sql).join('\n')).digest('hex').slice(0, 12);
  const dir = join(process.env.BENCH_CACHE ?? join(tmpdir(), 'promptledger-bench-cache'), `requests-${rows}-${schema}`);
  if (!existsSync(join(dir, 'seeded'))) {
    // Built beside its final name and renamed when complete: two benchmarks (or engineers) asking
    // at once each build their own copy rather than write one file together.
    const building = `${dir}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    if (rows > SEED_UNIT && rows % SEED_UNIT === 0) scaleRequests(cachedRequests(SEED_UNIT), building, rows / SEED_UNIT);
    else seedRequests(building, rows);
    writeFileSync(join(building, 'seeded'), new Date().toISOString());
    if (existsSync(join(dir, 'seeded'))) rmSync(building, { recursive: true, force: true });
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    }
  }
  return dir;
}

/** Databases larger than this are scaled up from one of this size (see scaleRequests). */
const SEED_UNIT = 100_000;

/**
 * Builds `<dir>` with `times` copies of every request of the seeded database in `unitDir`, in SQL:
 * copy k of request i gets id i × times + k and a start time k / times of the way to request i + 1,
 * so ids stay in start-time order across the 90 days as in a real log. The text index is rebuilt
 * from the copied JSON by the store's own search_document(). ~10× faster than seeding through the
 * insert path (which the unit database was), for the 1M-request benchmarks.
 */
export function scaleRequests(unitDir: string, dir: string, times: number, progress: (line: string) => void = console.log): void {
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const db = openDatabase(join(dir, 'promptledger.db'), { synchronous: 'OFF' });
  db.function('latency_bucket', { deterministic: true }, (ms: unknown) => latencyBucket(Number(ms)));
  const unitRows = (rows: number) => Math.floor((SEED_END - SEED_START) / rows);
  const gap = unitRows(SEED_UNIT);
  db.exec(`ATTACH '${join(unitDir, 'promptledger.db').replaceAll("'", "''")}' AS unit`);
  db.transaction(() => {
    db.exec(`
      INSERT INTO workspaces SELECT * FROM unit.workspaces;
      INSERT INTO api_keys SELECT * FROM unit.api_keys;
      CREATE TEMP TABLE copies AS WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n + 1 < ${times}) SELECT n FROM k;
      INSERT INTO requests (id, workspace_id, provider, model, input, output, request_start_time, request_end_time,
        latency_ms, parameters, tags, metadata, prompt_id, prompt_name, prompt_version_number, prompt_version_id,
        prompt_input_variables, input_tokens, output_tokens, price, function_name, score, status, error_type,
        error_message, api_type, group_id, created_at, span_id, trace_id)
      SELECT r.id * ${times} + c.n, workspace_id, provider, model, input, output,
        request_start_time + c.n * ${gap} / ${times}, request_end_time + c.n * ${gap} / ${times},
        latency_ms, parameters, tags, metadata, prompt_id, prompt_name, prompt_version_number, prompt_version_id,
        prompt_input_variables, input_tokens, output_tokens, price, function_name, score, status, error_type,
        error_message, api_type, group_id, created_at + c.n * ${gap} / ${times}, span_id, trace_id
      FROM unit.requests r, copies c ORDER BY r.id * ${times} + c.n;
      INSERT INTO request_tags SELECT t.request_id * ${times} + c.n, workspace_id, tag, request_start_time + c.n * ${gap} / ${times}
        FROM unit.request_tags t, copies c;
      INSERT INTO request_metadata SELECT m.request_id * ${times} + c.n, workspace_id, key, value, request_start_time + c.n * ${gap} / ${times}
        FROM unit.request_metadata m, copies c;
      INSERT INTO request_scores SELECT s.request_id * ${times} + c.n, name, value FROM unit.request_scores s, copies c;
      INSERT INTO request_rollups SELECT workspace_id, strftime('%Y-%m-%d', request_start_time / 1000, 'unixepoch'), provider, model,
        count(*), sum(status = 'ERROR'), sum(price), sum(input_tokens), sum(output_tokens), sum(latency_ms)
        FROM requests GROUP BY 1, 2, 3, 4;
      INSERT INTO request_latency_buckets SELECT workspace_id, strftime('%Y-%m-%d', request_start_time / 1000, 'unixepoch'), provider, model,
        latency_bucket(latency_ms), count(*) FROM requests GROUP BY 1, 2, 3, 4, 5;
      INSERT INTO request_time_blocks SELECT id >> ${BLOCK_BITS}, max(request_start_time) FROM requests GROUP BY 1;`);
  })();
  progress(`  copied ${times} × ${SEED_UNIT} requests in ${((performance.now() - t0) / 1000).toFixed(0)} s; indexing their text`);
  db.transaction(() => {
    db.exec(`INSERT INTO requests_fts (rowid, body)
      SELECT id, document FROM (SELECT id, search_document(input, output) AS document FROM requests ORDER BY id)
      WHERE trim(document) <> ''`);
  })();
  db.exec('DETACH unit');
  db.exec('ANALYZE');
  closeDatabase(db);
  progress(`  scaled to ${times * SEED_UNIT} requests in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

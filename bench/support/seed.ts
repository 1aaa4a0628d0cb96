import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey } from '../../src-server/services/auth';
import { searchText } from '../../src-server/store/text-index';
import { closeDatabase, openDatabase } from '../../src-server/store/db';
import { latencyBucket } from '../../src-server/store/request-stats';
import { createRequestStore, type NewRequest } from '../../src-server/store/requests';
import { BLOCK_BITS } from '../../src-server/store/text-index';
import { createWorkspaceStore } from '../../src-server/store/workspaces';
import { migrations } from '../../src-server/store/migrations';
import { openSqlite } from '../../src-server/store/sqlite';
import { logRecord } from './corpus';

export const BENCH_KEY = 'pl_bench_key';
const DAY = 86_400_000;
/** The seeded log spans the 90 days before this instant. */
export const SEED_END = Date.UTC(2026, 10, 1);
export const SEED_START = SEED_END - 90 * DAY;

/** Corpus request `i`, started at `startMs`, as the store's insert takes it (what POST /log-request makes of it). */
export function corpusRequest(i: number, startMs: number): NewRequest {
  const r = logRecord(i, startMs);
  return {
    workspace_id: 1, provider: r.provider, model: r.model,
    input: JSON.stringify(r.input), output: JSON.stringify(r.output),
    request_start_time: r.start, request_end_time: r.end, latency_ms: r.latency,
    parameters: JSON.stringify(r.parameters), tags: r.tags, metadata: r.metadata,
    scores: r.score === null ? {} : { default: r.score },
    prompt_id: null, prompt_name: null, prompt_version_number: null, prompt_version_id: null,
    prompt_input_variables: '{}', input_tokens: r.inputTokens, output_tokens: r.outputTokens, price: r.price, price_source: 'client',
    function_name: 'openai.chat.completions.create', status: r.status, error_type: null, error_message: null,
    span_id: null, trace_id: null, api_type: 'chat-completions', group_id: null, created_at: r.end,
    searchText: searchText(r.input, r.output),
  };
}

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
      store.insert(corpusRequest(i, SEED_START + Math.floor(((SEED_END - SEED_START) * i) / rows)));
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
 * Bump when what a seeded database holds changes without a migration (how the store writes a row),
 * so cached copies seeded the old way are not reused.
 */
const SEED_FORMAT = 3;

/** Where the cached databases live: `$BENCH_CACHE` or the OS temp dir. Never committed. */
const cacheRoot = () => process.env.BENCH_CACHE ?? join(tmpdir(), 'promptledger-bench-cache');

/**
 * A directory holding `rows` seeded requests, seeded once and reused by later runs (and by other
 * benchmarks), named after the row count and a hash of the migrations. When the migrations
 * changed, a cached database of the same size whose migrations are all still known is copied and
 * brought up to date by openDatabase (pending migrations only), instead of seeding afresh; one
 * written by another branch's unknown migration is left alone.
 */
export function cachedRequests(rows: number): string {
  const schema = createHash('sha256')
    .update(`${SEED_FORMAT}\n${migrations.map((m) => m.sql).join('\n')}`)
    .digest('hex')
    .slice(0, 12);
  const name = `requests-${rows}-${schema}`;
  const dir = join(cacheRoot(), name);
  if (existsSync(join(dir, 'seeded'))) return dir;
  // Built beside its final name and renamed when complete: two benchmarks (or engineers) asking
  // at once each build their own copy rather than write one file together.
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const older = reusableCopy(rows, name);
  if (older) {
    console.log(`  migrating a copy of ${older}`);
    mkdirSync(building, { recursive: true });
    copyFileSync(join(older, 'promptledger.db'), join(building, 'promptledger.db'));
    closeDatabase(openDatabase(join(building, 'promptledger.db'), { synchronous: 'OFF' }));
  } else if (rows > SEED_UNIT && rows % SEED_UNIT === 0) {
    scaleRequests(cachedRequests(SEED_UNIT), building, rows / SEED_UNIT);
  } else {
    seedRequests(building, rows);
  }
  writeFileSync(join(building, 'seeded'), `${new Date().toISOString()} format ${SEED_FORMAT}\n`);
  if (existsSync(join(dir, 'seeded'))) rmSync(building, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  }
  return dir;
}

/** A seeded cache directory of `rows` requests this code can migrate forward, newest first. */
function reusableCopy(rows: number, except: string): string | undefined {
  if (!existsSync(cacheRoot())) return undefined;
  const known = new Set(migrations.map((m) => m.id));
  const candidates = readdirSync(cacheRoot())
    .filter((name) => name.startsWith(`requests-${rows}-`) && !name.includes('.building-') && name !== except)
    .map((name) => join(cacheRoot(), name))
    .filter((dir) => existsSync(join(dir, 'seeded')) && readFileSync(join(dir, 'seeded'), 'utf8').includes(`format ${SEED_FORMAT}\n`))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const dir of candidates) {
    const db = openSqlite(join(dir, 'promptledger.db'));
    try {
      const applied = db.prepare<[], { id: string }>('SELECT id FROM schema_migrations').all();
      if (applied.every((m) => known.has(m.id))) return dir;
    } finally {
      db.close();
    }
  }
  return undefined;
}

/** Databases larger than this are scaled up from one of this size (see scaleRequests). */
const SEED_UNIT = 100_000;

/**
 * Builds `<dir>` with `times` copies of every request of the seeded database in `unitDir`, in SQL:
 * copy k of request i gets id i × times + k and a start time k / times of the way to request i + 1,
 * so ids stay in start-time order across the 90 days as in a real log. A bulk load, not the insert
 * path: the rollback journal instead of the WAL (a new file: nothing to journal; better-sqlite3's
 * defensive mode forbids journal_mode OFF), the secondary indexes dropped during the copy and built once after it
 * (the same DDL), rows copied in id order, and the text index built from each unit request's
 * document (the store's own search_document(), computed once per unit request, not per copy).
 */
export function scaleRequests(unitDir: string, dir: string, times: number, progress: (line: string) => void = console.log): void {
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const lap = (what: string) => progress(`  ${what}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const db = openDatabase(join(dir, 'promptledger.db'), { synchronous: 'OFF' });
  db.pragma('journal_mode = DELETE');
  db.pragma('cache_size = -524288');
  db.function('latency_bucket', { deterministic: true }, (ms: unknown) => latencyBucket(Number(ms)));
  const gap = Math.floor((SEED_END - SEED_START) / SEED_UNIT);
  const shift = (column: string) => `${column} + c.n * ${gap} / ${times}`;
  db.exec(`ATTACH '${join(unitDir, 'promptledger.db').replaceAll("'", "''")}' AS unit`);
  const columns = (table: string, schema: string) =>
    db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}', '${schema}')`).all().map((c) => c.name);
  const unitColumns = new Set(columns('requests', 'unit'));
  const copied = columns('requests', 'main').filter((c) => unitColumns.has(c) && c !== 'fts_key');
  const expression = (c: string) =>
    c === 'id' ? `r.id * ${times} + c.n` : ['request_start_time', 'request_end_time', 'created_at'].includes(c) ? shift(`r.${c}`) : `r.${c}`;
  const indexes = db
    .prepare<[], { name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('requests', 'request_tags', 'request_metadata', 'request_scores')",
    )
    .all();
  db.transaction(() => {
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
    // CROSS JOIN keeps the loop order (unit request, then copy), so every table is appended to in key order.
    db.exec(`
      INSERT INTO workspaces SELECT * FROM unit.workspaces;
      INSERT INTO api_keys SELECT * FROM unit.api_keys;
      CREATE TEMP TABLE copies AS WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n + 1 < ${times}) SELECT n FROM k;
      INSERT INTO requests (${copied.join(', ')})
        SELECT ${copied.map(expression).join(', ')} FROM unit.requests r CROSS JOIN temp.copies c;
      INSERT INTO request_tags SELECT t.request_id * ${times} + c.n, t.workspace_id, t.tag, ${shift('t.request_start_time')}
        FROM unit.requests r CROSS JOIN temp.copies c CROSS JOIN unit.request_tags t WHERE t.request_id = r.id;
      INSERT INTO request_metadata SELECT m.request_id * ${times} + c.n, m.workspace_id, m.key, m.value, ${shift('m.request_start_time')}
        FROM unit.requests r CROSS JOIN temp.copies c CROSS JOIN unit.request_metadata m WHERE m.request_id = r.id;
      INSERT INTO request_scores SELECT s.request_id * ${times} + c.n, s.name, s.value
        FROM unit.requests r CROSS JOIN temp.copies c CROSS JOIN unit.request_scores s WHERE s.request_id = r.id;`);
    lap(`copied ${times} × ${SEED_UNIT} requests`);
    for (const index of indexes) db.exec(index.sql);
    lap('indexes built');
    db.exec(`
      INSERT INTO request_rollups SELECT workspace_id, strftime('%Y-%m-%d', request_start_time / 1000, 'unixepoch'), provider, model,
        count(*), sum(status = 'ERROR'), sum(price), sum(input_tokens), sum(output_tokens), sum(latency_ms)
        FROM requests GROUP BY 1, 2, 3, 4;
      INSERT INTO request_latency_buckets SELECT workspace_id, strftime('%Y-%m-%d', request_start_time / 1000, 'unixepoch'), provider, model,
        latency_bucket(latency_ms), count(*) FROM requests GROUP BY 1, 2, 3, 4, 5;
      INSERT INTO request_time_blocks SELECT id >> ${BLOCK_BITS}, max(request_start_time) FROM requests GROUP BY 1;
      CREATE TEMP TABLE documents AS SELECT id, search_document(input, output) AS document FROM unit.requests;`);
    lap('rollups and unit documents');
    db.exec(`INSERT INTO requests_fts (rowid, body)
      SELECT d.id * ${times} + c.n, d.document FROM temp.documents d CROSS JOIN temp.copies c WHERE trim(d.document) <> ''`);
    lap('text index');
  })();
  db.exec('DETACH unit');
  db.exec('ANALYZE');
  db.pragma('journal_mode = WAL');
  // Nothing is in the WAL yet (closeDatabase's checkpoint failed here with SQLITE_LOCKED).
  db.close();
  lap(`scaled to ${times * SEED_UNIT} requests`);
}

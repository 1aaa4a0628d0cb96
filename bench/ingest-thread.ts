// The ingest thread's CPU per request, in-process and load-independent: the store's insert in
// transactions of BENCH_BATCH rows (the convoy size seen at 50 connections), the text index either
// inline (each batch's transaction) or deferred (store/text-index.ts createTextQueue, indexed in
// chunks of each BENCH_CHUNKS size once a chunk is waiting, as the ingest thread does between
// batches). Prints CPU µs per row and the longest text-index chunk (the most a batch waits for it).
// `BENCH_DB_ROWS` (default 0) starts from a copy of a seeded database (bench/support/seed.ts).
//   npx tsx bench/ingest-thread.ts
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDatabase, openDatabase } from '../src-server/store/db';
import { createRequestStore } from '../src-server/store/requests';
import { configureTextIndexWrites, createTextQueue, MERGE_PER_CHUNK, MERGE_STEP } from '../src-server/store/text-index';
import { createWorkspaceStore } from '../src-server/store/workspaces';
import { cachedRequests, corpusRequest } from './support/seed';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 35);
const DB_ROWS = Number(process.env.BENCH_DB_ROWS ?? 0);
const MERGE_PAGES = Number(process.env.BENCH_MERGE_PAGES ?? MERGE_STEP);
const MERGE_BUDGET = Number(process.env.BENCH_MERGE_BUDGET ?? MERGE_PER_CHUNK);
const CHUNKS = (process.env.BENCH_CHUNKS ?? 'inline,100,200,400').split(',');

/** p50 / p99 / max of wall times, ms. */
function spread(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  return `p50 ${at(0.5)} p99 ${at(0.99)} max ${sorted.at(-1)!.toFixed(1)}`;
}

const rows = Array.from({ length: ROWS }, (_, i) => corpusRequest(5_000_000 + i, Date.UTC(2026, 10, 1) + (5_000_000 + i) * 10));
const seeded = DB_ROWS > 0 ? cachedRequests(DB_ROWS) : undefined;

for (const chunk of CHUNKS) {
  const dir = mkdtempSync(join(tmpdir(), 'promptledger-bench-ingest-thread-'));
  const file = join(dir, 'promptledger.db');
  if (seeded) copyFileSync(join(seeded, 'promptledger.db'), file);
  const db = openDatabase(file, { synchronous: 'NORMAL' });
  if (!seeded) createWorkspaceStore(db).insertWorkspace('Default', Date.now());
  configureTextIndexWrites(db);
  if (process.env.BENCH_NO_CHECKPOINT) db.pragma('wal_autocheckpoint = 0');
  for (const name of (process.env.BENCH_DROP ?? '').split(',').filter(Boolean)) db.exec(`DROP INDEX ${name}`);
  if (process.env.BENCH_CRISIS) db.exec(`INSERT INTO requests_fts (requests_fts, rank) VALUES ('crisismerge', ${Number(process.env.BENCH_CRISIS)})`);
  if (process.env.BENCH_USERMERGE) db.exec(`INSERT INTO requests_fts (requests_fts, rank) VALUES ('usermerge', ${Number(process.env.BENCH_USERMERGE)})`);
  if (process.env.BENCH_AUTOMERGE) db.exec(`INSERT INTO requests_fts (requests_fts, rank) VALUES ('automerge', ${Number(process.env.BENCH_AUTOMERGE)})`);
  const queue = createTextQueue(db);
  let staged: Array<[number, string]> = [];
  const inline = chunk === 'inline';
  // 'none': the text never indexed (its id still listed), the floor the index adds to.
  const none = chunk === 'none';
  const store = createRequestStore(db, inline ? {} : { textLater: (id, text) => void (none || staged.push([id, text])) });
  const write = db.transaction((from: number, to: number) => {
    const tally = store.tally();
    for (let i = from; i < to; i++) store.insert(rows[i], tally);
    tally.write();
  });
  const size = Number(chunk);
  const batches: number[] = [];
  const chunks: number[] = [];
  const merges: number[] = [];
  const started = process.cpuUsage();
  for (let i = 0; i < ROWS; i += BATCH) {
    const b = performance.now();
    write(i, Math.min(ROWS, i + BATCH));
    batches.push(performance.now() - b);
    for (const [id, text] of staged) queue.add(id, text);
    staged = [];
    while (!inline && !none && (queue.size >= size || (i + BATCH >= ROWS && queue.size > 0))) {
      const t = performance.now();
      queue.indexSome(size);
      chunks.push(performance.now() - t);
      // FTS5's merging, in steps of BENCH_MERGE_PAGES up to BENCH_MERGE_BUDGET per chunk, as the
      // ingest thread does between batches (0: none, for a base whose writes merge themselves).
      for (let budget = MERGE_BUDGET; MERGE_PAGES > 0 && budget > 0; budget -= MERGE_PAGES) {
        const m = performance.now();
        const worked = queue.mergeSome(MERGE_PAGES);
        merges.push(performance.now() - m);
        if (!worked) break;
      }
    }
  }
  const cpu = process.cpuUsage(started);
  const frames = db.pragma('wal_checkpoint(NOOP)', { simple: false }) as Array<{ log: number }>;
  console.log(`user ${(cpu.user / ROWS).toFixed(0)} sys ${(cpu.system / ROWS).toFixed(0)} µs per row; WAL frames per row ${(frames[0].log / ROWS).toFixed(2)}`);
  console.log(`${inline ? 'text inline' : none ? 'text not indexed' : `text in chunks of ${size}`}: ${((cpu.user + cpu.system) / ROWS).toFixed(0)} µs CPU per row` +
    `; batch ms ${spread(batches)}` + (inline || none ? '' : `; chunk ms ${spread(chunks)}`) + (merges.length ? `; ${merges.length} merge steps ms ${spread(merges)}` : '') + ` (${ROWS} rows in ${BATCH}-row transactions, ${DB_ROWS} before)`);
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
}

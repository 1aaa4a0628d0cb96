// Explorer queries on a 1,000,000-request database, seeded through the store's own insert path
// (the same code POST /log-request uses, minus HTTP), then timed over real HTTP against a server
// process. Baseline in the same run: GET /health (the HTTP round trip with no database work).
// BENCH_ROWS (default 1,000,000) and BENCH_DIR (reuse a seeded directory) are optional.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, closeDatabase } from '../src-server/store/db';
import { createRequestStore } from '../src-server/store/requests';
import { createWorkspaceStore } from '../src-server/store/workspaces';
import { searchText } from '../src-server/services/search-text';
import { hashKey } from '../src-server/services/auth';
import { logRecord } from './support/corpus';
import { fmt, startBenchServer, timeIt } from './support/spawn';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const dir = process.env.BENCH_DIR ?? join(tmpdir(), `promptledger-bench-query-${ROWS}`);
const file = join(dir, 'promptledger.db');
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 1);
const START = END - 90 * DAY;

function seed() {
  mkdirSync(dir, { recursive: true });
  // Seeding only: no fsync per batch. The insert path itself is the product's.
  const db = openDatabase(file, { synchronous: 'OFF' });
  const workspaces = createWorkspaceStore(db);
  workspaces.insertWorkspace('Default', Date.now());
  workspaces.insertKey({ workspace_id: 1, name: 'bench', prefix: 'pl_bench_k', key_hash: hashKey('pl_bench_key'), created_at: Date.now() });
  const store = createRequestStore(db);
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const r = logRecord(i, START + Math.floor(((END - START) * i) / ROWS));
      store.insert({
        workspace_id: 1, provider: r.provider, model: r.model,
        input: JSON.stringify(r.input), output: JSON.stringify(r.output),
        request_start_time: r.start, request_end_time: r.end, latency_ms: r.latency,
        parameters: JSON.stringify(r.parameters), tags: r.tags, metadata: r.metadata,
        scores: r.score === null ? {} : { default: r.score },
        prompt_id: null, prompt_name: null, prompt_version_number: null, prompt_version_id: null,
        prompt_input_variables: '{}', input_tokens: r.inputTokens, output_tokens: r.outputTokens, price: r.price,
        function_name: 'openai.chat.completions.create', status: r.status, error_type: null, error_message: null,
        api_type: 'chat-completions', group_id: null, created_at: r.end,
        searchText: searchText(r.input, r.output),
      });
    }
  });
  const t0 = performance.now();
  for (let i = 0; i < ROWS; i += 10_000) {
    batch(i, Math.min(ROWS, i + 10_000));
    if ((i / 10_000) % 10 === 9) process.stdout.write(`  seeded ${i + 10_000} rows (${((i + 10_000) / ((performance.now() - t0) / 1000)).toFixed(0)} rows/s)\r`);
  }
  db.exec('ANALYZE');
  closeDatabase(db);
  console.log(`\n  seeded ${ROWS} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

if (!existsSync(file)) seed();
const bytes = statSync(file).size;
console.log(`query: ${ROWS.toLocaleString()} requests, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / ROWS).toFixed(0)} bytes/request`);

const server = await startBenchServer(dir);
const get = async (path: string) => {
  const res = await fetch(server.url + path, { headers: { 'x-api-key': 'pl_bench_key' } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<{ items?: unknown[]; next_cursor?: string }>;
};
try {
  const base = await timeIt(200, () => get('/health'));
  console.log(`  baseline GET /health                 p50 ${fmt(base.p50)}  p95 ${fmt(base.p95)}`);
  const q = (s: string) => `/api/public/v2/requests?${s}`;
  const cases: Array<[string, string, number]> = [
    ['first page (50)', q('limit=50'), 50],
    ['second page via cursor', '', 50],
    ['tag filter (10%)', q('tags=team-3&limit=50'), 50],
    ['tag filter (0.1%)', q('tags=rare&limit=50'), 50],
    ['two tags', q('tags=team-3&tags=prod&limit=50'), 50],
    ['metadata filter (0.1%)', q('metadata[user_id]=u42&limit=50'), 50],
    ['model filter', q('model=claude-sonnet-4&limit=50'), 50],
    ['status=ERROR', q('status=ERROR&limit=50'), 50],
    ['full text: common word', q(`q=${encodeURIComponent('kalo')}&limit=50`), 30],
    ['full text: rare word', q(`q=${encodeURIComponent('gorbelnix')}&limit=50`), 30],
    ['full text: CJK phrase', q(`q=${encodeURIComponent('天気予報')}&limit=50`), 30],
    ['full text + tag', q(`q=${encodeURIComponent('kalo')}&tags=team-3&limit=50`), 30],
    ['stats (90 days)', '/api/public/v2/requests/stats', 30],
  ];
  const first = await get(q('limit=50'));
  cases[1][1] = q(`limit=50&cursor=${first.next_cursor}`);
  for (const [name, path, n] of cases) {
    const r = await timeIt(n, () => get(path));
    const items = (await get(path)).items?.length ?? '-';
    console.log(`  ${name.padEnd(36)} p50 ${fmt(r.p50)}  p95 ${fmt(r.p95)}  (${(r.p95 / base.p95).toFixed(1)}× baseline p95; ${items} items)`);
  }
} finally {
  await server.stop();
}

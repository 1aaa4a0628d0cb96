// Explorer queries on a 1,000,000-request database, seeded through the store's own insert path
// (the same code POST /log-request uses, minus HTTP), then timed over real HTTP against a server
// process. Baseline in the same run: GET /health (the HTTP round trip with no database work).
// BENCH_ROWS (default 1,000,000) and BENCH_DIR (reuse a seeded directory) are optional.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_KEY, cachedRequests } from './support/seed';
import { fmt, startBenchServer, timeIt } from './support/spawn';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const dir = process.env.BENCH_DIR ?? cachedRequests(ROWS);
const file = join(dir, 'promptledger.db');
const bytes = statSync(file).size;
console.log(`query: ${ROWS.toLocaleString()} requests, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / ROWS).toFixed(0)} bytes/request`);

const server = await startBenchServer(dir);
const get = async (path: string) => {
  const res = await fetch(server.url + path, { headers: { 'x-api-key': BENCH_KEY } });
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
    ['sort=latency (every row sorted)', q('sort=latency&limit=50'), 10],
    ['sort=cost&order=asc', q('sort=cost&order=asc&limit=50'), 10],
    ['sort=score + tag filter (10%)', q('sort=score&tags=team-3&limit=50'), 10],
    ['sort=time&order=asc (index, reversed)', q('sort=time&order=asc&limit=50'), 30],
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

// Explorer queries on a 1,000,000-request database (bench/support/seed.ts cachedRequests: 100,000
// seeded through the store's own insert path, the code POST /log-request uses minus HTTP, then
// scaled ×10 in SQL), timed over real HTTP against a server process; each list answer includes its
// total_estimate count. Baseline in the same run: GET /health (the HTTP round trip with no database work).
// BENCH_ROWS (default 1,000,000), BENCH_DIR (reuse a seeded directory) and BENCH_CASES (a regular
// expression naming the cases to run) are optional.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_KEY, cachedRequests } from './support/seed';
import { fmt, startBenchServer, timeIt } from './support/spawn';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const dir = process.env.BENCH_DIR ?? cachedRequests(ROWS);
const file = join(dir, 'promptledger.db');
const bytes = statSync(file).size;
const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/.*load average: /, 'load average ');
console.log(`query: ${ROWS.toLocaleString()} requests, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / ROWS).toFixed(0)} bytes/request; ${load()}`);

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
    ['full text + rare tag (0.1%)', q(`q=${encodeURIComponent('kalo')}&tags=rare&limit=50`), 20],
    ['full text + model', q(`q=${encodeURIComponent('kalo')}&model=claude-sonnet-4&limit=50`), 20],
    ['full text + status=ERROR (1%)', q(`q=${encodeURIComponent('kalo')}&status=ERROR&limit=50`), 20],
    ['full text + metadata (0.1%)', q(`q=${encodeURIComponent('kalo')}&metadata[user_id]=u42&limit=50`), 20],
    ['rare word + tag', q(`q=${encodeURIComponent('gorbelnix')}&tags=team-3&limit=50`), 20],
    ['CJK phrase + model', q(`q=${encodeURIComponent('天気予報')}&model=gpt-4o&limit=50`), 20],
    ['full text, second page', '', 20],
    ['full text sort=latency', q(`q=${encodeURIComponent('kalo')}&sort=latency&limit=50`), 10],
    ['rare word sort=cost&order=asc', q(`q=${encodeURIComponent('gorbelnix')}&sort=cost&order=asc&limit=50`), 10],
    ['sort=latency (every row sorted)', q('sort=latency&limit=50'), 10],
    ['sort=cost&order=asc', q('sort=cost&order=asc&limit=50'), 10],
    ['sort=score + tag filter (10%)', q('sort=score&tags=team-3&limit=50'), 10],
    ['sort=time&order=asc (index, reversed)', q('sort=time&order=asc&limit=50'), 30],
    ['stats (90 days)', '/api/public/v2/requests/stats', 30],
  ];
  const first = await get(q('limit=50'));
  cases[1][1] = q(`limit=50&cursor=${first.next_cursor}`);
  const firstText = await get(q('q=kalo&limit=50'));
  cases.find((c) => c[0] === 'full text, second page')![1] = q(`q=kalo&limit=50&cursor=${firstText.next_cursor}`);
  // BENCH_CASES: a regular expression choosing the cases to run (all by default).
  const only = new RegExp(process.env.BENCH_CASES ?? '');
  for (const [name, path, n] of cases.filter(([name]) => only.test(name))) {
    const r = await timeIt(n, () => get(path));
    const items = (await get(path)).items?.length ?? '-';
    console.log(`  ${name.padEnd(36)} p50 ${fmt(r.p50)}  p95 ${fmt(r.p95)}  (${(r.p95 / base.p95).toFixed(1)}× baseline p95; ${items} items)`);
  }
  const again = await timeIt(200, () => get('/health'));
  console.log(`  baseline GET /health again           p50 ${fmt(again.p50)}  p95 ${fmt(again.p95)}; ${load()}`);
} finally {
  await server.stop();
}

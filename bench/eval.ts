// Evaluation runner: wall time against the ideal, overhead per cell, memory on a large dataset.
// The server runs the real CLI in a child process; the local mock LLM runs in this process.
//   1,000 rows × [PROMPT_TEMPLATE (mock at 50 ms) + COMPARE + CONTAINS + REGEX] at concurrency
//   10 and 50: wall time vs rows × latency / concurrency (the ideal; target ≤ 1.15×).
//   Same pipeline with a 0 ms mock: the runner's own cost per cell, against a baseline measured
//   in the same run: the same number of chat calls sent straight to the mock at the same
//   concurrency (HTTP + JSON only, no storage).
//   100,000 rows with a 0 ms mock: the server's RSS sampled through the run.
// `BENCH_EVAL_BIG_ROWS` changes the large dataset's size.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../test/support/server';
import { startMockLlm } from '../test/support/mock-llm';
import { BENCH_KEY as KEY } from './support/seed';
import { startShippedServer } from './support/spawn';

const BIG = Number(process.env.BENCH_EVAL_BIG_ROWS ?? 100_000);

async function serve(dataDir: string, mockUrl: string) {
  const server = await startShippedServer(dataDir, { OPENAI_BASE_URL: mockUrl, OPENAI_API_KEY: 'sk-bench', PROMPTLEDGER_EVAL_CONCURRENCY: '50' });
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  // RssFile is the database file mapped by SQLite's mmap (up to 256 MiB): it grows with the file
  // and is given back under memory pressure; RssAnon is the process's own memory.
  return { ...server, rssMiB: () => field('VmRSS'), anonMiB: () => field('RssAnon') };
}

const columns = [
  {
    column_type: 'PROMPT_TEMPLATE', name: 'answer',
    configuration: {
      inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: '{q}' }] }] } },
      prompt_template_variable_mappings: { q: 'q' }, engine: { provider: 'openai', model: 'gpt-4o-mini' },
    },
  },
  { column_type: 'COMPARE', name: 'exact', configuration: { sources: ['answer', 'expected'] } },
  { column_type: 'CONTAINS', name: 'mentions', configuration: { source: 'answer', value_source: 'q' } },
  { column_type: 'REGEX', name: 'shape', configuration: { source: 'answer', regex_pattern: '^echo: question \\d+$' } },
];

async function main() {
  const mock = await startMockLlm();
  const dataDir = mkdtempSync(join(tmpdir(), 'promptledger-bench-eval-'));
  const server = await serve(dataDir, mock.baseUrl);
  const api = (path: string, body?: unknown) => call(server.url, path, { key: KEY, body });

  async function dataset(rows: number) {
    const data = Array.from({ length: rows }, (_, i) => ({ q: `question ${i}`, expected: i % 4 === 0 ? `echo: question ${i}` : 'something else' }));
    const group = await api('/api/public/v2/dataset-groups', { name: `bench ${rows} ${Date.now()}` });
    const version = await api('/api/public/v2/dataset-versions/from-file', {
      dataset_group_id: group.body.dataset_group.id, file_name: 'rows.json', file_content_base64: Buffer.from(JSON.stringify(data)).toString('base64'),
    });
    if (version.status !== 201) throw new Error(JSON.stringify(version.body));
    const pipeline = await api('/reports', { dataset_group_id: group.body.dataset_group.id, columns });
    if (pipeline.status !== 201) throw new Error(JSON.stringify(pipeline.body));
    return pipeline.body.report_id as number;
  }

  async function run(pipelineId: number, concurrency: number, onTick?: () => void) {
    const t0 = performance.now();
    const started = await api(`/reports/${pipelineId}/run`, { name: `c${concurrency}`, concurrency });
    for (;;) {
      onTick?.();
      const report = await api(`/reports/${started.body.report_id}`);
      if (report.body.status !== 'RUNNING') {
        if (report.body.status !== 'COMPLETED') throw new Error(JSON.stringify(report.body));
        return { wallMs: performance.now() - t0, serverMs: report.body.stats.duration_ms as number, score: report.body.report.score as number };
      }
      await new Promise((r) => setTimeout(r, onTick ? 250 : 20));
    }
  }

  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`load average at start: ${load()} (2 cores)`);

  if (process.env.BENCH_EVAL_ONLY_BIG !== '1') await smallRuns();
  async function smallRuns() {
  const small = await dataset(1000);
  mock.setLatency(0);
  await run(small, 10); // warm-up: JIT, page cache, WASM-free path

  mock.setLatency(50);
  for (const concurrency of [10, 50]) {
    const ideal = (1000 * 50) / concurrency;
    const r = await run(small, concurrency);
    console.log(`1,000 rows, 50 ms mock, concurrency ${concurrency}: server ${r.serverMs} ms, client ${r.wallMs.toFixed(0)} ms; ideal ${ideal} ms; ratio ${(r.serverMs / ideal).toFixed(3)}× (score ${r.score})`);
  }

  mock.setLatency(0);
  for (const concurrency of [10, 50]) {
    const r = await run(small, concurrency);
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'question 1' }] };
    const b0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < 1000) {
        next++;
        const res = await fetch(`${mock.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await res.json();
      }
    }));
    const baseline = performance.now() - b0;
    console.log(`1,000 rows × 4 columns, 0 ms mock, concurrency ${concurrency}: ${r.serverMs} ms = ${(r.serverMs / 4000).toFixed(3)} ms per cell, ${(r.serverMs / 1000).toFixed(2)} ms per row; ` +
      `baseline 1,000 direct mock calls ${baseline.toFixed(0)} ms (${(baseline / 1000).toFixed(2)} ms each); runner overhead ≈ ${((r.serverMs - baseline) / 4000).toFixed(3)} ms per cell`);
  }

  }

  const big = await dataset(BIG);
  const samples: Array<{ progress: number; rss: number; anon: number }> = [];
  const before = server.rssMiB();
  const anonBefore = server.anonMiB();
  let polls = 0;
  const r = await run(big, 50, () => {
    if (polls++ % 2 === 0) samples.push({ progress: samples.length, rss: server.rssMiB(), anon: server.anonMiB() });
  });
  const rss = samples.map((s) => s.rss);
  const anon = samples.map((s) => s.anon);
  const at = (list: number[], f: number) => list[Math.min(list.length - 1, Math.floor(f * (list.length - 1)))].toFixed(0);
  const quarter = (f: number) => at(rss, f);
  const anonQuarter = (f: number) => at(anon, f);
  console.log(`${BIG.toLocaleString('en')} rows × 4 columns, 0 ms mock, concurrency 50: ${(r.serverMs / 1000).toFixed(1)} s (${(r.serverMs / BIG / 4).toFixed(3)} ms per cell); ` +
    `server RSS before ${before.toFixed(0)} MiB, at 10/25/50/75/100 % of the run ${quarter(0.1)}/${quarter(0.25)}/${quarter(0.5)}/${quarter(0.75)}/${quarter(1)} MiB, peak ${Math.max(...rss).toFixed(0)} MiB; ` +
    `of which anonymous (heap, not the mapped file) before ${anonBefore.toFixed(0)}, then ${anonQuarter(0.1)}/${anonQuarter(0.25)}/${anonQuarter(0.5)}/${anonQuarter(0.75)}/${anonQuarter(1)} MiB, peak ${Math.max(...anon).toFixed(0)} MiB`);
  console.log(`load average at end: ${load()}`);

  await server.stop();
  await mock.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hashKey } from '../../src-server/services/auth';
import { searchText } from '../../src-server/services/search-text';
import { closeDatabase, openDatabase } from '../../src-server/store/db';
import { createRequestStore } from '../../src-server/store/requests';
import { createWorkspaceStore } from '../../src-server/store/workspaces';
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

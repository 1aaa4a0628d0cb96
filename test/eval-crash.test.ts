import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dataFiles } from '../src-server/data-dir';
import { openSqlite } from '../src-server/store/sqlite';
import { call, tempDir } from './support/server';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

let mock: MockLlm;
const dataDir = tempDir('promptledger-eval-crash-');
const children: ChildProcess[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ latencyMs: 50 });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await mock.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The real CLI in a child process, so SIGKILL is a real crash: no shutdown code runs. */
async function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bin/promptledger.js', 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test', PROMPTLEDGER_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /promptledger listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { child, url };
}

test('SIGKILL mid-run, then restart: the run completes with every row exactly once', async () => {
  let { child, url } = await serve();
  const key = readFileSync(`${dataDir}/api-key`, 'utf8').trim();
  let api = (path: string, init: Parameters<typeof call>[2] = {}) => call(url, path, { ...init, key });
  const t = { api: (path: string, init?: Parameters<typeof call>[2]) => api(path, init) };

  const rows = Array.from({ length: 40 }, (_, i) => ({ q: `row-${i}` }));
  const { groupId } = await publishDataset(t, rows);
  const pipeline = await t.api('/reports', {
    body: {
      dataset_group_id: groupId,
      columns: [
        {
          column_type: 'PROMPT_TEMPLATE', name: 'answer',
          configuration: {
            inline_template: { prompt_template: { type: 'completion', content: [{ type: 'text', text: '{q}' }] } },
            prompt_template_variable_mappings: { q: 'q' }, engine: { provider: 'openai', model: 'gpt-4o-mini' },
          },
        },
        { column_type: 'CONTAINS', name: 'ok', configuration: { source: 'answer', value_source: 'q' } },
      ],
    },
  });
  // At most 20 calls are answered before the crash, however slowly this test's polls come round
  // on a busy machine; the crash still lands wherever the run is by then.
  const release = mock.hold(20);
  const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'crashy', concurrency: 2 } });
  const reportId = run.body.report_id as number;

  for (;;) {
    const report = await t.api(`/reports/${reportId}`);
    if (report.body.stats.status_counts.COMPLETED >= 10) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  release();
  const callsBeforeCrash = mock.calls.length;
  expect(callsBeforeCrash).toBeLessThanOrEqual(22);
  // The rows whose answer was committed when the process died. A row's slot goes to the next row
  // when its cell is handed to the writer, not when it is committed (decisions.md, evalc50), so
  // besides the 2 calls in flight a finished call whose cell was still waiting for its commit is
  // made again: how many depends on how long the commit's sync took (43 calls in 1 of 8 copies,
  // 4 at once), not on the product being wrong.
  const db = openSqlite(dataFiles(dataDir).database);
  const durable = new Set(
    (db.prepare(`SELECT c.row_index FROM report_cells c JOIN report_columns col ON col.id = c.column_id
      WHERE c.report_id = ? AND col.name = 'answer' AND c.status = 'PASSED'`).all(reportId) as Array<{ row_index: number }>).map((r) => r.row_index),
  );
  db.close();

  ({ child, url } = await serve());
  api = (path, init = {}) => call(url, path, { ...init, key });
  const done = await waitForRun(t, reportId);
  expect(done.status).toBe('COMPLETED');
  expect(done.stats.status_counts).toEqual({ QUEUED: 0, RUNNING: 0, COMPLETED: 80, FAILED: 0 });
  expect(done.report.score).toBe(100);
  const { rows: cells } = await allRows(t, reportId);
  expect(cells.map((r: any) => r.row_index)).toEqual(rows.map((_, i) => i));
  expect(cells.map((r: any) => r.cells.answer.value)).toEqual(rows.map((r) => `echo: ${r.q}`));
  // A row committed before the crash is never asked again; every other row is asked exactly once
  // after the restart.
  const asked = mock.calls.map((c) => c.body.messages.at(-1).content as string);
  for (const row of rows) expect(asked.filter((q) => q === row.q).length).toBeGreaterThanOrEqual(1);
  const askedAfter = asked.slice(callsBeforeCrash).sort();
  expect(askedAfter).toEqual(rows.filter((_, i) => !durable.has(i)).map((r) => r.q).sort());
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
});

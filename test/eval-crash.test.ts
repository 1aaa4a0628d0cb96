import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
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
  const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'crashy', concurrency: 2 } });
  const reportId = run.body.report_id as number;

  for (;;) {
    const report = await t.api(`/reports/${reportId}`);
    if (report.body.stats.status_counts.COMPLETED >= 10) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const callsBeforeCrash = mock.calls.length;
  expect(callsBeforeCrash).toBeLessThan(40);

  ({ child, url } = await serve());
  api = (path, init = {}) => call(url, path, { ...init, key });
  const done = await waitForRun(t, reportId);
  expect(done.status).toBe('COMPLETED');
  expect(done.stats.status_counts).toEqual({ QUEUED: 0, RUNNING: 0, COMPLETED: 80, FAILED: 0 });
  expect(done.report.score).toBe(100);
  const { rows: cells } = await allRows(t, reportId);
  expect(cells.map((r: any) => r.row_index)).toEqual(rows.map((_, i) => i));
  expect(cells.map((r: any) => r.cells.answer.value)).toEqual(rows.map((r) => `echo: ${r.q}`));
  // Only the calls in flight at the crash (at most 2) can be repeated.
  const asked = mock.calls.map((c) => c.body.messages.at(-1).content as string);
  for (const row of rows) expect(asked.filter((q) => q === row.q).length).toBeGreaterThanOrEqual(1);
  expect(mock.calls.length).toBeLessThanOrEqual(42);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
});

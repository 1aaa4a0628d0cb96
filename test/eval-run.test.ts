import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

let t: TestServer;
let mock: MockLlm;
const LIMIT = 3;

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' }, evalConcurrency: LIMIT });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(() => {
  mock.setLatency(0);
  mock.resetCounters();
});

const promptColumn = (name = 'answer', source = 'q') => ({
  column_type: 'PROMPT_TEMPLATE',
  name,
  configuration: {
    inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say {x}' }] }] } },
    prompt_template_variable_mappings: { x: source },
    engine: { provider: 'openai', model: 'gpt-4o-mini' },
  },
});

async function runPipeline(rows: Array<Record<string, unknown>>, columns: unknown[], runBody: Record<string, unknown> = {}) {
  const { groupId } = await publishDataset(t, rows);
  const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const run = await t.api(`/reports/${p.body.report_id}/run`, { body: { name: 'run', ...runBody } });
  expect(run.status).toBe(201);
  return { pipelineId: p.body.report_id as number, reportId: run.body.report_id as number };
}

const rowsOf = (n: number, f: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, i) => f(i));

describe('scores', () => {
  test('a boolean last column scores as % true, exactly', async () => {
    const rows = rowsOf(20, (i) => ({ q: `${i}`, label: i < 13 ? 'yes, fine' : 'no' }));
    const { reportId } = await runPipeline(rows, [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'label', value: 'YES' } }]);
    const done = await waitForRun(t, reportId);
    expect(done.status).toBe('COMPLETED');
    expect(done.report.score).toBe(65);
    const score = await t.api(`/reports/${reportId}/score`);
    expect(score.body).toEqual({
      success: true,
      score: { overall_score: 65, unit: 'percent', score_type: 'single_column', details: { column_names: ['ok'], columns: [{ column_name: 'ok', type: 'boolean', score: 65, counted: 20, passed: 13 }] } },
    });
    expect(done.stats.status_counts).toEqual({ QUEUED: 0, RUNNING: 0, COMPLETED: 20, FAILED: 0 });
  });

  test('several scored columns average; the score card changes the choice and recomputes', async () => {
    const rows = rowsOf(4, (i) => ({ q: 'x', n: String(i * 10), label: i % 2 ? 'yes' : 'no' }));
    const { reportId, pipelineId } = await runPipeline(rows, [
      { column_type: 'CONTAINS', name: 'ok', configuration: { source: 'label', value: 'yes' }, is_part_of_score: true },
      { column_type: 'PARSE_VALUE', name: 'num', configuration: { source: 'n', type: 'number' }, is_part_of_score: true },
      { column_type: 'COUNT', name: 'len', configuration: { source: 'q' } },
    ]);
    await waitForRun(t, reportId);
    const score = (await t.api(`/reports/${reportId}/score`)).body.score;
    expect(score.score_type).toBe('multi_column');
    expect(score.overall_score).toBe(32.5);
    // 50 % passing averaged with a mean of 15: a number with no one unit.
    expect(score.unit).toBe('mixed');
    const card = await t.api(`/reports/${reportId}/score-card`, { method: 'PATCH', body: { column_names: ['len'] } });
    expect(card.status).toBe(200);
    expect(card.body.score).toMatchObject({ overall_score: 1, unit: 'mean', score_type: 'single_column' });
    expect((await t.api(`/reports/${reportId}`)).body.report.score).toBe(1);
    const bad = await t.api(`/reports/${reportId}/score-card`, { method: 'PATCH', body: { column_names: ['len', 'ghost'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'column_names', 1]);
    expect((await t.api(`/reports/${pipelineId}/score-card`, { method: 'PATCH', body: { column_names: ['num'] } })).status).toBe(200);
    const next = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'carded' } });
    await waitForRun(t, next.body.report_id);
    expect((await t.api(`/reports/${next.body.report_id}/score`)).body.score.overall_score).toBe(15);
  });

  test('text-only last column scores none', async () => {
    const { reportId } = await runPipeline([{ q: 'a' }], [{ column_type: 'VARIABLE', name: 'v', configuration: { value: { type: 'string', value: 's' } } }]);
    await waitForRun(t, reportId);
    expect((await t.api(`/reports/${reportId}/score`)).body.score).toMatchObject({ overall_score: null, unit: null, score_type: 'none' });
  });
});

test('a failed input makes dependants SKIPPED, down the chain; COALESCE still runs', async () => {
  const { reportId } = await runPipeline([{ n: '5' }, { n: 'five' }], [
    { column_type: 'PARSE_VALUE', name: 'num', configuration: { source: 'n', type: 'number' } },
    { column_type: 'MATH_OPERATOR', name: 'big', configuration: { sources: ['num'], value: 3, operator: 'gt' } },
    { column_type: 'COMBINE_COLUMNS', name: 'both', configuration: { sources: ['num', 'big'] } },
    { column_type: 'COALESCE', name: 'first', configuration: { sources: ['num', 'n'] } },
  ]);
  const done = await waitForRun(t, reportId);
  expect(done.stats.status_counts).toEqual({ QUEUED: 0, RUNNING: 0, COMPLETED: 7, FAILED: 1 });
  const { rows } = await allRows(t, reportId);
  expect(rows[0].cells.num).toMatchObject({ value: 5, status: 'PASSED' });
  expect(rows[0].cells.big).toMatchObject({ value: true, status: 'PASSED' });
  expect(rows[1].cells.num).toMatchObject({ value: null, status: 'ERROR', error: expect.stringMatching(/not a number/) });
  expect(rows[1].cells.big).toMatchObject({ status: 'SKIPPED', error: expect.stringMatching(/'num'/) });
  expect(rows[1].cells.both).toMatchObject({ status: 'SKIPPED' });
  expect(rows[1].cells.first).toMatchObject({ status: 'PASSED', value: 'five' });
});

describe('providers', () => {
  test('in-flight LLM calls never exceed the limit; a run can lower it', async () => {
    mock.setLatency(40);
    const rows = rowsOf(24, (i) => ({ q: `row ${i}` }));
    const first = await runPipeline(rows, [promptColumn()]);
    await waitForRun(t, first.reportId);
    expect(mock.maxInFlight).toBe(LIMIT);
    mock.resetCounters();
    const lowered = await runPipeline(rows, [promptColumn()], { concurrency: 2 });
    await waitForRun(t, lowered.reportId);
    expect(mock.maxInFlight).toBe(2);
    mock.resetCounters();
    // Two runs at once share the provider's limit.
    const [a, b] = await Promise.all([runPipeline(rows, [promptColumn()]), runPipeline(rows, [promptColumn()])]);
    await Promise.all([waitForRun(t, a.reportId), waitForRun(t, b.reportId)]);
    expect(mock.maxInFlight).toBeLessThanOrEqual(LIMIT);
  });

  test('429 and 5xx are retried; a 400 is not; every call is logged with the report tag, cost adds up', async () => {
    mock.failNext(3, 429);
    mock.failNext(1, 503);
    const rows = rowsOf(5, (i) => ({ q: `r${i}` }));
    const { reportId } = await runPipeline(rows, [promptColumn()], { concurrency: 1 });
    const done = await waitForRun(t, reportId);
    expect(done.stats.status_counts.COMPLETED).toBe(5);
    expect(mock.calls.length).toBe(5 + 4);
    const { rows: cells } = await allRows(t, reportId);
    expect(cells.map((r: any) => r.cells.answer.value)).toEqual(rows.map((r) => `echo: Say ${r.q}`));

    const logged = await t.api(`/api/public/v2/requests?tags=report:${reportId}&limit=200`);
    expect(logged.body.items).toHaveLength(5);
    const cost = logged.body.items.reduce((s: number, r: any) => s + r.price, 0);
    expect(done.stats.cost).toBeCloseTo(cost, 9);
    expect(done.stats.input_tokens).toBe(logged.body.items.reduce((s: number, r: any) => s + r.input_tokens, 0));
    expect(logged.body.items[0]).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', tags: [`report:${reportId}`], metadata: { report_id: String(reportId), column: 'answer' } });

    mock.resetCounters();
    mock.failNext(1, 400);
    const fatal = await runPipeline([{ q: 'a' }], [promptColumn()]);
    const fatalDone = await waitForRun(t, fatal.reportId);
    expect(mock.calls.length).toBe(1);
    expect(fatalDone.stats.status_counts.FAILED).toBe(1);
    const { rows: fatalRows } = await allRows(t, fatal.reportId);
    expect(fatalRows[0].cells.answer).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/answered 400/) });
    const errors = await t.api(`/api/public/v2/requests?tags=report:${fatal.reportId}`);
    expect(errors.body.items[0]).toMatchObject({ status: 'ERROR', error_message: expect.stringMatching(/400/) });
  });
});

test('cancel stops the run at once: no more calls, status CANCELED, unfinished cells marked', async () => {
  mock.setLatency(150);
  // Two rows' calls are answered and the next two held: the run is mid-way when it is canceled,
  // however slow the machine (a fixed 400 ms wait could pass before the first row finished).
  const release = mock.hold(2);
  try {
    const rows = rowsOf(40, (i) => ({ q: `${i}` }));
    const { reportId } = await runPipeline(rows, [promptColumn(), { column_type: 'COUNT', name: 'len', configuration: { source: 'answer' } }], { concurrency: 2 });
    const completed = async () => (await t.api(`/reports/${reportId}`)).body.stats.status_counts.COMPLETED;
    await expect.poll(completed, { timeout: 30_000 }).toBe(4);
    await expect.poll(() => mock.inFlight, { timeout: 30_000 }).toBe(2);
    const canceled = await t.api(`/api/public/v2/reports/${reportId}/cancel`, { method: 'POST', body: {} });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('CANCELED');
    const callsAtCancel = mock.calls.length;
    expect(callsAtCancel).toBe(4);
    // The held calls were hung up on by the cancel.
    await expect.poll(() => mock.calls.slice(2).every((c) => c.aborted), { timeout: 30_000 }).toBe(true);
    release();
    await new Promise((r) => setTimeout(r, 400));
    expect(mock.calls.length).toBe(callsAtCancel);
    expect(mock.inFlight).toBe(0);
    const report = await t.api(`/reports/${reportId}`);
    expect(report.body.status).toBe('CANCELED');
    expect(report.body.stats.status_counts.COMPLETED).toBe(4);
    const last = (await t.api(`/api/public/v2/reports/${reportId}/rows?page=2&per_page=20`)).body.rows.at(-1);
    expect(last.cells.answer).toMatchObject({ status: 'SKIPPED', error: expect.stringMatching(/CANCELED/) });
    expect((await t.api(`/api/public/v2/reports/${reportId}/cancel`, { method: 'POST', body: {} })).status).toBe(409);
  } finally {
    release();
  }
});

test('while a run goes, the rows show the cells being computed as RUNNING, the rest QUEUED', async () => {
  // Every call is held until the rows are read (a 1 s latency could run out first on a busy machine).
  const release = mock.hold();
  let statuses: string[];
  let reportId: number;
  try {
    ({ reportId } = await runPipeline(rowsOf(5, (i) => ({ q: `${i}` })), [promptColumn()]));
    await expect.poll(() => mock.inFlight, { timeout: 30_000 }).toBe(LIMIT);
    statuses = (await allRows(t, reportId)).rows.map((row) => row.cells.answer.status);
  } finally {
    release();
  }
  expect(statuses).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'QUEUED', 'QUEUED']);
  const done = await waitForRun(t, reportId);
  expect(done.status).toBe('COMPLETED');
  expect((await allRows(t, reportId)).rows.map((row) => row.cells.answer.status)).toEqual(Array(5).fill('PASSED'));
});

test('SSE: progress events while running, then done with every cell', async () => {
  mock.setLatency(20);
  // Calls are held until the stream is open: a run that finished first would send only `done`.
  const release = mock.hold();
  let res: Response;
  let reportId: number;
  try {
    ({ reportId } = await runPipeline(rowsOf(12, (i) => ({ q: `${i}` })), [promptColumn()], { concurrency: 2 }));
    res = await fetch(`${t.url}/api/public/v2/reports/${reportId}/events`, { headers: { 'X-API-KEY': t.key } });
  } finally {
    release();
  }
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const text = await res.text();
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ type: m[1], data: JSON.parse(m[2]) }));
  expect(events.length).toBeGreaterThanOrEqual(2);
  expect(events[0].type).toBe('progress');
  const done = events.at(-1)!;
  expect(done.type).toBe('done');
  expect(done.data).toMatchObject({ report_id: reportId, status: 'COMPLETED', total_cells: 12, done_cells: 12 });
  const finished = await fetch(`${t.url}/api/public/v2/reports/${reportId}/events`, { headers: { 'X-API-KEY': t.key } });
  expect(await finished.text()).toMatch(/^event: done\n/);
});

test('HUMAN cells are entered through the API and scored', async () => {
  const { reportId, pipelineId } = await runPipeline(rowsOf(4, (i) => ({ q: `${i}` })), [{ column_type: 'HUMAN', name: 'rating', configuration: { data_type: 'boolean' } }]);
  await waitForRun(t, reportId);
  let { rows } = await allRows(t, reportId);
  expect(rows[0].cells.rating).toMatchObject({ status: 'SKIPPED', error: 'Awaiting human input' });
  const patch = (body: unknown, id = reportId) => t.api(`/api/public/v2/reports/${id}/cells`, { method: 'PATCH', body });
  for (const [i, value] of [[0, true], [1, true], [2, false]] as const) expect((await patch({ row_index: i, column_name: 'rating', value })).status).toBe(200);
  ({ rows } = await allRows(t, reportId));
  expect(rows.map((r: any) => r.cells.rating.status)).toEqual(['PASSED', 'PASSED', 'FAILED', 'SKIPPED']);
  expect((await t.api(`/reports/${reportId}`)).body.report.score).toBe(50);
  expect((await patch({ row_index: 0, column_name: 'rating', value: 'yes' })).body.detail[0].loc).toEqual(['body', 'value']);
  expect((await patch({ row_index: 4, column_name: 'rating', value: true })).body.detail[0].loc).toEqual(['body', 'row_index']);
  expect((await patch({ row_index: -1, column_name: 'rating', value: true })).status).toBe(422);
  expect((await patch({ row_index: 0, column_name: 'q', value: 'x' })).status).toBe(422);
  expect((await patch({ row_index: 0, column_name: 'ghost', value: true })).status).toBe(422);
  expect((await patch({ row_index: 0, column_name: 'rating', value: true }, pipelineId)).status).toBe(400);
});

test('a clean restart mid-run resumes it; every row is computed exactly once', async () => {
  mock.setLatency(60);
  const rows = rowsOf(30, (i) => ({ q: `row-${i}` }));
  // Four rows' calls are answered, then calls wait until the restart has begun: the run is mid-way
  // for certain (a fixed 300 ms wait could pass before the first row finished on a busy machine).
  const release = mock.hold(4);
  const { reportId } = await runPipeline(rows, [promptColumn(), { column_type: 'CONTAINS', name: 'ok', configuration: { source: 'answer', value: 'row' } }], { concurrency: 2 });
  await expect.poll(async () => (await t.api(`/reports/${reportId}`)).body.stats.status_counts.COMPLETED, { timeout: 30_000 }).toBe(8);
  const restarted = t.restart();
  release();
  await restarted;
  const before = (await t.api(`/reports/${reportId}`)).body.stats.status_counts.COMPLETED;
  expect(before).toBeGreaterThan(0);
  expect(before).toBeLessThan(60);
  const done = await waitForRun(t, reportId);
  expect(done.status).toBe('COMPLETED');
  expect(done.report.score).toBe(100);
  const { rows: cells } = await allRows(t, reportId);
  expect(cells.map((r: any) => r.cells.answer.value)).toEqual(rows.map((r) => `echo: Say ${r.q}`));
  // A restart can only repeat the calls that were in flight when it stopped (at most 2 here).
  const answered = mock.calls.length;
  expect(answered).toBeGreaterThanOrEqual(30);
  expect(answered).toBeLessThanOrEqual(32);
});

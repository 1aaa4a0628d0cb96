import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

let t: TestServer;
let mock: MockLlm;

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' } });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(() => {
  mock.setLatency(0);
  mock.resetCounters();
});

const columns = [
  {
    column_type: 'PROMPT_TEMPLATE',
    name: 'answer',
    configuration: {
      inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say {q}' }] }] } },
      prompt_template_variable_mappings: { q: 'q' },
      engine: { provider: 'openai', model: 'gpt-4o-mini' },
    },
  },
  { column_type: 'CONTAINS', name: 'says it', configuration: { source: 'answer', value_source: 'expected' } },
  { column_type: 'CODE_EXECUTION', name: 'keys', configuration: { language: 'JAVASCRIPT', code: 'return Object.keys(data).join(",")' } },
];

const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ q: `word${i}`, expected: i % 2 ? `word${i}` : 'nope' }));

async function pipeline(rowCount: number, cols: unknown[] = columns) {
  const { groupId } = await publishDataset(t, rowsOf(rowCount));
  const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns: cols } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  return { groupId, pipelineId: p.body.report_id as number };
}

const preview = (id: number, body: Record<string, unknown> = {}) => t.api(`/api/public/v2/reports/${id}/preview`, { body });

describe('preview', () => {
  test('computes the first 3 rows by default, with the values a run computes, and creates no report', async () => {
    const { pipelineId } = await pipeline(5);
    const before = (await t.api('/api/public/v2/evaluations')).body;
    const res = await preview(pipelineId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows.map((r: any) => r.row_index)).toEqual([0, 1, 2]);
    expect(res.body.columns.map((c: any) => c.name)).toEqual(['q', 'expected', 'answer', 'says it', 'keys']);
    expect(res.body.rows[1].cells.q).toEqual({ value: 'word1', status: 'PASSED' });
    expect(res.body.rows[1].cells.answer).toMatchObject({ value: 'echo: Say word1', status: 'PASSED' });
    expect(res.body.rows[0].cells['says it']).toMatchObject({ value: false, status: 'FAILED' });
    expect(res.body.rows[1].cells['says it']).toMatchObject({ value: true, status: 'PASSED' });
    expect(res.body.rows[0].cells.keys).toMatchObject({ value: 'q,expected,answer,says it', status: 'PASSED' });
    expect(res.body.timed_out).toBe(false);
    expect(res.body.input_tokens).toBeGreaterThan(0);
    expect(res.body.dataset).toMatchObject({ version_number: 1, row_count: 5 });
    expect(mock.calls.length).toBe(3);
    expect((await t.api('/api/public/v2/evaluations')).body).toEqual(before);

    const run = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'full' } });
    await waitForRun(t, run.body.report_id);
    const stored = (await allRows(t, run.body.report_id)).rows.slice(0, 3);
    for (const [i, row] of stored.entries()) {
      for (const name of ['answer', 'says it', 'keys']) expect(res.body.rows[i].cells[name].value).toEqual(row.cells[name].value);
    }
  });

  test('its LLM calls are logged like a run’s, tagged with the pipeline and `preview`', async () => {
    const { pipelineId } = await pipeline(2);
    await preview(pipelineId, { rows: 2 });
    const logged = await t.api(`/api/public/v2/requests?tags=preview&tags=report:${pipelineId}`);
    expect(logged.status).toBe(200);
    expect(logged.body.items).toHaveLength(2);
    expect(logged.body.items[0].metadata).toMatchObject({ report_id: String(pipelineId), column: 'answer', purpose: 'preview' });
  });

  test('rows: 1 and 20 are accepted, 0 and 21 are 422 naming rows; a smaller dataset gives all its rows', async () => {
    const { pipelineId } = await pipeline(25, [{ column_type: 'COUNT', name: 'len', configuration: { source: 'q', type: 'chars' } }]);
    expect((await preview(pipelineId, { rows: 1 })).body.rows).toHaveLength(1);
    expect((await preview(pipelineId, { rows: 20 })).body.rows).toHaveLength(20);
    for (const rows of [0, 21, 2.5]) {
      const bad = await preview(pipelineId, { rows });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'rows']);
    }
    const small = await pipeline(2, [{ column_type: 'COUNT', name: 'len', configuration: { source: 'q', type: 'chars' } }]);
    expect((await preview(small.pipelineId, { rows: 20 })).body.rows).toHaveLength(2);
  });

  test('404 for an unknown pipeline or dataset version, 403 for a run, 422 when the version lacks a column it reads', async () => {
    const { groupId, pipelineId } = await pipeline(2, [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'expected', value: 'word' } }]);
    expect((await preview(999_999)).status).toBe(404);
    expect((await preview(pipelineId, { dataset_version_number: 7 })).status).toBe(404);
    const run = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'r' } });
    await waitForRun(t, run.body.report_id);
    expect((await preview(run.body.report_id)).status).toBe(403);

    const v2 = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: groupId, file_name: 'rows.json', file_content_base64: Buffer.from(JSON.stringify([{ q: 'only q' }])).toString('base64') },
    });
    expect(v2.status).toBe(201);
    const lacking = await preview(pipelineId);
    expect(lacking.status).toBe(422);
    expect(lacking.body.detail[0].loc).toEqual(['body', 'dataset_version_number']);
    expect(lacking.body.message).toContain("'expected'");
    const old = await preview(pipelineId, { dataset_version_number: 1 });
    expect(old.status).toBe(200);
    expect(old.body.rows[0].cells.ok).toMatchObject({ value: false, status: 'FAILED' });
  });

  test('the draft (-1) can be previewed', async () => {
    const { groupId, pipelineId } = await pipeline(2, [{ column_type: 'COUNT', name: 'len', configuration: { source: 'q', type: 'chars' } }]);
    const versions = await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`);
    const draft = versions.body.datasets.find((v: any) => v.version_number === -1);
    const put = await t.api(`/api/public/v2/datasets/${draft.id}/rows`, { method: 'PUT', body: { rows: [{ q: 'abc', expected: 'x' }] } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const res = await preview(pipelineId, { dataset_version_number: -1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dataset.version_number).toBe(-1);
    expect(res.body.rows).toEqual([{ row_index: 0, cells: { q: { value: 'abc', status: 'PASSED' }, expected: { value: 'x', status: 'PASSED' }, len: expect.objectContaining({ value: 3, status: 'PASSED' }) } }]);
  });

  test('a failed cell is data: its dependants are SKIPPED, the preview still answers 200', async () => {
    const { pipelineId } = await pipeline(1, [
      { column_type: 'CODE_EXECUTION', name: 'boom', configuration: { language: 'JAVASCRIPT', code: 'throw new Error("bad row")' } },
      { column_type: 'COUNT', name: 'len', configuration: { source: 'boom', type: 'chars' } },
    ]);
    const res = await preview(pipelineId);
    expect(res.status).toBe(200);
    expect(res.body.rows[0].cells.boom).toMatchObject({ status: 'ERROR', error: expect.stringContaining('bad row') });
    expect(res.body.rows[0].cells.len).toMatchObject({ status: 'SKIPPED' });
  });
});

describe('preview time limit', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test', PROMPTLEDGER_PREVIEW_TIMEOUT_MS: '400' } });
  });
  afterAll(async () => {
    await slow.close();
  });

  test('cells still computing at the limit are ERROR cells saying so, later ones SKIPPED, and it answers at once', async () => {
    const { groupId } = await publishDataset(slow, rowsOf(2));
    const p = await slow.api('/reports', { body: { dataset_group_id: groupId, columns } });
    mock.setLatency(5_000);
    const started = Date.now();
    const res = await slow.api(`/api/public/v2/reports/${p.body.report_id}/preview`, { body: { rows: 2 } });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(200);
    expect(res.body.timed_out).toBe(true);
    expect(res.body.rows[0].cells.answer).toMatchObject({ status: 'ERROR', error: "The preview's time limit (0 s) was reached." });
    expect(res.body.rows[0].cells['says it']).toMatchObject({ status: 'SKIPPED' });
  });
});

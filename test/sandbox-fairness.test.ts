import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_CELL_OUTPUT_BYTES } from '../src-server/eval/cell-output';
import { startServer, type TestServer } from './support/server';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

describe('code cells share the sandbox fairly, stop at once, and store a bounded value', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.close();
  });

  async function startRun(rows: number, code: string, timeoutMs: number, language = 'JAVASCRIPT') {
    const { groupId } = await publishDataset(t, Array.from({ length: rows }, (_, i) => ({ i })));
    const pipeline = await t.api('/reports', {
      body: { dataset_group_id: groupId, columns: [{ column_type: 'CODE_EXECUTION', name: 'c', configuration: { code, language, timeout_ms: timeoutMs } }] },
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'fair' } });
    expect(run.status).toBe(201);
    return run.body.report_id as number;
  }

  async function untilRunning(reportId: number, cells: number) {
    for (;;) {
      const report = await t.api(`/reports/${reportId}`);
      if (report.body.stats.status_counts.RUNNING >= cells) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const cancel = async (reportId: number) => {
    const started = performance.now();
    const res = await t.api(`/api/public/v2/reports/${reportId}/cancel`, { method: 'POST' });
    return { res, ms: performance.now() - started };
  };

  test("ten slow cells of one run do not hold up another run's cell", async () => {
    // Each cell keeps a process busy for 4 s: behind them in one queue, the quick cell would wait
    // about 20 s (ten cells, two at a time).
    const slow = await startRun(10, 'const t = Date.now(); while (Date.now() - t < 4000) {} return 1', 20_000);
    await untilRunning(slow, 1);
    const started = performance.now();
    const quick = await startRun(1, 'return data.i + 41', 20_000);
    const done = await waitForRun(t, quick, 30_000);
    const waited = performance.now() - started;
    expect(done.stats.status_counts).toMatchObject({ COMPLETED: 1 });
    expect((await allRows(t, quick)).rows[0].cells.c).toMatchObject({ value: 41, status: 'PASSED' });
    expect((await t.api(`/reports/${slow}`)).body.status).toBe('RUNNING');
    expect(waited).toBeLessThan(10_000);
    await cancel(slow);
  });

  test('cancel takes effect within a second while every sandbox process is busy', async () => {
    // Two runs of endless cells: each holds the two processes a run may have, and the four
    // processes a server keeps (on two cores) are all busy.
    const first = await startRun(10, 'while (true) {}', 30_000);
    const second = await startRun(10, 'while (true) {}', 30_000);
    await untilRunning(first, 2);
    await untilRunning(second, 2);
    const { res, ms } = await cancel(first);
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(1_000);
    expect((await t.api(`/reports/${first}`)).body.status).toBe('CANCELED');
    const again = await cancel(second);
    expect(again.ms).toBeLessThan(1_000);
    expect((await t.api(`/reports/${second}`)).body.status).toBe('CANCELED');
    // The sandbox is usable afterwards.
    const next = await startRun(1, 'return 7', 20_000);
    await waitForRun(t, next, 30_000);
    expect((await allRows(t, next)).rows[0].cells.c).toMatchObject({ value: 7 });
  });

  test('a cell value is stored up to 1 MiB of JSON; past it, its start with a marker, and the rows page still answers', async () => {
    const marker = /\n… \[cut: the output was [\d.]+ MiB; only its first 1 MiB is kept\]$/;
    const reportId = await startRun(
      4,
      [
        // At the bound exactly (the JSON text of a string is the string and two quotes), one byte past it,
        // a huge string, and a huge object.
        `if (data.i === 0) return 'x'.repeat(${MAX_CELL_OUTPUT_BYTES - 2});`,
        `if (data.i === 1) return 'x'.repeat(${MAX_CELL_OUTPUT_BYTES - 1});`,
        "if (data.i === 2) return 'y'.repeat(8 * 1024 * 1024);",
        'return Array.from({ length: 100000 }, (_, i) => ({ i, s: "é" }));',
      ].join('\n'),
      20_000,
    );
    await waitForRun(t, reportId, 60_000);
    const res = await t.api(`/api/public/v2/reports/${reportId}/rows?per_page=100`);
    expect(res.status).toBe(200);
    const values = (res.body.rows as Array<{ cells: { c: { value: unknown; status: string } } }>).map((r) => r.cells.c);
    expect(values.map((c) => c.status)).toEqual(['PASSED', 'PASSED', 'PASSED', 'PASSED']);
    expect(values[0].value).toBe('x'.repeat(MAX_CELL_OUTPUT_BYTES - 2));
    for (const cell of values.slice(1)) {
      const text = cell.value as string;
      expect(text).toMatch(marker);
      expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThanOrEqual(MAX_CELL_OUTPUT_BYTES);
      expect(Buffer.byteLength(JSON.stringify(text))).toBeGreaterThan(MAX_CELL_OUTPUT_BYTES - 1024);
    }
    expect(values[1].value).toMatch(/^x+\n…/);
    expect(values[2].value).toMatch(/^y+\n… \[cut: the output was 8\.0 MiB/);
    expect(values[3].value).toMatch(/^\[\{"i":0,"s":"é"\},\{"i":1/);
  });

  test('a Python value past the bound is cut the same way', async () => {
    const reportId = await startRun(1, 'return "z" * (3 * 1024 * 1024)', 20_000, 'PYTHON');
    await waitForRun(t, reportId, 120_000);
    const { rows } = await allRows(t, reportId);
    expect(rows[0].cells.c.value, JSON.stringify(rows[0].cells.c).slice(0, 300)).toMatch(/^z+\n… \[cut: the output was 3\.0 MiB; only its first 1 MiB is kept\]$/);
  }, 180_000);
});

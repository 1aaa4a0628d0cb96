import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../src-server/eval/sandbox/sandbox';
import { startServer, type TestServer } from './support/server';
import { logBody } from './support/factories';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

describe('a looping cell on a running server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.close();
  });

  test('health and request logging answer while the cell loops, then the cell ends as a time-limit ERROR', async () => {
    const { groupId } = await publishDataset(t, [{ q: 'x' }]);
    const pipeline = await t.api('/reports', {
      body: { dataset_group_id: groupId, columns: [{ column_type: 'CODE_EXECUTION', name: 'loop', configuration: { code: 'while (true) {}', timeout_ms: 1500 } }] },
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'loop' } });
    expect(run.status).toBe(201);
    const reportId = run.body.report_id as number;

    // Until the cell is computing, nothing proves anything.
    for (;;) {
      const report = await t.api(`/reports/${reportId}`);
      expect(report.body.status).toBe('RUNNING');
      if (report.body.stats.status_counts.RUNNING === 1) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const [health, logged] = await Promise.all([t.api('/health'), t.api('/log-request', { body: logBody() })]);
    expect(health.status).toBe(200);
    expect(logged.status).toBe(201);
    // Both answered while the same cell is still computing: the loop never held the event loop.
    const during = await t.api(`/reports/${reportId}`);
    expect(during.body.status).toBe('RUNNING');
    expect(during.body.stats.status_counts.RUNNING).toBe(1);
    const detail = await t.api(`/api/public/v2/requests/${logged.body.id}`);
    expect(detail.status).toBe(200);

    const done = await waitForRun(t, reportId);
    expect(done.stats.status_counts).toMatchObject({ RUNNING: 0, FAILED: 1 });
    const { rows } = await allRows(t, reportId);
    expect(JSON.stringify(rows[0])).toContain('Time limit exceeded: the code ran longer than 1500 ms.');
  });
});

describe('the sandbox pool', () => {
  test('a thread that stays silent past its grace is replaced; its cell gets the time-limit error, the next cell runs', async () => {
    // No grace: the host ends the thread at the cell's deadline, racing QuickJS's own interrupt.
    const sandbox = createSandbox({ timeoutMs: 300, memoryBytes: 16 * 1024 * 1024 }, { threads: 1, graceMs: 0 });
    try {
      const looping = sandbox.runJavaScript('while (true) {}', {});
      const next = sandbox.runJavaScript('return data.n * 2', { n: 21 });
      await expect(looping).rejects.toThrow('Time limit exceeded: the code ran longer than 300 ms.');
      await expect(next).resolves.toBe(42);
    } finally {
      await sandbox.close();
    }
  });

  test('cells queue behind a busy thread and are answered in turn', async () => {
    const sandbox = createSandbox({ timeoutMs: 300, memoryBytes: 16 * 1024 * 1024 }, { threads: 1 });
    try {
      const results = await Promise.allSettled([
        sandbox.runJavaScript('while (true) {}', {}),
        sandbox.runJavaScript('return data', { a: [1, 2] }),
        sandbox.runJavaScript('throw new TypeError("bad")', {}),
        sandbox.runJavaScript('return 1', {}, { timeoutMs: 1000 }),
      ]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
        'Time limit exceeded: the code ran longer than 300 ms.',
        { a: [1, 2] },
        'TypeError: bad',
        1,
      ]);
    } finally {
      await sandbox.close();
    }
  });

  test('close answers running and queued cells with an error and refuses new ones', async () => {
    const sandbox = createSandbox({ timeoutMs: 10_000, memoryBytes: 16 * 1024 * 1024 }, { threads: 1 });
    const running = expect(sandbox.runJavaScript('while (true) {}', {})).rejects.toThrow('The code sandbox is closed.');
    const queued = expect(sandbox.runJavaScript('return 1', {})).rejects.toThrow('The code sandbox is closed.');
    await sandbox.close();
    await running;
    await queued;
    await expect(sandbox.runJavaScript('return 1', {})).rejects.toThrow('The code sandbox is closed.');
  });
});

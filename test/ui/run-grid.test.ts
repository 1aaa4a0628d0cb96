import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset } from '../support/evaluations';
import { startUi, type UiSession } from '../support/ui';

/**
 * The run page's grid while a run runs: progress events carry counts, not cells, so the grid
 * fetches its page again — one fetch at a time, never aborted for the next event, and not at all
 * while its page has nothing left to compute. An ENDPOINT column answers rows 0–99 (page 1) at
 * once and holds rows 100–119 until the test lets them go one by one, so "page 1 is done, the run
 * is not" is a state the test waits for exactly, and the held rows' cells finish over a stretch of
 * progress events (the grid before this fetched page 1 up to every 700 ms through them).
 */
describe('Evaluation run grid', () => {
  let ui: UiSession;
  let hook: Server;
  let hookUrl: string;
  const held: Array<() => void> = [];

  beforeAll(async () => {
    // Even rows answer "even" (the CONTAINS column passes), odd ones "odd" (it fails).
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = Number((JSON.parse(Buffer.concat(chunks).toString()) as { n: number }).n);
        const answer = () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(n % 2 === 0 ? 'even' : 'odd'));
        };
        if (n >= 100) held.push(answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    ui = await startUi();
  });
  afterAll(async () => {
    for (const answer of held.splice(0)) answer();
    await ui?.close();
    hook.closeAllConnections();
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  });

  const expected = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => [`${from + i + 1}`, 'PASSED', (from + i) % 2 === 0 ? 'PASSED' : 'FAILED']);

  it('fetches its page one at a time, not for events once the page is done, and ends with every cell final', async () => {
    const { page, t } = ui;
    const { groupId } = await publishDataset(t, Array.from({ length: 120 }, (_, n) => ({ n })));
    const pipeline = await t.api('/reports', {
      body: {
        dataset_group_id: groupId, name: 'Held grid',
        columns: [
          { column_type: 'ENDPOINT', name: 'hook', configuration: { url: hookUrl } },
          { column_type: 'CONTAINS', name: 'is even', configuration: { source: 'hook', value: 'even' } },
        ],
      },
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'held' } });
    const runId = run.body.report_id as number;

    // Every fetch of this run's rows, and how many were in flight at once.
    const rowsPath = `/api/public/v2/reports/${runId}/rows`;
    const isRows = (url: string) => new URL(url).pathname === rowsPath;
    let fetches = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    let failed = 0;
    page.on('request', (r) => {
      if (!isRows(r.url())) return;
      fetches++;
      mostInFlight = Math.max(mostInFlight, ++inFlight);
    });
    page.on('requestfinished', (r) => void (isRows(r.url()) && inFlight--));
    page.on('requestfailed', (r) => {
      if (!isRows(r.url())) return;
      inFlight--;
      failed++;
    });

    const report = page.getByRole('table', { name: 'Report' });
    // Each shown row's number and its two evaluated cells' statuses.
    const shown = () =>
      report.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector('td')!.textContent!, ...[...tr.querySelectorAll('td[data-status]')].map((td) => td.getAttribute('data-status'))]),
      );

    await ui.open(`/evaluations?pipeline=${pipeline.body.report_id}&run=${runId}`);
    // Page 1 computed while rows 100–119 are held: the run is still running.
    await expect.poll(shown, { timeout: 30_000 }).toEqual(expected(0, 100));
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    await expect.poll(() => inFlight).toBe(0);
    const beforeRelease = fetches;

    // The held rows finish one at a time, each one committed before the next goes: their cells'
    // progress events give page 1 nothing to fetch, and the run's end fetches it once.
    const finishedOnPage2 = async () => {
      const rows = (await t.api(`${rowsPath}?page=2&per_page=100`)).body.rows as Array<{ cells: Record<string, { status: string }> }>;
      return rows.filter((r) => r.cells['is even'].status !== 'QUEUED' && r.cells['is even'].status !== 'RUNNING').length;
    };
    for (let released = 1; released <= 20; released++) {
      await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
      held.shift()!();
      await expect.poll(finishedOnPage2, { timeout: 30_000 }).toBe(released);
    }
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    await expect.poll(() => fetches).toBe(beforeRelease + 1);
    await expect.poll(() => inFlight).toBe(0);
    expect(await shown()).toEqual(expected(0, 100));
    expect(fetches).toBe(beforeRelease + 1);
    expect(mostInFlight).toBe(1);
    expect(failed).toBe(0);

    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(shown).toEqual(expected(100, 120));
    expect(await report.locator('td[data-status="QUEUED"], td[data-status="RUNNING"]').count()).toBe(0);
  });
});

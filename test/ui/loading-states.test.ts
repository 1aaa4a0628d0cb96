import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset, waitForRun } from '../support/evaluations';
import { startUi, type UiSession } from '../support/ui';

/**
 * Text that depends on an answer not yet there shows a loading state, never a stand-in: the
 * compare view's "Regressions only" and a repeated run's manifest; a failed answer says so where
 * the rows would be. The server's answer is held or failed (Playwright's route, matching only the
 * request meant) until the test has read what shows meanwhile, so nothing here depends on how
 * fast the machine is.
 */
describe('Loading states in the evaluations views', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });

  /** A pipeline run twice over four rows whose check flips between the runs: rows 1 and 3 regress, 2 and 4 improve. */
  async function flippedRuns() {
    const { t } = ui;
    const { groupId } = await publishDataset(t, [{ label: 'yes' }, { label: 'no' }, { label: 'yes' }, { label: 'no' }]);
    const pipeline = await t.api('/reports', {
      body: { dataset_group_id: groupId, name: 'Flips', columns: [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'label', value: 'yes' } }] },
    });
    expect(pipeline.status).toBe(201);
    const pipelineId = pipeline.body.report_id as number;
    const run = async (body: Record<string, unknown>) => {
      const started = await t.api(`/reports/${pipelineId}/run`, { body });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      expect((await waitForRun(t, started.body.report_id)).status).toBe('COMPLETED');
      return started.body.report_id as number;
    };
    const first = await run({ name: 'yes passes' });
    const column = (await t.api(`/reports/${pipelineId}`)).body.report_columns.find((c: { name: string }) => c.name === 'ok');
    expect((await t.api(`/report-columns/${column.id}`, { method: 'PATCH', body: { configuration: { source: 'label', value: 'no' } } })).status).toBe(200);
    const second = await run({ name: 'no passes' });
    return { pipelineId, first, second, run };
  }
  afterAll(() => ui?.close());

  /** Holds the browser's requests that `matches` picks until `release()`; `arrived` resolves at the first. */
  async function hold(matches: (url: URL) => boolean) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const handled: Array<Promise<void>> = [];
    const handler = (route: Route) => {
      arrived();
      const done = released.then(() => route.continue());
      handled.push(done);
      return done;
    };
    const matcher = (url: URL) => matches(url);
    await ui.page.route(matcher, handler);
    return {
      arrived: first,
      release: async () => {
        release();
        // Every held request is sent on before the route goes, or the page would see it twice.
        await Promise.all(handled);
        await ui.page.unroute(matcher, handler);
      },
    };
  }

  /** Two runs of four rows, two of them worse in the second, compared, every row shown. */
  async function openComparison() {
    const { pipelineId, first, second } = await flippedRuns();
    await ui.open(`/evaluations?pipeline=${pipelineId}&compare=${first},${second}`);
    const shown = ui.page.getByTestId('rows-shown');
    await shown.getByText('4 of 4 rows', { exact: true }).waitFor();
    const table = ui.page.getByRole('table', { name: 'Comparison' });
    return { shown, table, rows: table.locator('tbody tr[data-delta]') };
  }

  it('“Regressions only” shows a loading state, not all rows, until the regressed rows are there', async () => {
    const { page } = ui;
    const { shown, rows } = await openComparison();
    expect(await rows.count()).toBe(4);

    // Every text the count passes through from the tick on, in order.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const node = document.querySelector('[data-testid="rows-shown"]')!;
      new MutationObserver(() => {
        if (seen[seen.length - 1] !== node.textContent) seen.push(node.textContent ?? '');
      }).observe(node, { subtree: true, childList: true, characterData: true });
    });
    const held = await hold((url) => url.pathname.includes('/compare/') && url.searchParams.get('verdict') === 'regressed');
    await page.getByRole('checkbox', { name: 'Regressions only' }).check();
    await held.arrived;
    // The regressed rows are not here yet: the count and the table say so, and no row is shown.
    expect(await shown.textContent()).toBe('loading…');
    expect(await rows.count()).toBe(0);
    await page.getByRole('table', { name: 'Comparison' }).getByText('Loading the regressed rows…', { exact: true }).waitFor();
    await held.release();

    await shown.getByText('2 of 4 rows', { exact: true }).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual(['loading…', '2 of 4 rows']);
    expect(ui.problems).toEqual([]);
  });

  it('a repeated run’s manifest names the run it repeats, with a loading state until its name is there', async () => {
    const { page } = ui;
    const { pipelineId, second, run } = await flippedRuns();
    const again = await run({ name: 'again', reproduce_report_id: second });

    const held = await hold((url) => url.pathname.endsWith(`/reports/${second}`));
    await ui.open(`/evaluations?pipeline=${pipelineId}&run=${again}`);
    await held.arrived;
    const repeats = page.getByRole('region', { name: 'Manifest' }).getByTestId('manifest-repeats');
    await repeats.waitFor();
    expect(await repeats.textContent()).toBe('loading…');
    await held.release();

    await repeats.getByText(/^“no passes” exactly/).waitFor();
    expect(ui.problems).toEqual([]);
  });

  it('“Regressions only” whose regressed rows fail to load says so in the table, and recovers by unticking or “Try again”', async () => {
    const { page } = ui;
    const { shown, table, rows } = await openComparison();
    const problemsBefore = ui.problems.length;

    // Only the regressed-rows request fails: the compare view's other calls are already answered.
    let failed = 0;
    const matcher = (url: URL) => url.pathname.includes('/compare/') && url.searchParams.get('verdict') === 'regressed';
    const handler = (route: Route) => {
      failed++;
      return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ message: 'The server is busy.' }) });
    };
    await page.route(matcher, handler);
    const checkbox = page.getByRole('checkbox', { name: 'Regressions only' });
    await checkbox.check();
    await table.getByText('Could not load the regressed rows.').waitFor();
    expect(failed).toBe(1);
    expect(await shown.textContent()).toBe('not loaded');
    expect(await rows.count()).toBe(0);
    expect(await page.getByRole('alert').textContent()).toBe('The server is busy.');
    await ui.screenshot('evaluations-compare-regressed-failed');

    // Unticked, every row is back and the failure is gone.
    await checkbox.uncheck();
    await shown.getByText('4 of 4 rows', { exact: true }).waitFor();
    expect(await rows.count()).toBe(4);
    expect(await page.getByRole('alert').count()).toBe(0);

    // Ticked again it fails again; once the server answers, “Try again” shows the regressed rows.
    await checkbox.check();
    await table.getByText('Could not load the regressed rows.').waitFor();
    expect(failed).toBe(2);
    await page.unroute(matcher, handler);
    await table.getByRole('button', { name: 'Try again' }).click();
    await shown.getByText('2 of 4 rows', { exact: true }).waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delta')))).toEqual(['regressed', 'regressed']);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(failed).toBe(2);

    // The browser logs each 503 it was given as a console error (waited for: the log is an event of
    // its own); nothing else went wrong.
    await expect.poll(() => ui.problems.length - problemsBefore).toBe(2);
    for (const p of ui.problems.splice(problemsBefore)) expect(p).toMatch(/status of 503/);
  });
});

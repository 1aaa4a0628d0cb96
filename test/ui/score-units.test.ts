import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset, waitForRun } from '../support/evaluations';
import { startUi, type UiSession } from '../support/ui';

/**
 * A run's score says what it is wherever it is shown: a boolean column's score is the % of rows
 * passing ("50.0%"), a numeric column's the mean of its values on their own scale ("0.69 mean"),
 * on the evaluations list, the pipeline's run list, the run page and the compare view.
 */
// expect.poll gives up after 1 s by default; a page's first load on a busy machine can take longer.
const WAIT = { timeout: 20_000 };

describe('Evaluation scores with their units', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  /** A pipeline of one scored column, run twice; answers its id and the two runs' ids. */
  const pipelineOf = async (name: string, rows: Array<Record<string, unknown>>, column: Record<string, unknown>) => {
    const { t } = ui;
    const { groupId } = await publishDataset(t, rows);
    const pipeline = await t.api('/reports', { body: { dataset_group_id: groupId, name, columns: [{ ...column, is_part_of_score: true }] } });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const runs: number[] = [];
    for (const run of ['first', 'second']) {
      const started = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: `${name} ${run}` } });
      expect(started.status).toBe(201);
      expect((await waitForRun(t, started.body.report_id)).status).toBe('COMPLETED');
      runs.push(started.body.report_id);
    }
    return { id: pipeline.body.report_id as number, runs };
  };

  it('shows a boolean score as % passing and a numeric one as a mean, on every page', async () => {
    const { page } = ui;
    // 2 of 4 labels contain "yes": 50 %.
    const passRate = await pipelineOf('Pass rate', [{ label: 'yes' }, { label: 'no' }, { label: 'yes' }, { label: 'no' }], {
      column_type: 'CONTAINS', name: 'ok', configuration: { source: 'label', value: 'yes' },
    });
    // (0.9 + 0.6 + 0.75 + 0.5) / 4 = 0.6875, stored rounded to 0.69.
    const similarity = await pipelineOf('Similarity', [{ s: '0.9' }, { s: '0.6' }, { s: '0.75' }, { s: '0.5' }], {
      column_type: 'PARSE_VALUE', name: 'sim', configuration: { source: 's', type: 'number' },
    });

    await ui.open('/evaluations');
    const item = (name: string) => page.getByRole('option', { name: new RegExp(`^${name}`) });
    await expect.poll(() => item('Pass rate').textContent(), WAIT).toMatch(/last score 50\.0%$/);
    await expect.poll(() => item('Similarity').textContent(), WAIT).toMatch(/last score 0\.69 mean$/);

    await ui.open(`/evaluations?pipeline=${passRate.id}`);
    await expect.poll(() => page.getByTestId('run-list-score').allTextContents(), WAIT).toEqual(['50.0%', '50.0%']);
    await ui.open(`/evaluations?pipeline=${similarity.id}`);
    await expect.poll(() => page.getByTestId('run-list-score').allTextContents(), WAIT).toEqual(['0.69 mean', '0.69 mean']);

    await ui.open(`/evaluations?pipeline=${passRate.id}&run=${passRate.runs[0]}`);
    await expect.poll(() => page.getByTestId('run-score').textContent(), WAIT).toBe('50.0%');
    await page.getByText('Score from ok (50.0% passing)', { exact: true }).waitFor();
    await ui.open(`/evaluations?pipeline=${similarity.id}&run=${similarity.runs[0]}`);
    await expect.poll(() => page.getByTestId('run-score').textContent(), WAIT).toBe('0.69 mean');
    await page.getByText('Score from sim (0.69 mean)', { exact: true }).waitFor();

    await ui.open(`/evaluations?pipeline=${passRate.id}&compare=${passRate.runs.join(',')}`);
    await expect.poll(() => page.getByTestId('baseline-score').textContent(), WAIT).toBe('50.0%');
    expect(await page.getByTestId('candidate-score').textContent()).toBe('50.0%');
    await page.getByRole('region', { name: 'Candidate Pass rate second' }).getByText('(0.0 pts)', { exact: true }).waitFor();
    await ui.open(`/evaluations?pipeline=${similarity.id}&compare=${similarity.runs.join(',')}`);
    await expect.poll(() => page.getByTestId('baseline-score').textContent(), WAIT).toBe('0.69 mean');
    expect(await page.getByTestId('candidate-score').textContent()).toBe('0.69 mean');
    // The column table: the exact mean 0.6875 on each side.
    expect(await page.locator('tr[data-column="sim"] td.num').allTextContents()).toEqual(['0.69 mean', '0.69 mean', '0.00', '0', '0', '4']);
    expect(ui.problems).toEqual([]);
  });
});

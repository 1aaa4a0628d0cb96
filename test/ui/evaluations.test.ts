import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '../support/mock-llm';
import { startUi, type UiSession } from '../support/ui';

describe('Evaluations page', () => {
  let ui: UiSession;
  let mock: MockLlm;
  beforeAll(async () => {
    // Slow enough, with two calls at a time, that the run is watched while it progresses.
    mock = await startMockLlm({ latencyMs: 250 });
    ui = await startUi({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' }, evalConcurrency: 2 });
  });
  afterAll(async () => {
    await ui?.close();
    await mock?.close();
  });

  it('builds a pipeline from the column forms, runs it live, shows pass/fail cells and compares two runs', async () => {
    const { page, t } = ui;
    const questions = ['I want a refund', 'Where is my order?', 'Refund my shoes please', 'Do you ship abroad?', 'refund status?', 'Opening hours?'];
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'tickets' } })).body.dataset_group.id;
    const csv = `question\n${questions.join('\n')}\n`;
    expect((await t.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: group, file_name: 't.csv', file_content_base64: Buffer.from(csv).toString('base64') } })).status).toBe(201);
    expect(
      (await t.api('/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: 'triage' },
          prompt_version: {
            prompt_template: { type: 'chat', input_variables: ['question'], messages: [{ role: 'user', content: [{ type: 'text', text: '{question}' }] }] },
            metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: {} } },
          },
        },
      })).status,
    ).toBe(201);

    await ui.open('/evaluations');
    await page.getByRole('heading', { name: 'No evaluation pipelines yet' }).waitFor();
    await page.getByRole('button', { name: 'Create a pipeline' }).click();
    await page.getByLabel('Pipeline name').fill('Refund triage');
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'tickets · v1 · 6 rows' });
    await page.getByRole('button', { name: 'Create pipeline' }).click();
    await page.getByRole('heading', { name: 'Refund triage' }).waitFor();
    const pipelineId = (await t.api('/api/public/v2/evaluations')).body.items[0].id as number;

    // A prompt column, configured through its guided form: the variable maps itself by name.
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption('PROMPT_TEMPLATE');
    await dialog.getByLabel('Column name').fill('reply');
    await dialog.getByLabel('Prompt', { exact: true }).selectOption('triage');
    await expect.poll(() => dialog.getByLabel('Variable question').inputValue()).toBe('question');
    await dialog.getByRole('button', { name: 'Add column' }).click();
    const columns = page.getByRole('list', { name: 'Pipeline columns' });
    await columns.getByText('reply', { exact: true }).waitFor();

    // A check on it: the column picker offers only columns to the left.
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption('CONTAINS');
    expect(await dialog.getByLabel('Look in', { exact: true }).locator('option').allTextContents()).toEqual(['Choose a column…', 'question', 'reply']);
    await dialog.getByLabel('Column name').fill('mentions refund');
    await dialog.getByLabel('Look in', { exact: true }).selectOption('reply');
    await dialog.getByLabel('Look for text').fill('refund');
    await dialog.getByRole('button', { name: 'Add column' }).click();
    await columns.getByText('mentions refund').waitFor();

    // A bad configuration is refused with the field named, and nothing is added.
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption('REGEX');
    await dialog.getByLabel('Column name').fill('broken');
    await dialog.getByLabel('Text to test').selectOption('reply');
    await dialog.getByLabel('Pattern').fill('([unclosed');
    await dialog.getByRole('button', { name: 'Add column' }).click();
    await dialog.getByRole('alert').getByText(/regex_pattern/).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const stored = (await t.api(`/reports/${pipelineId}`)).body.report_columns.map((c: { name: string }) => c.name);
    expect(stored).toEqual(['question', 'reply', 'mentions refund']);
    await ui.screenshot('evaluations-pipeline');

    // Run it and watch it finish.
    await page.getByRole('button', { name: '▶ Run…' }).click();
    await dialog.getByLabel('Run name').fill('baseline');
    await dialog.getByRole('button', { name: '▶ Start run' }).click();
    await page.getByRole('heading', { name: 'baseline' }).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Run progress' });
    await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
    await page.getByTestId('run-status').getByText('completed').waitFor();
    await page.getByTestId('run-score').getByText('50.0%', { exact: true }).waitFor();
    const report = page.getByRole('table', { name: 'Report' });
    await expect.poll(() => report.locator('td[data-status="PASSED"]').count()).toBe(6 + 3);
    expect(await report.locator('td[data-status="FAILED"]').count()).toBe(3);
    await page.waitForTimeout(400); // let the bar's 0.3 s width transition finish for the picture
    await ui.screenshot('evaluations-run');
    await report.locator('td[data-status="FAILED"]').first().click();
    await dialog.getByText('FAILED').waitFor();
    await dialog.getByLabel('Cell value').getByText('false').waitFor();
    await page.keyboard.press('Escape');

    // Change the check, run again, compare the two runs row by row.
    await page.getByRole('button', { name: '← Pipeline' }).click();
    await page.getByRole('button', { name: 'Edit mentions refund' }).click();
    await dialog.getByLabel('Look for text').fill('?');
    await dialog.getByRole('button', { name: 'Save column' }).click();
    await columns.getByRole('listitem', { name: 'Column mentions refund' }).getByText('Contains “?” in reply').waitFor();
    await page.getByRole('button', { name: '▶ Run…' }).click();
    await dialog.getByLabel('Run name').fill('question marks');
    await dialog.getByRole('button', { name: '▶ Start run' }).click();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: '← Pipeline' }).click();
    await page.getByLabel('Pick baseline to compare').check();
    await page.getByLabel('Pick question marks to compare').check();
    await page.getByRole('button', { name: 'Compare selected (2/4)' }).click();
    const comparison = page.getByRole('table', { name: 'Comparison' });
    await comparison.waitFor();
    // Old check passes rows 1, 3, 5 (refund); the new one passes rows 2, 4, 5, 6 (a question mark).
    expect(await page.getByTestId('improved').textContent()).toBe('3');
    expect(await page.getByTestId('regressed').textContent()).toBe('2');
    expect(await comparison.locator('tr[data-delta="same"]').count()).toBe(1);
    await ui.screenshot('evaluations-compare');
    // The one console error is the refused REGEX column above.
    expect(ui.problems).toEqual([expect.stringContaining('422')]);
  });

  it('takes a person\'s verdict in a HUMAN cell, reorders columns, and moves through pipelines by keyboard', async () => {
    const { page, t } = ui;
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'reviews' } })).body.dataset_group.id;
    const csv = 'answer\nGood answer\nBad answer\n';
    await t.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: group, file_name: 'r.csv', file_content_base64: Buffer.from(csv).toString('base64') } });
    const pipeline = await t.api('/reports', { body: { dataset_group_id: group, name: 'Human review', columns: [{ column_type: 'HUMAN', name: 'approved', configuration: { data_type: 'boolean' } }] } });
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'review 1' } });
    await ui.open(`/evaluations?pipeline=${pipeline.body.report_id}&run=${run.body.report_id}`);
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    const report = page.getByRole('table', { name: 'Report' });
    await report.getByText('✎ enter a value').first().click();
    await page.getByLabel('Human value').selectOption('true');
    await page.getByRole('button', { name: 'Save value' }).click();
    await expect.poll(() => report.locator('td[data-status="PASSED"]').count()).toBe(1);
    await report.getByText('✎ enter a value').click();
    await page.getByLabel('Human value').selectOption('false');
    await page.getByRole('button', { name: 'Save value' }).click();
    await expect.poll(() => report.locator('td[data-status="FAILED"]').count()).toBe(1);
    await page.getByTestId('run-score').getByText('50.0%', { exact: true }).waitFor();
    expect((await t.api(`/reports/${run.body.report_id}/score`)).body.score.overall_score).toBe(50);

    // Reordering: a column moves left past one it does not read.
    const counts = await t.api('/reports', {
      body: {
        dataset_group_id: group, name: 'Lengths',
        columns: [
          { column_type: 'COUNT', name: 'chars', configuration: { source: 'answer', type: 'chars' } },
          { column_type: 'COUNT', name: 'words', configuration: { source: 'answer', type: 'words' } },
        ],
      },
    });
    await ui.open(`/evaluations?pipeline=${counts.body.report_id}`);
    await page.getByRole('button', { name: 'Move words left' }).click();
    await expect
      .poll(async () => (await t.api(`/reports/${counts.body.report_id}`)).body.report_columns.sort((a: { position: number }, b: { position: number }) => a.position - b.position).map((c: { name: string }) => c.name))
      .toEqual(['answer', 'words', 'chars']);
    await expect.poll(() => page.getByRole('button', { name: 'Move words left' }).isDisabled()).toBe(true);

    // The pipeline list works from the keyboard: arrows move, Enter opens.
    await page.getByRole('option', { name: /Lengths/ }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Refund triage' }).waitFor();
  });
});

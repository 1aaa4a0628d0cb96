import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '../support/mock-llm';
import { startUi, type UiSession } from '../support/ui';

const csv = (rows: string[][]) => Buffer.from(rows.map((r) => r.join(',')).join('\n') + '\n').toString('base64');

describe('Guided pipeline builder', () => {
  let ui: UiSession;
  let mock: MockLlm;
  beforeAll(async () => {
    mock = await startMockLlm();
    ui = await startUi();
  });
  afterAll(async () => {
    await ui?.close();
    await mock?.close();
  });

  it('builds a pipeline with the guided forms only, reads it as sentences, reorders, previews and flags a missing input', async () => {
    const { page, t } = ui;
    expect((await t.api('/api/public/v2/providers', { body: { name: 'local-mock', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-mock' } })).status).toBe(201);
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'support' } })).body.dataset_group.id;
    const v1 = [['question', 'expected'], ['refund please', 'refund'], ['where is my parcel', 'tracking'], ['refund now', 'refund'], ['hello', 'hi']];
    expect((await t.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: group, file_name: 'v1.csv', file_content_base64: csv(v1) } })).status).toBe(201);
    const published = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'support-reply' },
        prompt_version: { prompt_template: { type: 'chat', input_variables: ['question'], messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply to: {question}' }] }] } },
        release_labels: ['production'],
      },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const pipeline = (await t.api('/reports', { body: { dataset_group_id: group, name: 'Support replies' } })).body.report_id as number;
    await ui.open(`/evaluations?pipeline=${pipeline}`);
    await page.getByRole('heading', { name: 'Support replies' }).waitFor();
    const dialog = page.getByRole('dialog');

    // A Prompt Template from the registry: the label's text shown, its variable mapped by name.
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption({ label: 'Prompt Template' });
    await dialog.getByText('Example:').waitFor();
    await dialog.getByLabel('Column name').fill('answer');
    await dialog.getByLabel('Prompt', { exact: true }).selectOption('support-reply');
    await dialog.getByLabel('Label or version').selectOption({ label: '@ production (now v1)' });
    await dialog.getByLabel('Prompt text').getByText('Reply to: {question}').waitFor();
    await expect.poll(() => dialog.getByLabel('Variable question').inputValue()).toBe('question');
    await dialog.getByLabel("Use the prompt's model").uncheck();
    // A built-in provider suggests the chat models its price table lists (no embedding models).
    await dialog.getByLabel('Provider').selectOption('openai');
    await dialog.getByText(/^\d+ models from the price table/).waitFor();
    const suggested = await dialog.locator('datalist option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    expect(suggested).toContain('gpt-4o-mini');
    expect(suggested.filter((m) => m?.includes('embedding'))).toEqual([]);
    await dialog.getByLabel('Provider').selectOption('local-mock');
    await dialog.getByText('2 models from local-mock').waitFor();
    await dialog.getByLabel('Model name').fill('mock-chat');
    await dialog.getByLabel('Temperature').fill('0');
    await ui.screenshot('builder-prompt-form');
    await dialog.getByRole('button', { name: 'Add column' }).click();
    await page.getByRole('listitem', { name: 'Column answer' }).waitFor();

    // A Contains check reading two columns, picked from those to its left.
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption({ label: 'Contains' });
    expect(await dialog.getByLabel('Column name').inputValue()).toBe('contains');
    expect(await dialog.getByLabel('Look in', { exact: true }).locator('option').allTextContents()).toEqual(['Choose a column…', 'question', 'expected', 'answer']);
    await dialog.getByLabel('Look in', { exact: true }).selectOption('answer');
    await dialog.getByLabel('Look for: from a column').check();
    await dialog.getByLabel('Look for column').selectOption('expected');
    await dialog.getByLabel('Part of the score').check();
    await dialog.getByRole('button', { name: 'Add column' }).click();

    // And a Count, to reorder.
    await page.getByRole('button', { name: '+ Add column' }).click();
    await dialog.getByLabel('Column type').selectOption({ label: 'Count' });
    await dialog.getByLabel('Count', { exact: true }).selectOption('words');
    await dialog.getByLabel('In', { exact: true }).selectOption('question');
    await dialog.getByRole('button', { name: 'Add column' }).click();

    const list = page.getByRole('list', { name: 'Pipeline columns' });
    await list.getByRole('listitem', { name: 'Column length' }).waitFor();
    expect(await list.getByRole('listitem', { name: 'Column answer' }).textContent()).toContain('Prompt support-reply @ production → mock-chat via local-mock · {question} ← question');
    expect(await list.getByRole('listitem', { name: 'Column contains' }).textContent()).toContain('Contains expected in answer');
    expect(await list.getByRole('listitem', { name: 'Column length' }).textContent()).toContain('Count words in question');

    const order = async () => (await t.api(`/reports/${pipeline}`)).body.report_columns.sort((a: { position: number }, b: { position: number }) => a.position - b.position).map((c: { name: string }) => c.name);
    // Drag `length` onto the first column; then move it back one step by keyboard.
    await list.getByRole('listitem', { name: 'Column length' }).dragTo(list.getByRole('listitem', { name: 'Column answer' }));
    await expect.poll(order).toEqual(['question', 'expected', 'length', 'answer', 'contains']);
    await list.getByRole('listitem').first().getByText('length').waitFor();
    await page.getByRole('button', { name: 'Move length right' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(order).toEqual(['question', 'expected', 'answer', 'length', 'contains']);
    const stored = (await t.api(`/reports/${pipeline}`)).body.report_columns.find((c: { name: string }) => c.name === 'answer');
    expect(stored.configuration).toEqual({
      template: { name: 'support-reply', label: 'production' },
      prompt_template_variable_mappings: { question: 'question' },
      engine: { provider: 'local-mock', model: 'mock-chat', parameters: { temperature: 0 } },
    });

    // Preview: three rows computed against the mock, no run created.
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('button', { name: '◎ Preview' }).click();
    const table = preview.getByRole('table', { name: 'Preview rows' });
    await table.getByText('echo: Reply to: refund please').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await table.locator('td[data-status="PASSED"]').count()).toBe(3 + 3 + 2);
    expect(await table.locator('td[data-status="FAILED"]').count()).toBe(1);
    expect((await t.api('/api/public/v2/evaluations')).body.items[0].runs).toEqual([]);
    await ui.screenshot('builder-pipeline');

    // The dataset's next version drops `expected`: the check that reads it is flagged before a run.
    const v2 = [['question'], ['refund please']];
    expect((await t.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: group, file_name: 'v2.csv', file_content_base64: csv(v2) } })).status).toBe(201);
    await page.reload();
    await page.getByRole('status', { name: 'Problem in contains' }).getByText('Reads “expected”, which dataset v2 lacks').waitFor();
    await page.getByText('⚠ 1 column with a missing input').waitFor();
    await ui.screenshot('builder-missing-input');
    let warned = '';
    page.once('dialog', (d) => {
      warned = d.message();
      void d.dismiss();
    });
    await page.getByRole('button', { name: '▶ Run…' }).click();
    await expect.poll(() => warned).toContain("read a column the dataset's latest version lacks");
    expect((await t.api('/api/public/v2/evaluations')).body.items[0].runs).toEqual([]);
    expect(ui.problems).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Datasets page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  const versions = async (groupId: number) =>
    (await ui.t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets as { id: number; version_number: number; row_count: number }[];

  it('imports files (picked and dropped), edits the draft, saves versions, and builds one from selected requests', async () => {
    const { page, t } = ui;
    await ui.open('/datasets');
    await page.getByRole('heading', { name: 'No datasets yet' }).waitFor();
    await page.getByRole('button', { name: 'Create a dataset' }).click();
    await page.getByLabel('Dataset name').fill('support-cases');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'support-cases' }).waitFor();
    const groupId = (await t.api('/api/public/v2/dataset-groups')).body.items[0].id as number;

    // Pick a CSV file.
    await page.getByTestId('file-input').setInputFiles({
      name: 'cases.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('question,expected\nWhere is my parcel?,tracking\nCan I return shoes?,returns\nDo you ship to Norway?,shipping\n'),
    });
    await page.getByRole('status').getByText('Imported cases.csv as version 1.').waitFor();
    const grid = page.getByRole('table', { name: 'Dataset rows' });
    await grid.getByText('Can I return shoes?').waitFor();
    expect(await grid.locator('tbody tr').count()).toBe(3);

    // Drop a JSONL file on the drop zone, as a user dragging from the file manager does.
    await page.getByRole('button', { name: 'Import a file' }).evaluate((zone) => {
      const data = new DataTransfer();
      data.items.add(new File(['{"question":"Is it waterproof?","expected":"product"}\n{"question":"Where is my refund?","expected":"returns"}\n'], 'more.jsonl'));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.getByRole('status').getByText('Imported more.jsonl as version 2.').waitFor();
    await grid.getByText('Is it waterproof?').waitFor();

    // A broken file is refused with the line, and publishes nothing.
    await page.getByTestId('file-input').setInputFiles({ name: 'bad.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"question":"ok"}\n{not json\n') });
    await page.getByRole('alert').getByText(/line 2/i).waitFor();
    expect((await versions(groupId)).map((v) => v.version_number).sort()).toEqual([1, 2]);

    // Copy v2 into the draft, edit a cell, add a row, publish v3.
    await page.getByRole('button', { name: 'Edit a copy in the draft' }).click();
    const draft = page.getByRole('table', { name: 'Draft rows' });
    await draft.getByLabel('Row 1 question').waitFor();
    await draft.getByLabel('Row 1 expected').fill('product-care');
    await page.getByRole('button', { name: '+ Row' }).click();
    await draft.getByLabel('Row 3 question').fill('Do you have gift cards?');
    await draft.getByLabel('Row 3 expected').fill('payments');
    await ui.screenshot('datasets-draft');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await grid.getByText('Do you have gift cards?').waitFor();
    const v3 = (await versions(groupId)).find((v) => v.version_number === 3)!;
    const rows = (await t.api(`/api/public/v2/datasets/${v3.id}/rows`)).body.rows.map((r: { data: unknown }) => r.data);
    expect(rows).toEqual([
      { question: 'Is it waterproof?', expected: 'product-care' },
      { question: 'Where is my refund?', expected: 'returns' },
      { question: 'Do you have gift cards?', expected: 'payments' },
    ]);

    // From the request log: select two requests and add them as the next version.
    const logged = [];
    for (const text of ['first logged', 'second logged', 'third logged']) logged.push((await t.api('/log-request', { body: logBody(chat(text)) })).body.id as number);
    await page.getByRole('link', { name: /Requests/ }).click();
    await page.getByLabel(`Select request ${logged[0]}`).check();
    await page.getByLabel(`Select request ${logged[2]}`).check();
    await page.getByRole('button', { name: 'Add to dataset…' }).click();
    await page.getByLabel('Target dataset').selectOption({ label: 'support-cases' });
    await page.getByRole('dialog').getByRole('button', { name: 'Add to dataset' }).click();
    await page.getByRole('heading', { name: 'support-cases' }).waitFor();
    await expect.poll(async () => (await versions(groupId)).length).toBe(4);
    const v4 = (await versions(groupId)).find((v) => v.version_number === 4)!;
    expect(v4.row_count).toBe(2);
    await page.getByRole('combobox', { name: 'Version' }).getByText(/v4/).waitFor({ state: 'attached' });
    expect(await page.getByRole('combobox', { name: 'Version' }).inputValue()).toBe(String(v4.id));
    await ui.screenshot('datasets');
    // The one console error is the refused file above.
    expect(ui.problems).toEqual([expect.stringContaining('422')]);
  });
});

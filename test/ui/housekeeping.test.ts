import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset } from '../support/evaluations';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

/** Export and delete on the requests page; archive and rename elsewhere. */
describe('Housekeeping in the UI', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
    // The Blob path, whose download Playwright can catch; where the browser offers a save
    // picker the export streams to the file the user picks instead.
    await ui.page.addInitScript(() => Object.defineProperty(window, 'showSaveFilePicker', { value: undefined }));
  });
  afterAll(() => ui?.close());

  const log = async (overrides: Record<string, unknown>) => {
    const res = await ui.t.api('/log-request', { body: logBody(overrides) });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };

  it('exports the current filter as JSONL and as CSV for Excel (with a byte order mark)', async () => {
    for (let i = 0; i < 3; i++) await log({ ...chat(`exported ${i} — Grüße`), tags: ['export-me'] });
    await log({ ...chat('not exported'), tags: ['elsewhere'] });
    const { page } = ui;
    await ui.open('/requests?tag=export-me');
    await page.getByTestId('request-count').getByText('3 matching').waitFor();

    const download = async (choice: string) => {
      await page.getByRole('button', { name: 'Export ▾' }).click();
      if (choice === 'JSONL') await ui.screenshot('requests-export-menu');
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: choice, exact: true }).click()]);
      return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
    };
    const jsonl = await download('JSONL');
    expect(jsonl.name).toMatch(/^requests-.*\.jsonl$/);
    const records = jsonl.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { tags: string[] });
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.tags.includes('export-me'))).toBe(true);

    const excel = await download('CSV for Excel');
    expect(excel.name).toMatch(/\.csv$/);
    expect([...excel.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = excel.bytes.subarray(3).toString('utf8');
    expect(text.startsWith('id,request_start_time,')).toBe(true);
    expect(text).toContain('Grüße');
    expect(text.trim().split('\r\n')).toHaveLength(4);
  });

  it('deletes the selected requests after a confirmation naming the count', async () => {
    const ids = [await log({ tags: ['pick'] }), await log({ tags: ['pick'] }), await log({ tags: ['pick'] })];
    const { page } = ui;
    await ui.open('/requests?tag=pick');
    await page.getByTestId('request-count').getByText('3 matching').waitFor();
    await page.getByLabel(`Select request ${ids[0]}`).check();
    await page.getByLabel(`Select request ${ids[1]}`).check();
    await page.getByRole('button', { name: 'Delete selected…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 2 requests? This cannot be undone.' });
    await dialog.waitFor();
    await ui.screenshot('requests-delete-confirm');
    // Cancel deletes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await ui.t.api(`/api/public/v2/requests/${ids[0]}`)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete selected…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete 2 requests' }).click();
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    expect((await ui.t.api(`/api/public/v2/requests/${ids[0]}`)).status).toBe(404);
    expect((await ui.t.api(`/api/public/v2/requests/${ids[1]}`)).status).toBe(404);
    expect((await ui.t.api(`/api/public/v2/requests/${ids[2]}`)).status).toBe(200);
  });

  it('deletes every request matching the filter, with "1 request" in the singular', async () => {
    const doomed = await log({ tags: ['sweep'] });
    const kept = await log({ tags: ['keep-me'] });
    const { page } = ui;
    await ui.open('/requests?tag=sweep');
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    await page.getByRole('button', { name: 'Delete all matching…' }).click();
    await page.getByRole('dialog', { name: 'Delete 1 request? This cannot be undone.' }).getByRole('button', { name: 'Delete 1 request' }).click();
    await page.getByRole('status').getByText('Deleted 1 request.').waitFor();
    expect((await ui.t.api(`/api/public/v2/requests/${doomed}`)).status).toBe(404);
    expect((await ui.t.api(`/api/public/v2/requests/${kept}`)).status).toBe(200);
  });

  it('renames and archives a dataset, each through its dialog', async () => {
    const { groupId } = await publishDataset(ui.t, [{ q: 'a' }], { name: 'Support tickets' });
    const { page } = ui;
    await ui.open(`/datasets?group=${groupId}`);
    const pane = page.getByLabel('Dataset Support tickets');
    await pane.getByRole('button', { name: 'Rename…' }).click();
    await page.getByLabel('New name').fill('Support tickets (2026)');
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Support tickets (2026)' }).waitFor();

    await page.getByLabel('Dataset Support tickets (2026)').getByRole('button', { name: 'Archive…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive dataset "Support tickets (2026)"?' });
    await ui.screenshot('dataset-archive-confirm');
    await dialog.getByRole('button', { name: 'Archive dataset' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await ui.t.api(`/api/public/v2/dataset-groups/${groupId}`)).status).toBe(404);
    expect(ui.problems).toEqual([]);
  });
});

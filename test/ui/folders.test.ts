import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiSession } from '../support/ui';

/** Prompts page → Folders…: the folder tree, a new folder, a nested one, and a rename. */
describe('Folders in the UI', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('creates a folder, one inside it, and renames the first; the API sees the same tree', async () => {
    const existing = await ui.t.api('/api/public/v2/folders', { body: { name: 'From the SDK' } });
    expect(existing.status).toBe(201);
    const { page } = ui;
    await ui.open('/prompts');
    await page.getByRole('button', { name: 'Folders…' }).click();
    const folders = page.getByRole('dialog', { name: 'Folders' });
    await folders.getByText('1 folder', { exact: true }).waitFor();
    await folders.getByText('From the SDK').waitFor();

    await folders.getByRole('button', { name: '+ New folder' }).click();
    await page.getByLabel('New name').fill('Support');
    await page.getByRole('dialog', { name: 'New folder' }).getByRole('button', { name: 'Create' }).click();
    await folders.getByText('Support').waitFor();

    await folders.getByRole('button', { name: 'New folder inside Support' }).click();
    await page.getByLabel('New name').fill('Refunds');
    await page.getByRole('dialog', { name: 'New folder' }).getByRole('button', { name: 'Create' }).click();
    await folders.getByText('Refunds').waitFor();

    await folders.getByRole('button', { name: 'Rename folder Support' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename folder "Support"' });
    await rename.getByLabel('New name').fill('Customer support');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await folders.getByText('Customer support').waitFor();
    await folders.getByText('3 folders', { exact: true }).waitFor();
    await ui.screenshot('prompts-folders');

    const tree = (await ui.t.api('/api/public/v2/folders')).body.folders as Array<{ id: number; name: string; parent_id: number | null }>;
    const support = tree.find((f) => f.name === 'Customer support')!;
    expect(support.parent_id).toBeNull();
    expect(tree.find((f) => f.name === 'Refunds')!.parent_id).toBe(support.id);
    expect(tree.map((f) => f.name).sort()).toEqual(['Customer support', 'From the SDK', 'Refunds']);
    expect(ui.problems).toEqual([]);
  });
});

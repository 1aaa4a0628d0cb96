import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset } from '../support/evaluations';
import { startUi, type UiSession } from '../support/ui';

describe('Small things', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  /** Answers the next confirm() and hands back its text. */
  const nextDialog = (accept: boolean) =>
    new Promise<string>((resolve) =>
      ui.page.once('dialog', (d) => {
        resolve(d.message());
        void (accept ? d.accept() : d.dismiss());
      }),
    );

  it('Enter commits a draft cell and moves down; Shift+Enter types a newline; empty rows are flagged before publishing', async () => {
    const { page, t } = ui;
    const { groupId } = await publishDataset(t, [{ question: 'Where is my parcel?', expected: 'tracking' }, { question: 'Can I return shoes?', expected: 'returns' }], { name: 'cells' });
    await ui.open(`/datasets?group=${groupId}`);
    await page.getByRole('button', { name: 'Edit a copy in the draft' }).click();
    const draft = page.getByRole('table', { name: 'Draft rows' });
    const first = draft.getByLabel('Row 1 expected');
    await first.waitFor();

    await first.fill('parcel-tracking');
    await first.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Row 2 expected');
    expect(await first.inputValue()).toBe('parcel-tracking');

    const second = draft.getByLabel('Row 2 question');
    await second.fill('Can I return');
    await second.press('Shift+Enter');
    await second.pressSequentially('worn shoes?');
    expect(await second.inputValue()).toBe('Can I return\nworn shoes?');
    // Enter on the last row leaves the cell instead of adding a line.
    await second.press('Enter');
    expect(await second.inputValue()).toBe('Can I return\nworn shoes?');
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('TEXTAREA');

    // An added row nobody filled in is flagged, and publishing it asks first.
    await page.getByRole('button', { name: '+ Row' }).click();
    await page.getByTestId('empty-rows').getByText('Row 3 is empty: fill or delete it before publishing.').waitFor();
    await draft.getByLabel('Row 3 is empty').waitFor();
    await ui.screenshot('datasets-empty-row');
    const versionsBefore = (await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets.length;
    const asked = nextDialog(false);
    await page.getByRole('button', { name: 'Save as new version' }).click();
    expect(await asked).toContain('1 row without any value (3)');
    expect((await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets.length).toBe(versionsBefore);

    // Filling it clears the flag; the published values hold the newline and no stray "\n".
    await draft.getByLabel('Row 3 question').fill('Do you ship to Norway?');
    await page.getByTestId('empty-rows').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await expect
      .poll(async () => (await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets.length)
      .toBe(versionsBefore + 1);
    const latest = (await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets.find(
      (v: { version_number: number }) => v.version_number === versionsBefore + 1,
    );
    const rows = (await t.api(`/api/public/v2/datasets/${latest.id}/rows`)).body.rows.map((r: { data: unknown }) => r.data);
    expect(rows).toEqual([
      { question: 'Where is my parcel?', expected: 'parcel-tracking' },
      { question: 'Can I return\nworn shoes?', expected: 'returns' },
      { question: 'Do you ship to Norway?', expected: null },
    ]);
  });

  it('signs in when a #key= link is pasted into a tab that is already open', async () => {
    const { page, t } = ui;
    await ui.open('/requests');
    await page.getByRole('heading', { name: 'Requests', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    // Same document: only the hash changes, as when a link to the open page is pasted.
    await page.evaluate((key) => (location.hash = `key=${key}`), t.key);
    await page.getByRole('heading', { name: 'Requests', exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    // A wrong key pasted the same way says why on the sign-in form.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.evaluate(() => (location.hash = 'key=pl_not_a_key'));
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('API key').isVisible()).toBe(true);
    await page.evaluate((key) => (location.hash = `key=${key}`), t.key);
    await page.getByRole('heading', { name: 'Requests', exact: true }).waitFor();
  });

  it('shows a not-found page for an unknown address, and / still opens the requests', async () => {
    const { page } = ui;
    await ui.open('/requests');
    await page.evaluate(() => {
      history.pushState(null, '', '/no-such-page?x=1');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('/no-such-page');
    expect(await page.title()).toBe('Not found · promptledger');
    await ui.screenshot('not-found');
    await page.getByRole('button', { name: 'Go to Requests' }).click();
    await page.waitForURL(/\/requests$/);

    await page.goto(`${ui.t.url}/prompts/nothing/here/either`);
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    await page.goto(`${ui.t.url}/settingz`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.goto(`${ui.t.url}/`);
    await page.waitForURL(/\/requests$/);
  });

  it('asks before moving a label, and leaves it where it was when the user cancels', async () => {
    const { page, t } = ui;
    const template = { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi {name}' }] }], input_variables: ['name'] };
    const v1 = await t.api('/rest/prompt-templates', { body: { prompt_template: { prompt_name: 'greeter' }, prompt_version: { prompt_template: template }, release_labels: ['production'] } });
    expect(v1.status).toBe(201);
    const v2 = await t.api('/rest/prompt-templates', { body: { prompt_template: { prompt_name: 'greeter' }, prompt_version: { prompt_template: template, commit_message: 'second' } } });
    expect(v2.status).toBe(201);

    await ui.open(`/prompts?template=${v1.body.id}&version=2`);
    await page.getByLabel('Label name').fill('production');
    const move = page.getByRole('button', { name: 'Move label here (from v1)' });
    let asked = nextDialog(false);
    await move.click();
    expect(await asked).toBe('Move “production” from v1 to v2? Apps that fetch this prompt by “production” will get v2 right away.');
    expect((await t.api('/prompt-templates/greeter?label=production')).body.version).toBe(1);

    asked = nextDialog(true);
    await move.click();
    await asked;
    await page.getByRole('button', { name: 'Label is on this version' }).waitFor();
    expect((await t.api('/prompt-templates/greeter?label=production')).body.version).toBe(2);
    // A new label is added without a question.
    await page.getByLabel('Label name').fill('staging');
    await page.getByRole('button', { name: 'Add label' }).click();
    await expect.poll(async () => (await t.api('/prompt-templates/greeter?label=staging')).body.version).toBe(2);
    expect(ui.problems.filter((p) => !/401|404/.test(p))).toEqual([]);
  });
});

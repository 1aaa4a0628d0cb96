import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

let ui: UiSession;
beforeAll(async () => {
  ui = await startUi();
});
afterAll(() => ui?.close());

async function logged(body: Record<string, unknown>): Promise<number> {
  const res = await ui.t.api('/log-request', { body: logBody(body) });
  expect(res.status).toBe(201);
  return res.body.id;
}
const minute = (m: number) => ({
  request_start_time: new Date(Date.UTC(2026, 10, 2, 9, m)).toISOString(),
  request_end_time: new Date(Date.UTC(2026, 10, 2, 9, m, 2)).toISOString(),
});

describe('Review queue', () => {
  it('goes through the unscored requests of a tag with score keys, skip and a note, showing progress', async () => {
    const { page, t } = ui;
    const ids = [
      await logged({ ...chat('Capital of France?', 'Paris.'), ...minute(1), tags: ['prod'] }),
      await logged({ ...chat('Capital of Spain?', 'Madrid.'), ...minute(2), tags: ['prod'] }),
      await logged({ ...chat('Capital of Italy?', 'Rome.'), ...minute(3), tags: ['prod'], score: 90 }),
      await logged({ ...chat('Capital of Peru?', 'Lima.'), ...minute(4), tags: ['prod'] }),
      await logged({ ...chat('Capital of Chad?', 'N’Djamena.'), ...minute(5), tags: ['dev'] }),
    ];
    const [france, spain, , peru] = ids;
    await ui.open('/review?tag=prod&name=quality');
    const progress = page.getByTestId('review-progress');
    await expect.poll(() => progress.textContent()).toBe('1 of 3');
    // Newest first: Peru, Spain, France (Italy is already scored, Chad is not prod).
    await page.getByText('Capital of Peru?').waitFor();
    // Each filter says what it is, with its value filled in.
    expect(await page.getByRole('form', { name: 'Queue filters' }).locator('label').evaluateAll((labels) => labels.map((l) => (l as HTMLElement).innerText.split('\n')[0]))).toEqual(['Tags', 'Model', 'Show', 'Score name']);
    await ui.screenshot('review-queue');

    await page.keyboard.press('4');
    await expect.poll(() => progress.textContent()).toBe('2 of 3');
    expect((await t.api(`/api/public/v2/requests/${peru}`)).body.scores).toEqual({ quality: 80 });

    await page.getByText('Capital of Spain?').waitFor();
    await page.keyboard.press('s');
    await expect.poll(() => progress.textContent()).toBe('3 of 3');

    await page.getByText('Capital of France?').waitFor();
    await page.keyboard.press('e');
    await page.keyboard.type('Right, but terse.');
    await page.keyboard.press('Escape');
    await page.keyboard.press('5');
    await page.getByRole('heading', { name: 'All 3 reviewed' }).waitFor();
    expect(await page.locator('.empty').textContent()).toContain('2 scored as “quality”, 1 skipped');
    expect((await t.api(`/api/public/v2/requests/${france}`)).body).toMatchObject({ scores: { quality: 100 }, note: 'Right, but terse.' });
    expect((await t.api(`/api/public/v2/requests/${spain}`)).body).toMatchObject({ scores: {}, scored: false });
    // The score keys scored; they did not jump to other pages (1–9 are page shortcuts elsewhere).
    expect(new URL(page.url()).pathname).toBe('/review');

    // A queue with nothing in it says why and what to do.
    await page.getByLabel('Queue tags').fill('nothing-has-this-tag');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Nothing to review' }).waitFor();
    expect(await page.locator('.empty p').first().textContent()).toBe('No request matches the queue’s filters: tag “nothing-has-this-tag”, not yet scored.');
    await page.getByRole('button', { name: 'Include scored requests' }).waitFor();
    expect(ui.problems).toEqual([]);
  });
});

describe('Reviewing from a request’s detail', () => {
  it('adds a named score and a note, shows them in the table and filters by them', async () => {
    const { page, t } = ui;
    const id = await logged({ ...chat('Summarise the memo', 'It says nothing.'), ...minute(20), tags: ['detail-review'] });
    const other = await logged({ ...chat('Another one', 'ok'), ...minute(21), tags: ['detail-review'] });
    await ui.open(`/requests?tag=detail-review&request=${id}`);
    const review = page.getByLabel('Review', { exact: true });
    await review.getByText('Not scored yet.').waitFor();
    await review.getByLabel('Score name').fill('helpful');
    await review.getByLabel('Score value').fill('70');
    await review.getByRole('button', { name: 'Set score' }).click();
    await review.getByText('helpful: 70').waitFor();
    await review.getByLabel('Note').fill('Misses the deadline in paragraph 2.');
    await review.getByRole('button', { name: 'Save note' }).click();
    await review.getByRole('status').waitFor();
    expect((await t.api(`/api/public/v2/requests/${id}`)).body).toMatchObject({ scores: { helpful: 70 }, note: 'Misses the deadline in paragraph 2.' });

    // A score out of range is refused before it is sent.
    await review.getByLabel('Score value').fill('101');
    await review.getByRole('button', { name: 'Set score' }).click();
    await review.getByRole('alert').waitFor();

    await page.getByLabel('Close detail').click();
    const row = page.locator(`[data-request-id="${id}"]`);
    await row.locator('[title="helpful: 70"]').getByText('70').waitFor();
    await row.getByLabel('Has a note').waitFor();
    // Poll for the exact rows: a count alone can match the previous filter's list before the new one lands.
    const shown = () => page.locator('[data-request-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request-id')));
    await page.getByLabel('Note', { exact: true }).selectOption('true');
    await expect.poll(shown).toEqual([String(id)]);
    await page.getByLabel('Note', { exact: true }).selectOption('');
    await page.getByLabel('Scored', { exact: true }).selectOption('false');
    await expect.poll(shown).toEqual([String(other)]);
    await ui.screenshot('review-in-table');
  });
});

describe('Settings → Prices', () => {
  it('adds a local model, changes a shipped price and puts it back', async () => {
    const { page, t } = ui;
    await ui.open('/settings');
    const prices = page.getByLabel('Prices', { exact: true });
    await prices.getByRole('cell', { name: 'gpt-4o-mini', exact: true }).waitFor();

    await prices.getByLabel('New price provider').fill('ollama');
    await prices.getByLabel('New price model').fill('llama3.1');
    await prices.getByLabel('New Output per million').fill('0.2');
    await prices.getByRole('button', { name: 'Add model' }).click();
    await prices.getByRole('cell', { name: 'llama3.1', exact: true }).waitFor();
    expect((await t.api('/api/public/v2/prices')).body.prices).toContainEqual({
      provider: 'ollama', model: 'llama3.1', input_per_mtok: 0, output_per_mtok: 0.2, cached_input_per_mtok: 0, reasoning_per_mtok: 0, cache_write_per_mtok: 0,
      source: 'user',
    });

    await prices.getByLabel('Filter prices').fill('openai/gpt-4o-mini');
    await prices.getByLabel('Edit openai/gpt-4o-mini').click();
    await prices.getByLabel('Input per million', { exact: true }).fill('0.3');
    await prices.getByRole('button', { name: 'Save' }).click();
    await prices.getByLabel('Delete openai/gpt-4o-mini').waitFor();
    const edited = (await t.api('/api/public/v2/prices')).body.prices.find((p: { model: string }) => p.model === 'gpt-4o-mini');
    expect(edited).toMatchObject({ input_per_mtok: 0.3, output_per_mtok: 0.6, source: 'user' });
    await ui.screenshot('settings-prices');

    await prices.getByLabel('Delete openai/gpt-4o-mini').click();
    await prices.getByText('is back to its list price').waitFor();
    const reset = (await t.api('/api/public/v2/prices')).body.prices.find((p: { model: string }) => p.model === 'gpt-4o-mini');
    expect(reset).toMatchObject({ input_per_mtok: 0.15, source: 'built-in' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Requests table: sorting, figures, tag chips, search hits', () => {
  let ui: UiSession;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    ui = await startUi();
    const seed: Array<[string, Record<string, unknown>]> = [
      ['cheap', { ...chat('Summarise the weekly report', 'Revenue grew 4% week over week.'), latency: 900, price: 0.000123, input_tokens: 120, output_tokens: 30, tags: ['prod', 'summaries'], score: 80 }],
      ['slow', { ...chat('Translate the contract into German', 'Der Vertrag …'), latency: 7400, price: 0.0421, input_tokens: 2200, output_tokens: 1900, tags: ['prod', 'legal', 'translation', 'long-context', 'eu'] }],
      ['unpriced', { ...chat('Classify this ticket', 'billing'), latency: 300, tags: ['triage'] }],
      ['free', { ...chat('Local model hello', 'Hello from llama'), latency: 1500, price: 0, input_tokens: 8, output_tokens: 4, tags: ['local'], score: 20 }],
    ];
    const start = Date.now() - 3 * 3600_000;
    for (const [i, [name, { latency, ...body }]] of seed.entries()) {
      const t0 = start + i * 60_000;
      const res = await ui.t.api('/log-request', {
        body: logBody({ ...body, request_start_time: new Date(t0).toISOString(), request_end_time: new Date(t0 + (latency as number)).toISOString() }),
      });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
  });
  afterAll(() => ui?.close());

  const rowIds = () =>
    ui.page.locator('.vt-row[data-request-id]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-request-id'))));

  it('sorts by a column header on the server, flips on a second click, and keeps the order in the URL', async () => {
    const { page } = ui;
    await ui.open('/requests');
    await page.getByTestId('request-count').getByText('4 logged').waitFor();
    expect(await rowIds()).toEqual([ids.free, ids.unpriced, ids.slow, ids.cheap]);

    await page.getByRole('button', { name: 'Latency' }).click();
    await expect.poll(rowIds).toEqual([ids.slow, ids.free, ids.cheap, ids.unpriced]);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('latency');
    expect(await page.getByRole('columnheader', { name: 'Latency' }).getAttribute('aria-sort')).toBe('descending');

    await page.getByRole('button', { name: 'Latency' }).click();
    await expect.poll(rowIds).toEqual([ids.unpriced, ids.cheap, ids.free, ids.slow]);
    expect(new URL(page.url()).searchParams.get('order')).toBe('asc');

    await page.getByRole('button', { name: 'Cost' }).click();
    // Equal prices (the unknown one is stored as 0) go by id, newest first.
    await expect.poll(rowIds).toEqual([ids.slow, ids.cheap, ids.free, ids.unpriced]);
    await page.getByRole('button', { name: 'Score' }).click();
    // Unscored requests come last in either direction.
    await expect.poll(rowIds).toEqual([ids.cheap, ids.free, ids.unpriced, ids.slow]);
    await page.getByRole('button', { name: 'Tokens' }).click();
    await expect.poll(rowIds).toEqual([ids.slow, ids.cheap, ids.free, ids.unpriced]);

    await page.reload();
    await expect.poll(rowIds).toEqual([ids.slow, ids.cheap, ids.free, ids.unpriced]);
    await page.getByRole('button', { name: 'Time' }).click();
    await expect.poll(rowIds).toEqual([ids.free, ids.unpriced, ids.slow, ids.cheap]);
    expect(new URL(page.url()).search).toBe('');
  });

  it('shows "—" for tokens and price that were never given, and small prices with their digits', async () => {
    const { page } = ui;
    await ui.open('/requests');
    await page.getByTestId('request-count').getByText('4 logged').waitFor();
    const cells = async (id: number) => page.locator(`.vt-row[data-request-id="${id}"] [role=gridcell]`).allTextContents();
    // checkbox, time, status, model, input, tokens, cost, latency, score, tags
    const unpriced = await cells(ids.unpriced);
    expect(unpriced[5]).toBe('—');
    expect(unpriced[6]).toBe('—');
    expect(unpriced[8]).toBe('—');
    const free = await cells(ids.free);
    expect(free[5]).toBe('12');
    expect(free[6]).toBe('$0');
    expect((await cells(ids.cheap))[6]).toBe('$0.000123');
    expect((await cells(ids.slow))[6]).toBe('$0.0421');
    // Time with seconds; the relative form on hover.
    const time = page.locator(`.vt-row[data-request-id="${ids.cheap}"] [role=gridcell]`).nth(1);
    expect(await time.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await time.getAttribute('title')).toMatch(/^3 hours ago · /);

    await page.locator(`.vt-row[data-request-id="${ids.unpriced}"]`).click();
    const detail = page.getByRole('complementary', { name: `Request ${ids.unpriced}` });
    expect(await detail.locator('dd').nth(3).textContent()).toBe('— not reported');
    expect(await detail.locator('dd').nth(4).textContent()).toBe('— not reported');
    await ui.screenshot('requests-table-detail');
  });

  it('filters by a tag chip and keeps the filtered tag visible in every row', async () => {
    const { page } = ui;
    await ui.open('/requests');
    await page.getByTestId('request-count').getByText('4 logged').waitFor();
    const slowRow = page.locator(`.vt-row[data-request-id="${ids.slow}"]`);
    // Five tags, three shown; "eu" is hidden behind "+2".
    expect(await slowRow.locator('.tag-chip').allTextContents()).toEqual(['prod', 'legal', 'translation']);
    await slowRow.getByRole('button', { name: 'prod' }).click();
    await page.getByTestId('request-count').getByText('2 matching').waitFor();
    expect(new URL(page.url()).searchParams.getAll('tag')).toEqual(['prod']);
    expect(new URL(page.url()).searchParams.get('request')).toBeNull();

    await page.getByLabel('Tags').fill('eu');
    await page.getByLabel('Tags').press('Enter');
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    // The filtered tags come first, highlighted, even though "eu" is the slow row's fifth tag.
    expect(await slowRow.locator('.tag-chip').allTextContents()).toEqual(['prod', 'eu', 'legal']);
    expect(await slowRow.locator('.tag-chip[aria-pressed=true]').allTextContents()).toEqual(['prod', 'eu']);
    await ui.screenshot('requests-table-tag-filter');
  });

  it('marks the search terms in the detail', async () => {
    const { page } = ui;
    await ui.open('/requests?q=weekly%20revenue');
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    await page.locator(`.vt-row[data-request-id="${ids.cheap}"]`).click();
    const detail = page.getByRole('complementary', { name: `Request ${ids.cheap}` });
    await detail.locator('mark').first().waitFor();
    expect(await detail.locator('mark').allTextContents()).toEqual(['weekly', 'Revenue']);
    await ui.screenshot('requests-search-hits');
  });

  it('keeps every figure whole and on screen in a 1024 px window, with and without the detail', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      await ui.open('/requests?sort=cost&order=asc');
      await page.getByTestId('request-count').getByText('4 logged').waitFor();
      const cheap = page.locator(`.vt-row[data-request-id="${ids.cheap}"] [role=gridcell]`);
      // A clipped cell shows "$0.0001…"; one past the window's edge is out of reach (no scrollbar).
      const fits = (cell: typeof cheap) => cell.evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= window.innerWidth);
      expect(await cheap.nth(6).textContent()).toBe('$0.000123');
      expect(await fits(cheap.nth(6))).toBe(true);
      expect(await fits(cheap.nth(8))).toBe(true);
      await page.locator(`.vt-row[data-request-id="${ids.cheap}"]`).click();
      const detail = page.getByRole('complementary', { name: `Request ${ids.cheap}` });
      await detail.getByRole('button', { name: 'Close detail' }).waitFor();
      expect(await detail.getByRole('button', { name: 'Close detail' }).evaluate((el) => el.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
      const sorted = page.locator(`.vt-row[data-request-id="${ids.cheap}"] [role=gridcell]`).last();
      expect(await sorted.textContent()).toBe('$0.000123');
      expect(await fits(sorted)).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('lets a missing request be closed', async () => {
    const { page } = ui;
    await ui.open('/requests?request=999999');
    const detail = page.getByRole('complementary', { name: 'Request 999999' });
    await detail.getByRole('alert').waitFor();
    await detail.getByRole('button', { name: 'Close detail' }).click();
    await detail.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('request')).toBeNull();
    expect(ui.problems.filter((p) => !p.includes('404'))).toEqual([]);
  });
});

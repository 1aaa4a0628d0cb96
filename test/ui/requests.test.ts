import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Requests page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('tells a new user how to log their first request', async () => {
    await ui.open('/requests');
    await ui.page.getByRole('heading', { name: 'No requests logged yet' }).waitFor();
    expect(await ui.page.getByText('PROMPTLAYER_BASE_URL=').count()).toBeGreaterThan(0);
  });

  it('lists, scrolls, filters (in the URL), opens details and moves with the keyboard', async () => {
    const start = Date.parse('2026-11-01T10:00:00Z');
    const bodies = Array.from({ length: 260 }, (_, i) =>
      logBody({
        ...chat(`routine question ${i}`, `routine answer ${i}`),
        model: i % 2 ? 'gpt-4o-mini' : 'claude-3-5-haiku',
        provider: i % 2 ? 'openai' : 'anthropic',
        request_start_time: new Date(start + i * 60_000).toISOString(),
        request_end_time: new Date(start + i * 60_000 + 800).toISOString(),
        tags: i % 5 === 0 ? ['nightly'] : [],
        input_tokens: 10,
        output_tokens: 5,
      }),
    );
    for (let i = 0; i < bodies.length; i += 50) {
      await Promise.all(bodies.slice(i, i + 50).map((b) => ui.t.api('/log-request', { body: b }).then((r) => expect(r.status).toBe(201))));
    }
    const needle = await ui.t.api('/log-request', {
      body: logBody({
        ...chat('Extract the invoice total as JSON', '{"total": 42.5, "currency": "EUR"}'),
        model: 'gpt-4o',
        request_start_time: '2026-11-02T09:00:00Z',
        request_end_time: '2026-11-02T09:00:02.500Z',
        parameters: { temperature: 0, response_format: { type: 'json_schema', json_schema: { name: 'invoice', schema: { type: 'object', properties: { total: { type: 'number' } } } } } },
        tags: ['invoices'],
        metadata: { customer: 'acme' },
        score: 87,
        input_tokens: 120,
        output_tokens: 14,
        price: 0.0042,
      }),
    });
    expect(needle.status).toBe(201);

    const { page } = ui;
    await ui.open('/requests');
    await page.getByTestId('request-count').getByText('261 logged').waitFor();
    const rows = page.locator('.vt-row[data-request-id]');
    expect(Number(await rows.first().getAttribute('data-request-id'))).toBe(needle.body.id);
    // Only the window in view is in the DOM, not 100 loaded rows.
    expect(await rows.count()).toBeLessThan(60);

    // Scrolling to the end fetches the next keyset page.
    await page.locator('.vt-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.getByText('261 loaded').waitFor();

    // Full-text search; the filter lives in the URL.
    await page.getByLabel('Search').fill('invoice');
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('invoice');

    await rows.first().click();
    const detail = page.getByRole('complementary', { name: `Request ${needle.body.id}` });
    await detail.getByText('Extract the invoice total as JSON').waitFor();
    await detail.getByLabel('Structured output').getByText('invoice').first().waitFor();
    expect(await detail.getByLabel('Parsed output').textContent()).toContain('"total": 42.5');
    expect(await detail.getByText('customer').count()).toBe(1);
    expect(await detail.getByText('default: 87').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('request')).toBe(String(needle.body.id));

    // The URL alone restores the view (shareable, survives reloads).
    await page.reload();
    await expect.poll(() => page.getByLabel('Search').inputValue()).toBe('invoice');
    await detail.getByText('Extract the invoice total as JSON').waitFor();
    await ui.screenshot('requests');

    // Model and tag filters, then the keyboard.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Model').selectOption('claude-3-5-haiku');
    await page.getByTestId('request-count').getByText('130 matching').waitFor();
    await page.getByRole('textbox', { name: 'Tags' }).fill('nightly');
    await page.getByRole('textbox', { name: 'Tags' }).press('Enter');
    await page.getByTestId('request-count').getByText('26 matching').waitFor();
    expect(new URL(page.url()).searchParams.getAll('tag')).toEqual(['nightly']);

    const firstId = Number(await rows.first().getAttribute('data-request-id'));
    const secondId = Number(await rows.nth(1).getAttribute('data-request-id'));
    await page.locator('.vt-scroll').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: `Request ${firstId}` }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('complementary', { name: `Request ${secondId}` }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('complementary').count()).toBe(0);

    // A custom time range: only the request logged the next day is after this local midnight.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Time range').selectOption('custom');
    await page.getByLabel('From').fill('2026-11-02T00:00');
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toBe('2026-11-02T00:00');

    expect(ui.problems).toEqual([]);
  });
});

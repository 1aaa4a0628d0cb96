import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Dashboard page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('says what to do before anything is logged', async () => {
    await ui.open('/dashboard');
    await ui.page.getByRole('heading', { name: 'Nothing to chart yet' }).waitFor();
  });

  it('charts requests, cost, tokens and latency over time and by model, and drills into a model', async () => {
    const day = 86400_000;
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 9);
    const bodies = [];
    for (let d = 0; d < 6; d++) {
      for (let i = 0; i < 5 + d; i++) {
        const start = today - d * day + i * 1000;
        const slow = i % 2 === 0;
        bodies.push(
          logBody({
            model: slow ? 'gpt-4o' : 'claude-3-5-haiku',
            provider: slow ? 'openai' : 'anthropic',
            request_start_time: new Date(start).toISOString(),
            request_end_time: new Date(start + (slow ? 2000 : 400)).toISOString(),
            input_tokens: 100,
            output_tokens: 50,
            price: 0.01,
            status: i === 0 && d === 0 ? 'ERROR' : 'SUCCESS',
          }),
        );
      }
    }
    await Promise.all(bodies.map((b) => ui.t.api('/log-request', { body: b }).then((r) => expect(r.status).toBe(201))));
    const total = bodies.length; // 45

    const { page } = ui;
    await ui.open('/dashboard?range=30d');
    const totals = page.getByLabel('Totals');
    await totals.getByText(String(total), { exact: true }).waitFor();
    expect(await totals.textContent()).toContain('$0.45');
    expect(await totals.textContent()).toContain('6.8k'); // 45 × 150 tokens
    expect(await totals.textContent()).toMatch(/1 \(2\.2%\)/);
    for (const chart of ['Requests', 'Cost', 'Tokens', 'Latency']) {
      await page.getByRole('img', { name: `${chart} per day` }).waitFor();
    }
    // One bar per day per series: six days of traffic in a 30-day window.
    const requestBars = page.getByRole('img', { name: 'Requests per day' }).locator('rect[height]:not([height="0"])');
    expect(await requestBars.count()).toBeGreaterThanOrEqual(6);

    const byModel = page.getByLabel('By model');
    await byModel.getByText('gpt-4o', { exact: true }).waitFor();
    expect(await byModel.locator('tbody tr').count()).toBe(2);
    await ui.screenshot('dashboard');

    await page.getByRole('button', { name: 'Last 7d' }).click();
    expect(new URL(page.url()).searchParams.get('range')).toBe('7d');

    await byModel.getByText('claude-3-5-haiku').click();
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    expect(new URL(page.url()).searchParams.get('model')).toBe('claude-3-5-haiku');
    await page.getByTestId('request-count').getByText(/matching/).waitFor();
    expect(ui.problems).toEqual([]);
  });
});

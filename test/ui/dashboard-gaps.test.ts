import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Dashboard charts', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('leaves days without traffic as gaps, not 0 ms, and labels days readably', async () => {
    const day = 86400_000;
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 0, 30);
    // Traffic today, two days ago, and three-and-four days ago: gaps on days 1, 5 and 6 of a 7-day range.
    const trafficDays = [0, 2, 3, 4];
    for (const d of trafficDays) {
      for (let i = 0; i < 3; i++) {
        const start = today - d * day + i * 1000;
        const res = await ui.t.api('/log-request', {
          body: logBody({ request_start_time: new Date(start).toISOString(), request_end_time: new Date(start + 500 + d * 100).toISOString(), input_tokens: 10, output_tokens: 5 }),
        });
        expect(res.status).toBe(201);
      }
    }
    const { page } = ui;
    await ui.open('/dashboard?range=7d');
    const latency = page.getByRole('img', { name: 'Latency per day' });
    await latency.waitFor();
    const labels = JSON.parse((await latency.getAttribute('data-labels'))!) as string[];
    expect(labels).toHaveLength(7);
    const p50 = JSON.parse((await latency.locator('[data-series="p50"]').getAttribute('data-values'))!) as Array<number | null>;
    const dayIndex = (d: number) => labels.indexOf(new Date(today - d * day).toISOString().slice(0, 10));
    for (let d = 0; d < 7; d++) {
      if (trafficDays.includes(d)) expect(p50[dayIndex(d)], `day -${d}`).toBeGreaterThan(0);
      else expect(p50[dayIndex(d)], `day -${d}`).toBeNull();
    }
    // The line breaks at each gap: one polyline per run of days with traffic (today; 2–4 days ago).
    expect(await latency.locator('[data-series="p50"] polyline').count()).toBe(2);
    // No bar for a day without requests.
    const bars = page.getByRole('img', { name: 'Requests per day' }).locator('rect[fill="#5b6cf0"]');
    expect(await bars.count()).toBe(trafficDays.length);

    // Day labels read "Nov 3", not "11-03"; today's is always there.
    const texts = await latency.locator('text').allTextContents();
    const todayLabel = new Date(today).toLocaleString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    expect(texts).toContain(todayLabel);
    expect(texts.some((t) => /^\d\d-\d\d$/.test(t))).toBe(false);

    // Hovering a gap says so instead of showing 0 ms.
    const box = (await latency.boundingBox())!;
    const gap = dayIndex(1);
    const slot = (box.width - 56 - 12) / 7;
    await page.mouse.move(box.x + 56 + slot * (gap + 0.5), box.y + box.height / 2);
    await page.locator('.tooltip').getByText('no requests').waitFor();
    await ui.screenshot('dashboard-gaps');
  });
});

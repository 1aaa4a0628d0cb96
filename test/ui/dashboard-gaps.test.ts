import { describe, expect, it } from 'vitest';
import { logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

const DAY = 86400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The browser's clock is Playwright's, fixed to an instant this file picks, so what "today" is does
 * not depend on when the suite runs; the server's stats read no clock (their days come from the
 * requests' times and the range asked for).
 */
async function withUi(test: (ui: UiSession) => Promise<void>) {
  const ui = await startUi();
  try {
    await test(ui);
  } finally {
    await ui.close();
  }
}

async function logAt(ui: UiSession, start: number, latencyMs: number) {
  const res = await ui.t.api('/log-request', {
    body: logBody({ request_start_time: new Date(start).toISOString(), request_end_time: new Date(start + latencyMs).toISOString(), input_tokens: 10, output_tokens: 5 }),
  });
  expect(res.status).toBe(201);
}

describe('Dashboard charts', () => {
  it('leaves days without traffic as gaps, not 0 ms, and labels days readably, ten minutes after midnight', async () => {
    await withUi(async (ui) => {
      // 00:10 UTC: today has ten minutes of traffic behind it.
      const now = Date.UTC(2026, 2, 15, 0, 10);
      const today = Date.UTC(2026, 2, 15);
      // Traffic today, two days ago, and three-and-four days ago: gaps on days 1, 5 and 6 of a 7-day range.
      const trafficDays = [0, 2, 3, 4];
      for (const d of trafficDays) {
        for (let i = 0; i < 3; i++) await logAt(ui, today - d * DAY + 5 * 60_000 + i * 1000, 500 + d * 100);
      }
      const { page } = ui;
      await page.clock.setFixedTime(now);
      await ui.open('/dashboard?range=7d');
      const latency = page.getByRole('img', { name: 'Latency per day' });
      await latency.waitFor();
      const labels = JSON.parse((await latency.getAttribute('data-labels'))!) as string[];
      expect(labels).toEqual(['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-14', '2026-03-15']);
      const p50 = JSON.parse((await latency.locator('[data-series="p50"]').getAttribute('data-values'))!) as Array<number | null>;
      const dayIndex = (d: number) => labels.indexOf(utcDate(today - d * DAY));
      for (let d = 0; d < 7; d++) {
        if (trafficDays.includes(d)) expect(p50[dayIndex(d)], `day -${d}`).toBeGreaterThan(0);
        else expect(p50[dayIndex(d)], `day -${d}`).toBeNull();
      }
      // The line breaks at each gap: one polyline per run of days with traffic (today; 2–4 days ago).
      expect(await latency.locator('[data-series="p50"] polyline').count()).toBe(2);
      // No bar for a day without requests.
      const bars = page.getByRole('img', { name: 'Requests per day' }).locator('rect[fill="#5b6cf0"]');
      expect(await bars.count()).toBe(trafficDays.length);

      // Day labels read "Mar 15", not "03-15"; today's is always there.
      const texts = await latency.locator('text').allTextContents();
      expect(texts).toContain('Mar 15');
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

  it('shows the days it asked for when the answer comes after midnight', async () => {
    await withUi(async (ui) => {
      const askedOn = Date.UTC(2026, 5, 20);
      await logAt(ui, askedOn + 12 * 3600_000, 400);
      await logAt(ui, askedOn - 6 * DAY + 12 * 3600_000, 600);
      const { page } = ui;
      // The stats are asked for at 23:59:58 and answered at 00:00:03 the next day.
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      let asked!: () => void;
      const askedFor = new Promise<void>((resolve) => (asked = resolve));
      await page.route(
        (url) => url.pathname.endsWith('/requests/stats'),
        async (route) => {
          asked();
          await answered;
          await route.continue();
        },
      );
      await page.clock.setFixedTime(askedOn + DAY - 2000);
      await ui.open('/dashboard?range=7d');
      await askedFor;
      await page.clock.setFixedTime(askedOn + DAY + 3000);
      answer();
      const latency = page.getByRole('img', { name: 'Latency per day' });
      await latency.waitFor();
      expect(JSON.parse((await latency.getAttribute('data-labels'))!)).toEqual([
        '2026-06-14', '2026-06-15', '2026-06-16', '2026-06-17', '2026-06-18', '2026-06-19', '2026-06-20',
      ]);
      const p50 = JSON.parse((await latency.locator('[data-series="p50"]').getAttribute('data-values'))!) as Array<number | null>;
      expect(p50.map((v) => v !== null)).toEqual([true, false, false, false, false, false, true]);
    });
  });
});

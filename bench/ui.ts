// The UI on a 1,000,000-request database: time from opening /requests to the first rows painted,
// and from changing a filter to its rows painted, in Chromium (Debian's, else the npm-bundled one:
// test/support/chromium.ts) against a real server serving the built UI. Baselines measured in the
// same run: the app shell with no data (sidebar painted) for first rows, and the same filtered API
// call made directly over HTTP for filters.
// BENCH_ROWS (default 1,000,000) and BENCH_DIR (reuse a seeded directory, e.g. bench/query.ts's:
// same corpus, same insert path) are optional.
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureRendererBuilt } from '../src-main/renderer-build';
import { createServer } from '../src-server/server';
import { launchChromium } from '../test/support/chromium';
import { vocabulary } from './support/corpus';
import { BENCH_KEY, seedRequests } from './support/seed';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const dir = process.env.BENCH_DIR ?? join(tmpdir(), `promptledger-bench-ui-${ROWS}`);
const file = join(dir, 'promptledger.db');
const KEY = BENCH_KEY;
const DAY = 86_400_000;

/** The same corpus and insert path as bench/query.ts (the store's own insert, minus HTTP). */

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;
function report(label: string, xs: number[], baseline?: number[]) {
  const ratio = baseline ? `  (${(pct(xs, 50) / pct(baseline, 50)).toFixed(1)}× baseline)` : '';
  console.log(`  ${label.padEnd(44)} p50 ${ms(pct(xs, 50))}  p95 ${ms(pct(xs, 95))}  max ${ms(Math.max(...xs))}${ratio}`);
}

/** Runs `act` in the page and resolves with the time until the request table shows a fresh first page, painted. */
async function timeToFreshRows(page: Page, act: string): Promise<number> {
  return page.evaluate(async (action) => {
    const table = document.querySelector('.explorer .vt[data-generation]')!;
    const before = table.getAttribute('data-generation');
    const t0 = performance.now();
    const changed = new Promise<void>((resolve) => {
      const observer = new MutationObserver(() => {
        if (table.getAttribute('data-generation') !== before && document.querySelector('.vt-row[data-request-id]')) {
          observer.disconnect();
          resolve();
        }
      });
      observer.observe(table, { attributes: true, subtree: true, childList: true });
    });
    // The action arrives as text: the function runs inside the page, where the timer starts.
    new Function(action)();
    await changed;
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t0;
  }, act);
}

const setSelect = (label: string, value: string) =>
  `const s = document.querySelector('select[aria-label="${label}"]'); s.value = ${JSON.stringify(value)}; s.dispatchEvent(new Event('change', { bubbles: true }));`;

if (!existsSync(file)) seedRequests(dir, ROWS);
const bytes = statSync(file).size;
console.log(`ui: ${ROWS.toLocaleString()} requests, ${(bytes / 2 ** 20).toFixed(0)} MiB; ${RUNS} runs each`);

const staticDir = await ensureRendererBuilt({ root: join(import.meta.dirname, '..') });
const server = await createServer({ dataDir: dir, port: 0, apiKey: KEY, staticDir });
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/settings#key=${KEY}`);
  await page.getByRole('heading', { name: 'Settings' }).waitFor();

  // Baseline: the shell (JS loaded, React mounted, sidebar painted) with no request-log query.
  const shell: number[] = [];
  const firstRows: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    await page.goto(`${server.url}/settings`);
    await page.locator('nav.sidebar a.active').waitFor();
    shell.push(performance.now() - t0);
    t0 = performance.now();
    await page.goto(`${server.url}/requests`);
    await page.locator('.vt-row[data-request-id]').first().waitFor();
    firstRows.push(performance.now() - t0);
  }
  report('app shell, no data (baseline)', shell);
  report('open /requests → first rows painted', firstRows, shell);
  console.log(`  total shown: ${await page.getByTestId('request-count').textContent()}`);

  const filters: Array<[string, string, string, string]> = [
    ['model = claude-sonnet-4 (20%)', setSelect('Model', 'claude-sonnet-4'), setSelect('Model', ''), 'model=claude-sonnet-4'],
    ['status = ERROR (1%)', setSelect('Status', 'ERROR'), setSelect('Status', ''), 'status=ERROR'],
    // "Last 30d" counts back from now, so it keeps the corpus's newest days (all of it if the corpus ends within 30 days).
    ['time range = last 30d', setSelect('Time range', '30d'), setSelect('Time range', ''), `start_time=${new Date(Date.now() - 30 * DAY).toISOString()}`],
  ];
  for (const [label, apply, clear, query] of filters) {
    const api: number[] = [];
    const ui: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/public/v2/requests?${query}&limit=100`, { headers: { 'x-api-key': KEY } });
      await res.json();
      api.push(performance.now() - t0);
      ui.push(await timeToFreshRows(page, apply));
      await timeToFreshRows(page, clear);
    }
    report(`API alone: ${label} (baseline)`, api);
    report(`UI filter: ${label} → rows painted`, ui, api);
  }

  // Full-text search applied with Enter (typing waits 250 ms for the pause before it queries).
  const searchApi: number[] = [];
  const search: number[] = [];
  const word = vocabulary[200];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await (await fetch(`${server.url}/api/public/v2/requests?q=${word}&limit=100`, { headers: { 'x-api-key': KEY } })).json();
    searchApi.push(performance.now() - t0);
    await page.getByLabel('Search').fill(word);
    search.push(await timeToFreshRows(page, `document.querySelector('input[aria-label="Search"]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));`));
    await page.getByLabel('Search').fill('');
    await timeToFreshRows(page, `document.querySelector('input[aria-label="Search"]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));`);
  }
  report(`API alone: q=${word} (baseline)`, searchApi);
  report(`UI search q=${word} (Enter) → rows painted`, search, searchApi);

  // Scrolling deep: keyset pages load as the window nears the end; only the rows in view are in the DOM.
  const target = Math.min(5000, ROWS);
  const loadedRows = async () => Number((await page.locator('.vt-foot span').first().textContent())!.replace(/\D/g, ''));
  const t0 = performance.now();
  for (let loaded = await loadedRows(); loaded < target; ) {
    await page.locator('.vt-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForFunction((n) => Number(document.querySelector('.vt-foot span')?.textContent?.replace(/\D/g, '')) > n, loaded);
    loaded = await loadedRows();
  }
  console.log(`  scrolled to ${target.toLocaleString()} rows in ${((performance.now() - t0) / 1000).toFixed(2)} s; rows in the DOM: ${await page.locator('.vt-row').count()}`);
} finally {
  await browser.close();
  await server.close();
}

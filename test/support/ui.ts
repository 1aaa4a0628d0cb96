import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { ensureRendererBuilt } from '../../src-main/renderer-build';
import { launchChromium } from './chromium';
import { startServer, type TestServer } from './server';
import type { ServerOptions } from '../../src-server/server';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Every run takes the screenshots; `UPDATE_SCREENSHOTS=1 npm test` writes them over the ones the
 * README shows, otherwise they land in test-results/ (ignored), so a test run leaves the tree clean.
 */
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(ROOT, 'docs', 'screenshots')
  : join(ROOT, 'test-results', 'screenshots');


export interface UiSession {
  t: TestServer;
  browser: Browser;
  page: Page;
  /** Console errors and page errors seen so far (a CSP violation shows up here too). */
  problems: string[];
  /** Opens a page of the UI, signed in through the `#key=` link `npm start` prints. */
  open(path: string): Promise<void>;
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** A real server on a temp data dir serving the built UI, and Chromium pointed at it. */
export async function startUi(options: Partial<ServerOptions> = {}, theme: 'light' | 'dark' = 'light'): Promise<UiSession> {
  const staticDir = await ensureRendererBuilt({ root: ROOT });
  const t = await startServer({ ...options, staticDir });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: theme });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  let signedIn = false;
  return {
    t,
    browser,
    page,
    problems,
    async open(path) {
      await page.goto(`${t.url}${path}${signedIn ? '' : `#key=${t.key}`}`);
      signedIn = true;
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

import { describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../src-main/renderer-build';
import { BUNDLED_SUPPORTED, bundledChromium, launchChromium } from '../support/chromium';
import { startServer } from '../support/server';

// The other UI tests use Debian's Chromium when it is installed; this one always runs the browser
// `npm install` brings, so a machine without a system browser is known to pass them too.
describe.skipIf(!BUNDLED_SUPPORTED)('the Chromium bundled in @sparticuz/chromium (linux/x64 builds only)', () => {
  it('launches needing only the host\'s libc and libgcc, and drives the built UI', async () => {
    const staticDir = await ensureRendererBuilt({ root: process.cwd() });
    const t = await startServer({ staticDir });
    const browser = await launchChromium(bundledChromium());
    try {
      const page = await browser.newPage();
      await page.goto(`${t.url}/settings#key=${t.key}`);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      expect(browser.version()).toMatch(/^\d+\./);
    } finally {
      await browser.close();
      await t.close();
    }
  });
});

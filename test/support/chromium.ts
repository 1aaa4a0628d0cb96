import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

/** How UI tests and the UI bench launch a browser. `env` is passed to the browser process only. */
export interface ChromiumLaunch {
  executablePath: string;
  env?: Record<string, string>;
  source: 'PROMPTLEDGER_CHROMIUM' | 'system' | 'bundled';
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Starts headless Chromium as the UI tests and the UI bench use it. */
export function launchChromium(browser: ChromiumLaunch = findChromium()): Promise<Browser> {
  return chromium.launch({
    executablePath: browser.executablePath,
    args: CHROMIUM_ARGS,
    ...(browser.env ? { env: { ...process.env, ...browser.env } } : {}),
  });
}

/** Debian's Chromium, which `.ci/run` installs (Playwright cannot download its own browser here). */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** The bundled build is a Linux x64 binary; elsewhere a system Chromium must be named. */
export const BUNDLED_SUPPORTED = process.platform === 'linux' && process.arch === 'x64';

/**
 * `PROMPTLEDGER_CHROMIUM=/path` when set (a path that does not exist is an error, so a typo does not
 * silently test another browser), `PROMPTLEDGER_CHROMIUM=bundled` to force the npm one, else
 * Debian's Chromium when installed, else the Chromium inside `@sparticuz/chromium` — so `npm test`
 * passes on a machine with no browser installed.
 */
export function findChromium(): ChromiumLaunch {
  const named = process.env.PROMPTLEDGER_CHROMIUM;
  if (named === 'bundled') return bundledChromium();
  if (named) {
    if (!existsSync(named)) throw new Error(`PROMPTLEDGER_CHROMIUM=${named}: no such file (use a browser's path, or "bundled").`);
    return { executablePath: named, source: 'PROMPTLEDGER_CHROMIUM' };
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: 'system' };
  return bundledChromium();
}

/**
 * Unpacks `@sparticuz/chromium`'s brotli'd browser, its NSS libraries (packed for Amazon Linux but
 * plain x86-64 ELF, so the binary needs only libc, libexpat and libgcc from the host) and a font
 * into one folder per package version under the temp dir: ~4 s the first time, then reused.
 *
 * Not the package's own `executablePath()`: it writes `/tmp/chromium` in place and treats an
 * existing file as done, so a second test worker can launch a half-written binary; and it puts
 * the NSS libraries on the library path only on AWS. Here each unpack goes to a private folder
 * that is renamed into place whole.
 */
export function bundledChromium(): ChromiumLaunch {
  if (!BUNDLED_SUPPORTED) throw new Error(`The bundled Chromium is built for linux/x64, not ${process.platform}/${process.arch}: set PROMPTLEDGER_CHROMIUM.`);
  const packageDir = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `promptledger-chromium-${version}`);
  if (!existsSync(join(dir, 'chromium'))) unpack(join(packageDir, 'bin'), dir);
  return {
    executablePath: join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: join(dir, 'lib'), FONTCONFIG_FILE: join(dir, 'fonts.conf') },
    source: 'bundled',
  };
}

function unpack(bin: string, dir: string): void {
  const partial = `${dir}.${process.pid}-${Date.now()}`;
  mkdirSync(partial, { recursive: true });
  try {
    writeFileSync(join(partial, 'chromium'), brotliDecompressSync(readFileSync(join(bin, 'chromium.br'))), { mode: 0o755 });
    // `lib/` (NSS, NSPR) and `fonts/` (Open Sans); the tarballs hold plain files only.
    for (const archive of ['al2023.tar.br', 'fonts.tar.br']) {
      execFileSync('tar', ['-x', '-C', partial], { input: brotliDecompressSync(readFileSync(join(bin, archive))) });
    }
    // The package's own fonts.conf names Lambda's folders; this one names ours and keeps the
    // host's fonts when it has any.
    writeFileSync(
      join(partial, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another worker finished the same unpack first: use its folder.
    if (!existsSync(join(dir, 'chromium'))) throw error;
  }
}

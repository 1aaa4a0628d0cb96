import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type LaunchMode =
  | { mode: 'electron'; electronPath: string }
  | { mode: 'headless'; why: 'requested' | 'no-display' | 'no-electron'; reason: string };

export interface LaunchFacts {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** `--headless` on the command line. */
  headlessFlag: boolean;
  /** The Electron executable, or null when its binary was never downloaded. */
  electronPath: string | null;
}

/**
 * Whether `npm start` can open the desktop window, and if not, the one-line reason shown before
 * serving the same UI headless. Checked cheapest first, so a machine without a display never
 * waits on an Electron download it could not use.
 */
export function chooseLaunchMode(facts: LaunchFacts): LaunchMode {
  if (facts.headlessFlag || facts.env.PROMPTLEDGER_HEADLESS === '1') {
    return { mode: 'headless', why: 'requested', reason: 'headless mode requested' };
  }
  if (facts.platform === 'linux' && !facts.env.DISPLAY && !facts.env.WAYLAND_DISPLAY) {
    return { mode: 'headless', why: 'no-display', reason: 'no display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  }
  if (!facts.electronPath) {
    return { mode: 'headless', why: 'no-electron', reason: 'the Electron binary is not installed (run `node node_modules/electron/install.js` with network access)' };
  }
  return { mode: 'electron', electronPath: facts.electronPath };
}

/**
 * The Electron executable inside the `electron` package, read the way its own index.js does but
 * without throwing: `path.txt` is written only after the binary download succeeded.
 */
export function findElectronBinary(electronPackageDir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const pathFile = join(electronPackageDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const relative = readFileSync(pathFile, 'utf8').trim();
  const binary = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron')
    : join(electronPackageDir, 'dist', relative);
  return existsSync(binary) ? binary : null;
}

/** The first line of a failure worth showing: the last non-empty line a process printed. */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

import type { ChildProcess } from 'node:child_process';
import { lastLine } from './launch-mode';

export const READY_PREFIX = 'promptledger listening on ';

/** Electron's exit code when its server refused the data dir (in use, damaged): headless would too. */
export const EXIT_DATA_DIR_REFUSED = 4;

export type ElectronOutcome =
  | { ready: true; url: string }
  | { ready: false; reason: string; /** Set when starting headless would fail the same way. */ dataDirRefused?: true };

/**
 * Waits until the Electron process reports its server ready (the same stdout line `serve`
 * prints) or dies trying. A dead start (missing shared libraries, a native module built for
 * Node instead of Electron) comes back as its last line of output, for the one-line fallback
 * message. Output is passed through so the user sees what Electron prints.
 */
export function superviseElectron(child: ChildProcess, timeoutMs = 60_000, echo = true): Promise<ElectronOutcome> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (outcome: ElectronOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      child.kill();
      settle({ ready: false, reason: `Electron did not become ready within ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (echo) process.stdout.write(chunk);
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) settle({ ready: true, url: line.slice(READY_PREFIX.length).trim() });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (echo) process.stderr.write(chunk);
      stderr += chunk.toString();
    });
    child.once('error', (error) => settle({ ready: false, reason: `Electron could not be run: ${error.message}` }));
    child.once('exit', (code, signal) => {
      if (code === EXIT_DATA_DIR_REFUSED) {
        settle({ ready: false, reason: lastLine(stderr).replace(/^promptledger: /, ''), dataDirRefused: true });
        return;
      }
      const why = lastLine(stderr) || lastLine(stdout) || (signal ? `killed by ${signal}` : `exit code ${code}`);
      settle({ ready: false, reason: `Electron exited before the window opened: ${why}` });
    });
  });
}

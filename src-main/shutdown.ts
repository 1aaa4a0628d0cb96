/**
 * Quits in the one safe order: windows first (no UI request arrives mid-close), then the server
 * (stops accepting, drains the write queue, closes SQLite, which checkpoints the WAL into the
 * main file), then the process. Called from several places (window closed, menu Quit, SIGTERM,
 * Electron's before-quit), so it runs once and every caller waits on the same promise.
 */
export interface ShutdownSteps {
  closeWindows(): void | Promise<void>;
  closeServer(): Promise<void>;
  exit(code: number): void;
  log?(message: string): void;
}

export function createShutdown(steps: ShutdownSteps): (reason?: string) => Promise<void> {
  let running: Promise<void> | undefined;
  return (reason) => {
    running ??= (async () => {
      if (reason) steps.log?.(`${reason}: closing promptledger…`);
      let code = 0;
      try {
        await steps.closeWindows();
      } catch (error) {
        steps.log?.(`Closing windows failed: ${String(error)}`);
      }
      try {
        await steps.closeServer();
      } catch (error) {
        code = 1;
        steps.log?.(`Closing the server failed: ${String(error)}`);
      }
      steps.exit(code);
    })();
    return running;
  };
}

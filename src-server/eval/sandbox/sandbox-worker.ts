// A sandbox thread (see quickjs.ts for the pool): runs one cell at a time so a cell that loops
// until its time limit holds this thread, never the HTTP server's event loop.
import { parentPort } from 'node:worker_threads';
import type { SandboxLimits } from './quickjs';
import { runQuickJs } from './quickjs-run';

export interface SandboxJob {
  id: number;
  code: string;
  /** The row as JSON text, serialized on the server's side exactly as before the pool. */
  input: string;
  limits: SandboxLimits;
}
/** `started` comes first, so the host's own deadline does not count this thread's start-up. */
export type SandboxAnswer = { id: number; started: true } | { id: number; value: unknown } | { id: number; error: string };

const port = parentPort!;

port.on('message', (job: SandboxJob) => {
  port.postMessage({ id: job.id, started: true } satisfies SandboxAnswer);
  void runQuickJs(job.code, job.input, job.limits).then(
    (value) => port.postMessage({ id: job.id, value } satisfies SandboxAnswer),
    (error: unknown) => port.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies SandboxAnswer),
  );
});

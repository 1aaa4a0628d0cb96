import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cutCellOutput, MAX_CELL_OUTPUT_BYTES } from '../cell-output';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

/** One cell, host → sandbox process. */
export interface SandboxJob {
  id: number;
  code: string;
  /** The row as JSON text. */
  input: string;
  limits: SandboxLimits & { outputBytes: number };
}

export type SandboxFailure = 'timeout' | 'memory' | 'stack' | 'not-json';

/**
 * Sandbox process → host: `ready` once the interpreter is loaded (before any user code), then per
 * job `started` (so the deadline does not count a queue) and one outcome: the value as JSON text,
 * the start of a value past the output bound with its full size, a limit that was hit, the
 * user's exception as `Name: message`, or a crash of the interpreter (the process then exits).
 */
export type SandboxAnswer =
  | { ready: true }
  | { id: number; started: true }
  | { id: number; json: string }
  | { id: number; cut: string; bytes: number }
  | { id: number; failure: SandboxFailure }
  | { id: number; error: string }
  | { id: number; crashed: string };

/** Whose interpreter a cell may share: cells with one key share processes, never with another key. */
export interface SandboxScope {
  key: string;
  /** Aborting answers the key's queued cells at once and kills the process running one. */
  signal?: AbortSignal;
}

/** How to start one language's sandbox process. */
export interface SandboxChild {
  /** The plain-JavaScript entry, `<name>.mjs` beside this module from source, `<name>.js` beside the bundle. */
  name: string;
  /** Absolute real paths the process may read (Node's permission model): its entry is added. */
  readPaths: string[];
  /** Passed as the process's last argv, JSON. */
  args: Record<string, string>;
}

export interface ProcessPoolOptions {
  child: SandboxChild;
  /** Processes alive at once, over all keys. */
  maxProcesses: number;
  /** Processes one key may hold at once (its cells beyond run in turn). */
  perKey: number;
  /** How long past its time limit a cell may stay silent before its process is killed. */
  graceMs: number;
  /** An idle process ends after this long. */
  idleMs: number;
  /** A key keeps a process it is still using for at least this long before a waiting key may take it. */
  quantumMs: number;
}

export interface ProcessPool {
  run(code: string, data: unknown, limits: SandboxLimits, scope: SandboxScope): Promise<unknown>;
  close(): Promise<void>;
}

export const CLOSED = 'The code sandbox is closed.';
export const CANCELED = 'Canceled.';
/** Bounds a process's start-up, only to catch one that hangs: pyodide loads in about 2 s, and took 20 s on a machine loaded 10 times over its cores. */
const STARTUP_MS = 120_000;

export function timeLimitMessage(timeoutMs: number): string {
  return `Time limit exceeded: the code ran longer than ${timeoutMs} ms.`;
}

function failureMessage(failure: SandboxFailure, limits: SandboxLimits): string {
  switch (failure) {
    case 'timeout': return timeLimitMessage(limits.timeoutMs);
    case 'memory': return `Memory limit exceeded: the code used more than ${Math.round(limits.memoryBytes / 1048576)} MB.`;
    case 'stack': return 'Stack overflow: the code recursed too deeply.';
    case 'not-json': return 'The code returned a value that cannot be turned into JSON.';
  }
}

interface Job {
  id: number;
  code: string;
  input: string;
  limits: SandboxLimits;
  scope: SandboxScope;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  unlisten: () => void;
}

interface Proc {
  key: string;
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** When this key took the process; see `quantumMs`. */
  since: number;
  /** Set once the process is ending: what its running job, if any, is answered with. */
  failure?: string;
  exited: Promise<void>;
  /** The end of its stderr, for the log of a crash. */
  stderr: string;
}

/**
 * Sandbox processes for one language. Each key (a run) gets processes of its own, so no cell sees
 * another run's interpreter state, and a run's cells queue behind its own processes only: ten
 * slow cells of one run hold that run's process, while another run's cells start in theirs. Past
 * `maxProcesses`, keys take turns: a process whose key has used it for `quantumMs` goes to the
 * key that has waited longest when its cell ends (a kill and a cold start, so not after every
 * cell). A cell past its deadline plus `graceMs`, a canceled cell and a closed pool cost a kill.
 */
export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const { maxProcesses, perKey, graceMs } = options;
  const procs = new Set<Proc>();
  /** Queued cells per key; the Map's order is the order keys take turns in. */
  const queues = new Map<string, Job[]>();
  let seq = 0;
  let closed = false;

  function settle(job: Job, outcome: { value: unknown } | { error: string }): void {
    job.unlisten();
    if ('error' in outcome) job.reject(new Error(outcome.error));
    else job.resolve(outcome.value);
  }

  function answer(proc: Proc, outcome: { value: unknown } | { error: string }): void {
    const job = proc.job;
    if (!job) return;
    proc.job = undefined;
    clearTimeout(proc.timer);
    idle(proc);
    settle(job, outcome);
  }

  function idle(proc: Proc): void {
    proc.child.unref();
    proc.child.channel?.unref();
    clearTimeout(proc.timer);
    proc.timer = setTimeout(() => kill(proc, 'idle'), options.idleMs);
    proc.timer.unref();
  }

  function kill(proc: Proc, failure: string): void {
    proc.failure ??= failure;
    proc.child.kill('SIGKILL');
  }

  function spawn(key: string): Proc {
    const entry = fileURLToPath(childUrl(options.child.name));
    const child = fork(entry, [JSON.stringify(options.child.args)], {
      // No --allow-fs-write, --allow-child-process, --allow-worker or --allow-addons: each is
      // denied under --experimental-permission unless granted.
      execArgv: ['--experimental-permission', ...[entry, ...options.child.readPaths].map((p) => `--allow-fs-read=${p}`), '--disallow-code-generation-from-strings', '--no-warnings'],
      // Nothing of the server's environment (keys, tokens, paths): Node needs none of it.
      env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const proc: Proc = { key, child, ready: false, since: Date.now(), exited: Promise.resolve(), stderr: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      proc.stderr = (proc.stderr + chunk.toString()).slice(-2_000);
    });
    proc.timer = setTimeout(() => kill(proc, 'The code sandbox did not start in time.'), STARTUP_MS);
    child.on('message', (message: SandboxAnswer) => receive(proc, message));
    proc.exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        procs.delete(proc);
        clearTimeout(proc.timer);
        answer(proc, { error: proc.failure ?? 'The code sandbox stopped unexpectedly.' });
        dispatch();
        resolve();
      }),
    );
    child.on('error', () => kill(proc, 'The code sandbox could not start.'));
    procs.add(proc);
    return proc;
  }

  function receive(proc: Proc, message: SandboxAnswer): void {
    if ('ready' in message) {
      proc.ready = true;
      clearTimeout(proc.timer);
      if (proc.job) send(proc, proc.job);
      else idle(proc);
      return;
    }
    const job = proc.job;
    if (job?.id !== message.id) return;
    if ('started' in message) {
      clearTimeout(proc.timer);
      proc.timer = setTimeout(() => kill(proc, timeLimitMessage(job.limits.timeoutMs)), job.limits.timeoutMs + graceMs);
      return;
    }
    if ('crashed' in message) return kill(proc, message.crashed);
    if ('json' in message) answer(proc, { value: JSON.parse(message.json) });
    else if ('cut' in message) answer(proc, { value: cutCellOutput(message.cut, message.bytes) });
    else if ('failure' in message) answer(proc, { error: failureMessage(message.failure, job.limits) });
    else answer(proc, { error: message.error });
    dispatch();
  }

  function send(proc: Proc, job: Job): void {
    proc.timer = setTimeout(() => kill(proc, timeLimitMessage(job.limits.timeoutMs)), STARTUP_MS + job.limits.timeoutMs + graceMs);
    const message: SandboxJob = { id: job.id, code: job.code, input: job.input, limits: { ...job.limits, outputBytes: MAX_CELL_OUTPUT_BYTES } };
    proc.child.send(message);
  }

  function assign(proc: Proc, job: Job): void {
    proc.job = job;
    proc.child.ref();
    proc.child.channel?.ref();
    clearTimeout(proc.timer);
    if (proc.ready) send(proc, job);
    else proc.timer = setTimeout(() => kill(proc, 'The code sandbox did not start in time.'), STARTUP_MS);
  }

  /** Gives each waiting key, in turn, a free process of its own, a new one, or one taken from another key. */
  function dispatch(): void {
    if (closed) return;
    for (let progress = true; progress; ) {
      progress = false;
      for (const [key, queue] of queues) {
        const proc = processFor(key);
        if (!proc) continue;
        const job = queue.shift()!;
        if (queue.length === 0) queues.delete(key);
        else {
          // To the back of the line: the next free process goes to another key first.
          queues.delete(key);
          queues.set(key, queue);
        }
        assign(proc, job);
        progress = true;
        break;
      }
    }
  }

  function processFor(key: string): Proc | undefined {
    const live = [...procs].filter((p) => p.failure === undefined);
    const own = live.filter((p) => p.key === key);
    const free = own.find((p) => !p.job);
    if (free) return free;
    if (own.length >= perKey) return undefined;
    if (procs.size < maxProcesses) return spawn(key);
    const now = Date.now();
    const taken = live
      .filter((p) => !p.job && (!queues.has(p.key) || now - p.since >= options.quantumMs))
      .sort((a, b) => a.since - b.since)[0];
    if (taken) kill(taken, 'idle');
    return undefined;
  }

  return {
    run(code, data, limits, scope) {
      if (closed) return Promise.reject(new Error(CLOSED));
      if (scope.signal?.aborted) return Promise.reject(new Error(CANCELED));
      return new Promise<unknown>((resolve, reject) => {
        const job: Job = { id: ++seq, code, input: JSON.stringify(data ?? null), limits, scope, resolve, reject, unlisten: () => {} };
        const onAbort = () => cancel(job);
        scope.signal?.addEventListener('abort', onAbort, { once: true });
        job.unlisten = () => scope.signal?.removeEventListener('abort', onAbort);
        const queue = queues.get(scope.key) ?? queues.set(scope.key, []).get(scope.key)!;
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of [...queues.values()].flat()) settle(job, { error: CLOSED });
      queues.clear();
      const exits = [...procs].map((proc) => {
        kill(proc, CLOSED);
        return proc.exited;
      });
      await Promise.all(exits);
    },
  };

  function cancel(job: Job): void {
    const queue = queues.get(job.scope.key);
    const at = queue?.indexOf(job) ?? -1;
    if (queue && at >= 0) {
      queue.splice(at, 1);
      if (queue.length === 0) queues.delete(job.scope.key);
      settle(job, { error: CANCELED });
      return;
    }
    for (const proc of procs) if (proc.job === job) kill(proc, CANCELED);
  }
}

/**
 * The child's entry beside this module: from source (tsx, tests) the `.mjs` file itself; in the
 * bundle `<name>.js`, an entry of its own beside the main bundle (electron.vite.config.ts). URLs
 * are built from variables so Vite does not take them for assets to copy.
 */
function childUrl(name: string): URL {
  const file = import.meta.url.endsWith('.ts') ? `./${name}.mjs` : `./${name}.js`;
  return new URL(file, import.meta.url);
}

// The idle server, as users start it: `promptledger serve` compiled (bin/promptledger.js →
// out/main/serve.js) against the same code run through the tsx loader (the runtime before it was
// compiled: every module and each worker thread transpiled at start), alternating in one run.
// Per start: time from spawn to the ready line, time from the ready line to the first
// `/log-request` acknowledged, and RSS once idle (main thread and its worker threads: one process).
// Targets: idle RSS ≤ 90 MiB, ready ≤ 0.4 s, first acknowledgement ≤ 50 ms after ready.
// BENCH_RUNS (default 7) starts of each.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../build/build.mjs';
import { root } from './support/spawn';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** How long the server sits idle before its RSS is read. */
const IDLE_MS = 3_000;

interface Start {
  readyMs: number;
  firstAckMs: number;
  idleRssMiB: number;
}

const variants = {
  compiled: ['bin/promptledger.js', 'serve'],
  tsx: ['--import', 'tsx', 'bench/support/serve-source.ts'],
};
type Variant = keyof typeof variants;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startOnce(variant: Variant, dataDir: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [...variants[variant], '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /promptledger listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`${variant} exited before ready:\n${out}`)));
  });
  const ready = performance.now();
  const key = readFileSync(join(dataDir, 'api-key'), 'utf8').trim();
  const now = Date.now() / 1000;
  const res = await fetch(`${url}/log-request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      provider: 'openai',
      model: 'gpt-4o-mini',
      input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] },
      output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] }] },
      request_start_time: now - 0.5,
      request_end_time: now,
    }),
  });
  const acked = performance.now();
  if (res.status !== 201) {
    child.kill('SIGKILL');
    throw new Error(`${variant}: /log-request answered ${res.status}: ${await res.text()}`);
  }
  await sleep(IDLE_MS);
  const idleRssMiB = rssMiB(child.pid!);
  child.kill('SIGTERM');
  await exited;
  return { readyMs: ready - started, firstAckMs: acked - ready, idleRssMiB };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

await ensureBuilt({ log: (m) => console.log(m) });
// One data folder, created (migrations, key) by an untimed first start: the starts measured are
// the everyday ones.
const dataDir = mkdtempSync(join(tmpdir(), 'promptledger-bench-idle-'));
await startOnce('compiled', dataDir);
console.log(`load average at start: ${load()} (2 cores); ${RUNS} starts of each, alternating`);
const results: Record<Variant, Start[]> = { compiled: [], tsx: [] };
for (let i = 0; i < RUNS; i++) {
  for (const variant of Object.keys(variants) as Variant[]) results[variant].push(await startOnce(variant, dataDir));
}
console.log(`load average at end: ${load()}`);

const metrics: Array<{ key: keyof Start; label: string; unit: string; target: number }> = [
  { key: 'readyMs', label: 'spawn → ready line', unit: 'ms', target: 400 },
  { key: 'firstAckMs', label: 'ready → first /log-request acknowledged', unit: 'ms', target: 50 },
  { key: 'idleRssMiB', label: `RSS after ${IDLE_MS / 1000} s idle`, unit: 'MiB', target: 90 },
];
let missed = 0;
for (const { key, label, unit, target } of metrics) {
  const compiled = results.compiled.map((r) => r[key]);
  const tsx = results.tsx.map((r) => r[key]);
  const ok = median(compiled) <= target;
  if (!ok) missed++;
  const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ${unit} (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
  console.log(`${label}\n  compiled ${fmt(compiled)}  ${ok ? 'meets' : 'MISSES'} ≤ ${target} ${unit}\n  tsx      ${fmt(tsx)}\n  ratio compiled/tsx ${(median(compiled) / median(tsx)).toFixed(2)}`);
}
console.log(missed ? `${missed} target(s) missed (medians; see the load average above)` : 'all targets met (medians)');

// Ingest throughput: POST /log-request against (a) a bare node:http server in its own process that
// reads and parses the JSON body and answers 201 (bench/support/bare-server.mjs) and (b) the shipped
// server (`bin/promptledger.js serve`, compiled; BENCH_TSX=1 runs the sources under tsx instead);
// same run, same load generator (1 thread, 50 connections, ~2 KB bodies, each different). Prints req/s, p50, p99 and the ratios, on a fresh
// database and on a copy of one already holding BENCH_INGEST_ROWS (default 1,000,000; 0 skips it)
// seeded requests (bench/support/seed.ts cachedRequests: seeded once, reused). The generator is
// wrk when installed (C, light on the shared CPU), else autocannon.
import autocannon from 'autocannon';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestBody as body } from './support/corpus';
import { cachedRequests } from './support/seed';
import { root, startBenchServer, startShippedServer } from './support/spawn';

const dir = mkdtempSync(join(tmpdir(), 'promptledger-bench-ingest-'));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

/** wrk cycles through 2,000 pre-built bodies from a Lua script. */
function loadWithWrk(url: string, path: string, seconds: number) {
  const script = join(dir, 'bodies.lua');
  const bodies = Array.from({ length: 2000 }, (_, i) => `[[${body(i)}]]`).join(',\n');
  writeFileSync(script, `local bodies = {${bodies}}
local i = 0
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["x-api-key"] = "pl_bench_key"
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, "${path}", nil, bodies[i])
end`);
  const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const ms = (label: string) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!m) return NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  if (/Non-2xx/.test(out)) throw new Error(`${path}: non-2xx responses\n${out}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
  return { rps, p50: ms('50%'), p99: ms('99%'), total: Number(/(\d+) requests in/.exec(out)![1]) };
}

async function load(url: string, path: string, seconds: number) {
  if (hasWrk) return loadWithWrk(url, path, seconds);
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'x-api-key': 'pl_bench_key' },
        setupRequest: (req) => ({ ...req, body: body(i++) }),
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${path}: ${bad} failed responses`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total };
}

/** The baseline server in its own process; resolves with its URL and a stop function. */
async function startBare(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(root, 'bench', 'support', 'bare-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /on (http\S+)/.exec(d.toString());
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * CPU time per thread of process `pid` (Linux /proc; empty elsewhere), in µs. The server's threads
 * are told apart by their share: the HTTP thread and the ingest thread each take hundreds of µs per
 * request, V8's helpers (GC) and libuv's pool (the WAL syncs) a few dozen.
 */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return out;
  for (const tid of readdirSync(dir)) {
    try {
      const stat = readFileSync(`${dir}/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks (100 per second on Linux).
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** Busy and total CPU time of the whole machine (Linux /proc/stat, all cores), in clock ticks; null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  if (!existsSync('/proc/stat')) return null;
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait
  return { busy: total - fields[3] - fields[4], total };
}

/**
 * Runs the load and says how busy the whole machine was meanwhile (the load generator, the kernel,
 * other processes included): the share of its cores left unused tells a run bound by CPU from one
 * bound by waiting. Clock ticks are 10 ms (Linux's 100 per second).
 */
async function loadWithMachine(url: string, seconds: number) {
  const before = machineCpu();
  const result = await load(url, '/log-request', seconds);
  const after = machineCpu();
  const machine = before && after
    ? `machine ${(((after.busy - before.busy) / (after.total - before.total)) * 100).toFixed(0)} % busy (${cpus().length} cores), ${(((after.busy - before.busy) * 10_000) / result.total).toFixed(0)} µs per request`
    : '';
  return { ...result, machine };
}

/** Runs the load against the server and reports its CPU per request, per thread (the top two) and in all. */
async function loadMeasured(server: { url: string; child: { pid?: number } }, seconds: number) {
  const pid = server.child.pid!;
  const before = threadCpu(pid);
  const result = await loadWithMachine(server.url, seconds);
  const after = threadCpu(pid);
  const used = (tid: string) => ((after.get(tid) ?? 0) - (before.get(tid) ?? 0)) / result.total;
  const perThread = [...after.keys()].map(used).sort((a, b) => b - a);
  const all = perThread.reduce((a, b) => a + b, 0);
  // The main thread's id is the process's (Linux): the HTTP thread. The busiest other is the ingest thread.
  const http = after.has(String(pid)) ? used(String(pid)) : undefined;
  const other = Math.max(0, ...[...after.keys()].filter((tid) => tid !== String(pid)).map(used));
  const cpu = perThread.length === 0 ? 'CPU per request: n/a (no /proc)'
    : http === undefined
      ? `CPU per request: ${all.toFixed(0)} µs in all; busiest threads ${perThread.slice(0, 2).map((us) => `${us.toFixed(0)} µs`).join(', ')} (HTTP and ingest threads)`
      : `CPU per request: ${all.toFixed(0)} µs in all; HTTP (main) thread ${http.toFixed(0)} µs, ingest thread (busiest other) ${other.toFixed(0)} µs`;
  return { ...result, cpu: result.machine ? `${cpu}; ${result.machine}` : cpu };
}

const fileBytes = (dataDir: string) =>
  ['promptledger.db', 'promptledger.db-wal'].reduce((sum, f) => {
    try {
      return sum + statSync(join(dataDir, f)).size;
    } catch {
      return sum;
    }
  }, 0);
const line = (name: string, r: { rps: number; p50: number; p99: number }) =>
  `  ${name.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`;
const load1 = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/.*load average: /, 'load ');

const BIG = Number(process.env.BENCH_INGEST_ROWS ?? 1_000_000);
const bigDir = BIG > 0 ? join(dir, 'big') : '';
if (BIG > 0) {
  // A copy: the run adds rows, and the cached database stays as seeded for the next run.
  const cached = cachedRequests(BIG);
  mkdirSync(bigDir);
  copyFileSync(join(cached, 'promptledger.db'), join(bigDir, 'promptledger.db'));
  // On disk before the run: otherwise the server's first checkpoint syncs the file and waits for
  // the OS to write gigabytes of the copy, inside the measurement.
  const fd = openSync(join(bigDir, 'promptledger.db'), 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

// The shipped server (compiled, as `npm start` runs it); BENCH_TSX=1 runs the sources through tsx.
const startServer = process.env.BENCH_TSX === '1' ? startBenchServer : startShippedServer;
const bare = await startBare();
const server = await startServer(join(dir, 'fresh'));
try {
  console.log(`ingest: ${hasWrk ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ${SECONDS} s each, body ≈ ${body(1).length} bytes; ${load1()}`);
  await load(bare.url, '/log-request', 2);
  await load(server.url, '/log-request', 2);
  const before = fileBytes(join(dir, 'fresh'));
  const baseline = await loadWithMachine(bare.url, SECONDS);
  const fresh = await loadMeasured(server, SECONDS);
  const grown = fileBytes(join(dir, 'fresh')) - before;
  console.log(`${line('(a) bare node:http, JSON.parse', baseline)}  ${baseline.machine}`);
  console.log(line('(b) POST /log-request, fresh db', fresh));
  console.log(`  ratio b/a: ${(fresh.rps / baseline.rps).toFixed(2)}  (target ≥ 0.3; p99 target ≤ 25 ms); ${load1()}`);
  console.log(`  ${fresh.cpu}`);
  console.log(`  file growth ${(grown / fresh.total).toFixed(0)} bytes/request over ${fresh.total} requests`);
  if (BIG > 0) {
    const big = await startServer(bigDir);
    try {
      await load(big.url, '/log-request', 2);
      const again = await loadWithMachine(bare.url, SECONDS);
      const onBig = await loadMeasured(big, SECONDS);
      console.log(`${line('(a) bare node:http, JSON.parse', again)}  ${again.machine}`);
      console.log(line(`(c) POST /log-request, ${BIG.toLocaleString()} rows`, onBig));
      console.log(`  ratio c/a: ${(onBig.rps / again.rps).toFixed(2)}; ${load1()}`);
      console.log(`  ${onBig.cpu}`);
    } finally {
      await big.stop();
    }
  }

} finally {
  bare.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

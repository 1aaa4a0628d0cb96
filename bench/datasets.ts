// Dataset import: a 100,000-row CSV (~48 MB, under the default 50 MB file limit) posted as base64
// to `from-file` on a real server in a child process (run under /usr/bin/time -v), then row pages
// and an export on the imported version. Baseline in the same run: papaparse of the same file
// from a string in this process, no storage. Prints rows/s, the ratio, the server's peak RSS
// against the file size, and row page p50/p95.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { fmt, root, timeIt } from './support/spawn';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const KEY = 'pl_bench_datasets_key';
const words = 'the quick brown fox jumps over a lazy dog while models answer prompts about weather, travel, "code" and 東京 data'.split(' ');

/** ~480 bytes a row: quoted fields with commas, doubled quotes and the odd embedded newline. */
function csv(rows: number): string {
  const sentence = (i: number, n: number) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(' ');
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  const lines = ['id,question,context,expected,category'];
  for (let i = 0; i < rows; i++) {
    const context = i % 50 === 0 ? `${sentence(i, 37)}\nsecond line ${i}` : sentence(i, 42);
    lines.push([i, quote(`Question ${i}: ${sentence(i + 1, 18)}?`), quote(context), quote(`Answer ${i}: ${sentence(i + 2, 14)}`), `cat-${i % 12}`].join(','));
  }
  return `${lines.join('\n')}\n`;
}

const kb = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function startServer(dataDir: string) {
  const child = spawn('/usr/bin/time', ['-v', process.execPath, join(root, 'bin', 'promptledger.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, PROMPTLEDGER_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  // /usr/bin/time's only child is the node server.
  const nodePid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
  return {
    url,
    status: () => readFileSync(`/proc/${nodePid}/status`, 'utf8'),
    /** utime + stime of the server in ms: the import's cost without the wait for a busy CPU. */
    cpuMs: () => {
      const fields = readFileSync(`/proc/${nodePid}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    },
    async stop(): Promise<string> {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(nodePid, 'SIGTERM');
      await exited;
      return stderr;
    },
  };
}

async function api(url: string, path: string, init: RequestInit = {}) {
  const res = await fetch(url + path, { ...init, headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...(init.headers ?? {}) } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

const dir = mkdtempSync(join(tmpdir(), 'promptledger-bench-datasets-'));
try {
  const text = csv(ROWS);
  const fileBytes = Buffer.byteLength(text);
  const file = join(dir, 'bench.csv');
  writeFileSync(file, text);
  console.log(`datasets: ${ROWS.toLocaleString('en')} rows, CSV ${mib(fileBytes)} (${fileBytes.toLocaleString('en')} bytes)`);

  // (a) Baseline: parse the same text with papaparse, nothing stored, best of 3.
  let parseMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const parsed = Papa.parse(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
    parseMs = Math.min(parseMs, performance.now() - t0);
    if (parsed.data.length !== ROWS) throw new Error(`baseline parsed ${parsed.data.length} rows`);
  }

  const server = await startServer(join(dir, 'data'));
  let timeReport = '';
  try {
    const groupId = JSON.parse(await api(server.url, '/api/public/v2/dataset-groups', { method: 'POST', body: JSON.stringify({ name: 'bench' }) })).dataset_group.id;
    const idle = server.status();
    const body = JSON.stringify({ dataset_group_id: groupId, file_name: 'bench.csv', file_content_base64: readFileSync(file).toString('base64') });

    // (b) The import through HTTP: upload, decode, parse, store, publish.
    const cpu0 = server.cpuMs();
    const t0 = performance.now();
    const created = JSON.parse(await api(server.url, '/api/public/v2/dataset-versions/from-file', { method: 'POST', body }));
    const importMs = performance.now() - t0;
    const afterImport = server.status();
    const importCpuMs = server.cpuMs() - cpu0;
    const datasetId = created.dataset_id as number;
    const info = JSON.parse(await api(server.url, `/api/public/v2/datasets/${datasetId}`));
    if (info.dataset.row_count !== ROWS) throw new Error(`imported ${info.dataset.row_count} rows`);

    const pages = Math.ceil(ROWS / 100);
    const rowsPage = await timeIt(300, (i) => api(server.url, `/api/public/v2/datasets/${datasetId}/rows?per_page=100&page=${1 + ((i * 7919) % pages)}`));
    const search = await timeIt(20, (i) => api(server.url, `/api/public/v2/datasets/${datasetId}/rows?per_page=30&q=${encodeURIComponent(`Answer ${i * 4999}:`)}`));
    const e0 = performance.now();
    const exported = await api(server.url, `/api/public/v2/datasets/${datasetId}/export?format=csv`);
    const exportMs = performance.now() - e0;
    const afterAll = server.status();

    const rps = (ms: number) => ROWS / (ms / 1000);
    const peakKb = kb(afterImport, 'VmHWM');
    console.log(`  (a) papaparse of the string, no storage   ${fmt(parseMs).padStart(10)}  ${rps(parseMs).toFixed(0).padStart(8)} rows/s`);
    console.log(`  (b) POST from-file (base64 ${mib(body.length)})  ${fmt(importMs).padStart(10)}  ${rps(importMs).toFixed(0).padStart(8)} rows/s  (target ≥ 50,000)`);
    console.log(`  ratio b/a (rows/s): ${(rps(importMs) / rps(parseMs)).toFixed(2)}`);
    console.log(`  server CPU for the import ${fmt(importCpuMs)} = ${rps(importCpuMs).toFixed(0)} rows per CPU-second (all threads; SQLite fsyncs are not CPU)`);
    console.log(`  server RSS: idle ${mib(kb(idle, 'VmRSS') * 1024)}, peak through the import ${mib(peakKb * 1024)} = ${((peakKb * 1024) / fileBytes).toFixed(2)}x the file`);
    const parts = ['RssAnon', 'RssFile', 'RssShmem'].map((f) => `${f} ${mib(kb(afterImport, f) * 1024)}`).join(', ');
    console.log(`  server RSS right after the import: ${mib(kb(afterImport, 'VmRSS') * 1024)} (${parts}); added by the import (peak - idle) ${mib((peakKb - kb(idle, 'VmRSS')) * 1024)} = ${(((peakKb - kb(idle, 'VmRSS')) * 1024) / fileBytes).toFixed(2)}x the file (target <= 1x)`);
    console.log(`  rows page (per_page=100, random pages) p50 ${fmt(rowsPage.p50)}  p95 ${fmt(rowsPage.p95)}  max ${fmt(rowsPage.max)}`);
    console.log(`  rows search (q, per_page=30)           p50 ${fmt(search.p50)}  p95 ${fmt(search.p95)}`);
    console.log(`  export CSV ${mib(exported.length)} in ${fmt(exportMs)}; server peak RSS after export ${mib(kb(afterAll, 'VmHWM') * 1024)}`);
  } finally {
    timeReport = await server.stop();
  }
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)/.exec(timeReport)?.[1];
  const maxRss = /Maximum resident set size \(kbytes\): (\d+)/.exec(timeReport)?.[1];
  console.log(`  /usr/bin/time -v (whole server life): wall ${wall}, maximum RSS ${mib(Number(maxRss) * 1024)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

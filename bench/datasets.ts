// Dataset import: a 100,000-row CSV (~48 MB, under the default 50 MB file limit) posted as base64
// to `from-file` on the shipped server in a child process (`BENCH_NODE_ARGS` go to its node), then row pages
// and an export on the imported version. Baseline in the same run: papaparse of the same file
// from a string in this process, no storage. Prints rows/s, the ratio, the server's peak RSS
// against the file size, and row page p50/p95.
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { BENCH_KEY as KEY } from './support/seed';
import { fmt, startShippedServer, timeIt } from './support/spawn';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
/** `jsonl` posts the CSV's records as JSON lines instead (the papaparse baseline stays the CSV's); 100k rows of it pass the 50 MB limit, so run it with BENCH_ROWS=85000. */
const FORMAT = process.env.BENCH_FORMAT === 'jsonl' ? 'jsonl' : 'csv';
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

/** The shipped server (compiled, `BENCH_NODE_ARGS` passed to node), read through its /proc entry. */
async function startServer(dataDir: string) {
  const server = await startShippedServer(dataDir);
  const pid = server.child.pid!;
  return {
    url: server.url,
    status: () => readFileSync(`/proc/${pid}/status`, 'utf8'),
    /** utime + stime of the server in ms: the import's cost without the wait for a busy CPU. */
    cpuMs: () => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    },
    stop: server.stop,
  };
}

/**
 * The upload, sent with node:http from a Buffer: fetch (undici) spent 0.3–0.8 s in this process
 * before the server saw a byte of a 62 MB body (a bare node:http server, same body: 3–27 ms),
 * which the old figures counted as import time. `BENCH_CLIENT=fetch` sends it the old way.
 */
function postFile(url: string, path: string, body: Buffer): Promise<string> {
  if (process.env.BENCH_CLIENT === 'fetch') return api(url, path, { method: 'POST', body: body.toString() });
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': KEY } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        if (res.statusCode === 201) resolve(text);
        else reject(new Error(`${path}: ${res.statusCode} ${text.slice(0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
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
  const upload = join(dir, `bench.${FORMAT}`);
  if (FORMAT === 'jsonl') {
    const records = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
    writeFileSync(upload, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  }
  const uploadBytes = readFileSync(upload);
  console.log(`datasets: ${ROWS.toLocaleString('en')} rows, CSV ${mib(fileBytes)} (${fileBytes.toLocaleString('en')} bytes)` + (FORMAT === 'jsonl' ? `; posted as JSONL ${mib(uploadBytes.length)}` : ''));

  // (a) Baseline: parse the same text with papaparse, nothing stored, best of 3.
  let parseMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const parsed = Papa.parse(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
    parseMs = Math.min(parseMs, performance.now() - t0);
    if (parsed.data.length !== ROWS) throw new Error(`baseline parsed ${parsed.data.length} rows`);
  }

  const server = await startServer(join(dir, 'data'));
  try {
    const groupId = JSON.parse(await api(server.url, '/api/public/v2/dataset-groups', { method: 'POST', body: JSON.stringify({ name: 'bench' }) })).dataset_group.id;
    const idle = server.status();
    const body = Buffer.from(JSON.stringify({ dataset_group_id: groupId, file_name: `bench.${FORMAT}`, file_content_base64: uploadBytes.toString('base64') }));

    // (b) The import through HTTP: upload, decode, parse, store, publish.
    const cpu0 = server.cpuMs();
    const t0 = performance.now();
    const created = JSON.parse(await postFile(server.url, '/api/public/v2/dataset-versions/from-file', body));
    const importMs = performance.now() - t0;
    const afterImport = server.status();
    const importCpuMs = server.cpuMs() - cpu0;
    // Work the import leaves for after its answer (the WAL checkpoint) shows here.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const settledCpuMs = server.cpuMs() - cpu0;
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
    console.log(`  server CPU for the import ${fmt(importCpuMs)} = ${rps(importCpuMs).toFixed(0)} rows per CPU-second (all threads; SQLite fsyncs are not CPU); ${fmt(settledCpuMs)} by 1 s after the answer`);
    console.log(`  server RSS: idle ${mib(kb(idle, 'VmRSS') * 1024)}, peak through the import ${mib(peakKb * 1024)} = ${((peakKb * 1024) / uploadBytes.length).toFixed(2)}x the file`);
    const parts = ['RssAnon', 'RssFile', 'RssShmem'].map((f) => `${f} ${mib(kb(afterImport, f) * 1024)}`).join(', ');
    console.log(`  server RSS right after the import: ${mib(kb(afterImport, 'VmRSS') * 1024)} (${parts}); added by the import (peak - idle) ${mib((peakKb - kb(idle, 'VmRSS')) * 1024)} = ${(((peakKb - kb(idle, 'VmRSS')) * 1024) / uploadBytes.length).toFixed(2)}x the file (target <= 1x)`);
    console.log(`  rows page (per_page=100, random pages) p50 ${fmt(rowsPage.p50)}  p95 ${fmt(rowsPage.p95)}  max ${fmt(rowsPage.max)}`);
    console.log(`  rows search (q, per_page=30)           p50 ${fmt(search.p50)}  p95 ${fmt(search.p95)}`);
    console.log(`  export CSV ${mib(exported.length)} in ${fmt(exportMs)}; server peak RSS after export ${mib(kb(afterAll, 'VmHWM') * 1024)}`);
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

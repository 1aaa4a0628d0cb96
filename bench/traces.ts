// Traces. (1) Span ingest: POST /v1/traces with OTLP protobuf bodies of 100 spans each (one trace,
// a root and 99 children, every tenth a GenAI span that also becomes a request), against
// POST /log-request in the same run, same generator (autocannon, 10 connections), same server.
// (2) A 10,000-span trace opened in the built UI in Chromium: navigation to the first span row
// painted (target ≤ 1 s), next to the same page with a 5-span trace as the baseline.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRendererBuilt } from '../src-main/renderer-build';
import { createServer } from '../src-server/server';
import { encodeProtobufRequest } from '../src-server/traces/otlp/otlp-protobuf';
import { launchChromium } from '../test/support/chromium';
import { root as repoRoot, startBenchServer } from './support/spawn';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const SPANS_PER_BATCH = 100;
const UI_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const KEY = 'pl_bench_key';

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: value } });

/** One trace of 100 spans as protobuf; fresh ids each time so every span is really stored. */
function batch(i: number): Buffer {
  const traceId = randomBytes(16);
  const rootId = randomBytes(8);
  const t0 = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: SPANS_PER_BATCH }, (_, k) => {
    const genAi = k > 0 && k % 10 === 0;
    return {
      traceId,
      spanId: k === 0 ? rootId : randomBytes(8),
      parentSpanId: k === 0 ? undefined : rootId,
      name: k === 0 ? `agent run ${i}` : genAi ? 'chat gpt-4o-mini' : `step ${k}`,
      kind: genAi ? 3 : 1,
      startTimeUnixNano: String(t0 + BigInt(k) * 1_000_000n),
      endTimeUnixNano: String(t0 + BigInt(k) * 1_000_000n + 800_000n),
      attributes: genAi
        ? [
            str('gen_ai.provider.name', 'openai'), str('gen_ai.request.model', 'gpt-4o-mini'),
            int('gen_ai.usage.input_tokens', 120), int('gen_ai.usage.output_tokens', 30),
            str('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `question ${i}.${k} about weather and travel` }] }])),
            str('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${i}.${k}: sunny, go by train` }] }])),
          ]
        : [str('step.kind', 'tool'), int('step.index', k)],
      status: { code: k % 37 === 0 ? 2 : 0 },
    };
  });
  return Buffer.from(encodeProtobufRequest({
    resourceSpans: [{ resource: { attributes: [str('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
  }));
}

/** A ~1 KB chat log body, the /log-request side of the comparison. */
function logBody(i: number): string {
  return JSON.stringify({
    provider: 'openai', model: 'gpt-4o-mini',
    input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: `question ${i} about weather and travel `.repeat(8) }] }] },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: `answer ${i}: sunny, go by train `.repeat(8) }] }] },
    request_start_time: 1_762_000_000 + i / 100, request_end_time: 1_762_000_000 + i / 100 + 0.5,
    input_tokens: 120, output_tokens: 30,
  });
}

async function load(url: string, path: string, seconds: number, contentType: string, body: (i: number) => Buffer | string) {
  const bodies = Array.from({ length: 500 }, (_, i) => body(i));
  let i = 0;
  const result = await autocannon({
    url, connections: CONNECTIONS, duration: seconds,
    requests: [{ method: 'POST', path, headers: { 'content-type': contentType, 'x-api-key': KEY }, setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${path}: ${bad} failed responses`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function ingest() {
  const dir = mkdtempSync(join(tmpdir(), 'promptledger-bench-traces-'));
  const server = await startBenchServer(dir);
  try {
    console.log(`span ingest: autocannon, ${CONNECTIONS} connections, ${SECONDS} s each, protobuf batch ≈ ${batch(0).length} bytes of ${SPANS_PER_BATCH} spans; load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
    // The same bodies repeat after 500 batches; spans already stored are skipped, so warm-up and
    // measurement each get their own freshly made bodies.
    await load(server.url, '/v1/traces', 2, 'application/x-protobuf', batch);
    await load(server.url, '/log-request', 2, 'application/json', logBody);
    const spans = await load(server.url, '/v1/traces', SECONDS, 'application/x-protobuf', (i) => batch(i + 1000));
    const logs = await load(server.url, '/log-request', SECONDS, 'application/json', (i) => logBody(i + 1000));
    console.log(`  (a) POST /log-request     ${logs.rps.toFixed(0).padStart(6)} req/s              p50 ${logs.p50.toFixed(1)} ms  p99 ${logs.p99.toFixed(1)} ms`);
    console.log(`  (b) POST /v1/traces       ${spans.rps.toFixed(0).padStart(6)} batch/s = ${(spans.rps * SPANS_PER_BATCH).toFixed(0).padStart(6)} spans/s  p50 ${spans.p50.toFixed(1)} ms  p99 ${spans.p99.toFixed(1)} ms`);
    console.log(`  spans/s ÷ requests/s: ${((spans.rps * SPANS_PER_BATCH) / logs.rps).toFixed(1)}; load average after ${loadavg()[0].toFixed(1)}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ui() {
  const dir = mkdtempSync(join(tmpdir(), 'promptledger-bench-traces-ui-'));
  const staticDir = await ensureRendererBuilt({ root: repoRoot });
  const server = await createServer({ dataDir: dir, port: 0, apiKey: KEY, staticDir });
  const browser = await launchChromium();
  try {
    const send = (spans: unknown[]) =>
      fetch(`${server.url}/spans-bulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ spans }) });
    const trace = (count: number) => {
      const traceId = randomBytes(16).toString('hex');
      const rootId = randomBytes(8).toString('hex');
      const t0 = BigInt(Date.now()) * 1_000_000n;
      return {
        traceId,
        spans: Array.from({ length: count }, (_, k) => ({
          name: k === 0 ? 'big trace' : `step ${k}`, context: { trace_id: traceId, span_id: k === 0 ? rootId : randomBytes(8).toString('hex') },
          kind: 'SpanKind.INTERNAL', parent_id: k === 0 ? null : rootId,
          start_time: String(t0 + BigInt(k) * 100_000n), end_time: String(t0 + BigInt(k) * 100_000n + 80_000n + (k === 0 ? BigInt(count) * 100_000n : 0n)),
          status: { status_code: 'StatusCode.OK' }, attributes: { 'step.index': k }, events: [], resource: { attributes: {} },
        })),
      };
    };
    const big = trace(10_000);
    const small = trace(5);
    for (const t of [big, small]) if (!(await send(t.spans)).ok) throw new Error('seeding failed');

    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(`${server.url}/traces#key=${KEY}`);
    await page.getByTestId('trace-count').waitFor();
    const open = async (traceId: string) => {
      const t0 = Date.now();
      await page.goto(`${server.url}/traces?trace=${traceId}`);
      await page.locator('[role="treeitem"]').first().waitFor();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
      return Date.now() - t0;
    };
    const times = { big: [] as number[], small: [] as number[] };
    await open(big.traceId);
    for (let i = 0; i < UI_RUNS; i++) {
      times.small.push(await open(small.traceId));
      times.big.push(await open(big.traceId));
    }
    const rows = await page.locator('[role="treeitem"]').count();
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`trace view (page load to first span row painted, ${UI_RUNS} runs; load average ${loadavg()[0].toFixed(1)}):`);
    console.log(`  5-span trace (baseline)  p50 ${p50(times.small)} ms  max ${Math.max(...times.small)} ms`);
    console.log(`  10,000-span trace        p50 ${p50(times.big)} ms  max ${Math.max(...times.big)} ms  (target ≤ 1000 ms; ${rows} rows in the DOM)`);
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await ingest();
await ui();

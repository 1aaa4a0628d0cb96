import { get } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

/** A fresh workspace (its own key), so each test counts only the requests it logged. */
async function workspace(): Promise<string> {
  return (await workspaceWithId()).key;
}
async function workspaceWithId(): Promise<{ key: string; id: number }> {
  const res = await t.api('/api/public/v2/workspaces', { body: { name: `ws-${Math.random()}` } });
  expect(res.status).toBe(201);
  return { key: res.body.api_key as string, id: res.body.workspace.id as number };
}

async function log(key: string, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api('/log-request', { body: logBody(overrides), key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

async function download(path: string, key: string) {
  const res = await fetch(t.url + path, { headers: { 'X-API-KEY': key } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}
const text = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

const minute = (m: number) => ({
  request_start_time: new Date(Date.UTC(2026, 10, 1, 12, m)).toISOString(),
  request_end_time: new Date(Date.UTC(2026, 10, 1, 12, m, 1)).toISOString(),
});

describe('GET /api/public/v2/requests/export', () => {
  it('streams JSONL: one record per line, exactly as GET …/requests/{id} returns it, newest first', async () => {
    const key = await workspace();
    const a = await log(key, { ...minute(1), tags: ['keep'], metadata: { env: 'prod' }, score: 80 });
    const b = await log(key, { ...minute(2), tags: ['keep'] });
    await log(key, { ...minute(3), tags: ['other'] });
    const res = await download('/api/public/v2/requests/export?format=jsonl&tags=keep', key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="requests-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.jsonl"$/);
    const lines = text(res.bytes).split('\n');
    expect(lines.pop()).toBe('');
    const records = lines.map((l) => JSON.parse(l) as { id: number });
    expect(records.map((r) => r.id)).toEqual([b, a]);
    for (const record of records) expect(record).toEqual((await t.api(`/api/public/v2/requests/${record.id}`, { key })).body);
  });

  it('streams CSV with the columns of API.md §7 (JSON values as JSON text), no byte order mark unless asked', async () => {
    const key = await workspace();
    const id = await log(key, { ...chat('Hi, "you"', 'Line one\nline two'), tags: ['a', 'b'], metadata: { env: 'prod' }, score: 75, input_tokens: 12, output_tokens: 3, price: 0.0042 });
    const res = await download('/api/public/v2/requests/export?format=csv', key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/filename="requests-.*\.csv"$/);
    expect(res.bytes[0]).toBe('i'.charCodeAt(0));
    const parsed = Papa.parse<Record<string, string>>(text(res.bytes), { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual([
      'id', 'request_start_time', 'request_end_time', 'provider', 'model', 'status', 'input_tokens', 'output_tokens', 'price',
      'latency_ms', 'tags', 'metadata', 'scores', 'note', 'prompt_name', 'prompt_version', 'input', 'output',
    ]);
    expect(parsed.data).toHaveLength(1);
    const row = parsed.data[0];
    const record = (await t.api(`/api/public/v2/requests/${id}`, { key })).body;
    expect(row.id).toBe(String(id));
    expect(row.request_start_time).toBe(record.request_start_time);
    expect(row.status).toBe('SUCCESS');
    expect([row.input_tokens, row.output_tokens, row.price, row.latency_ms]).toEqual(['12', '3', '0.0042', '1250']);
    expect(JSON.parse(row.tags)).toEqual(['a', 'b']);
    expect(JSON.parse(row.metadata)).toEqual({ env: 'prod' });
    expect(JSON.parse(row.scores)).toEqual({ default: 75 });
    expect(JSON.parse(row.input)).toEqual(record.input);
    expect(JSON.parse(row.output)).toEqual(record.output);
    expect([row.note, row.prompt_name, row.prompt_version]).toEqual(['', '', '']);
  });

  it('starts the CSV with a UTF-8 byte order mark with bom=true (for spreadsheet apps)', async () => {
    const key = await workspace();
    await log(key, chat('Grüße, 東京'));
    const res = await download('/api/public/v2/requests/export?format=csv&bom=true', key);
    expect(res.status).toBe(200);
    expect([...res.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text(res.bytes.slice(3))).toMatch(/^id,request_start_time,/);
    expect(text(res.bytes)).toContain('Grüße, 東京');
  });

  it('neutralises cells a spreadsheet would run as formulas', async () => {
    const key = await workspace();
    const risky = ['=HYPERLINK("http://x")', '+1+cmd', '-2+3', '@SUM(A1)', '\tTAB', '\rCR'];
    for (const [i, value] of risky.entries()) await log(key, { ...minute(i), model: value, tags: [value] });
    const res = await download('/api/public/v2/requests/export?format=csv', key);
    const rows = Papa.parse<Record<string, string>>(text(res.bytes), { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => r.model).sort()).toEqual(risky.map((v) => `'${v}`).sort());
    // JSON text starts with [ or {, never a formula character.
    expect(rows.every((r) => r.tags.startsWith('['))).toBe(true);
  });

  it('answers 422 naming the parameter for an unknown format, a bad filter, or a BOM on JSONL', async () => {
    const key = await workspace();
    for (const [query, loc] of [['format=xlsx', 'format'], ['format=csv&score_min=101', 'score_min'], ['format=jsonl&bom=true', 'bom'], ['format=csv&bom=yes', 'bom']]) {
      const res = await t.api(`/api/public/v2/requests/export?${query}`, { key });
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', loc]);
    }
  });

  it("exports only the caller's workspace, and an empty match is an empty file", async () => {
    const key = await workspace();
    await log(key);
    const other = await workspace();
    expect(text((await download('/api/public/v2/requests/export?format=jsonl', other)).bytes)).toBe('');
    const csv = text((await download('/api/public/v2/requests/export?format=csv', other)).bytes);
    expect(csv.trim().split('\r\n')).toHaveLength(1);
  });

  it('streams 100,000 requests with bounded memory: the heap never grows by a fraction of the export', async () => {
    const key = await workspace();
    // One request through the real log path, copied 99,999 times in SQL with its start time moved:
    // seconds, where 100k HTTP calls (or store inserts with their indexes) take a minute on a busy machine.
    const template = await log(key, { ...chat(`Tell me a story. ${'lorem ipsum dolor sit amet '.repeat(15)}`, 'Once upon a time'), tags: ['bulk'] });
    const columns = `workspace_id, provider, model, input, output, request_end_time, latency_ms, parameters, tags, metadata,
      prompt_input_variables, input_tokens, output_tokens, price, function_name, status, created_at`;
    t.server.db.prepare(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
      INSERT INTO requests (${columns}, request_start_time) SELECT ${columns}, request_start_time - i * 1000 FROM requests, n WHERE id = ?`).run(template);
    const started = Date.now();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    let bytes = 0;
    let lines = 0;
    // node:http rather than fetch: the client shares this process, and its own buffering and CPU
    // should not blur the server's figure.
    const status = await new Promise<number>((resolve, reject) => {
      const req = get(`${t.url}/api/public/v2/requests/export?format=jsonl`, { headers: { 'X-API-KEY': key } }, (res) => {
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
          peak = Math.max(peak, process.memoryUsage().heapUsed);
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    expect(status).toBe(200);
    const growth = peak - baseline;
    console.log(`export: ${lines} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${Date.now() - started} ms; heap growth ${(growth / 2 ** 20).toFixed(1)} MiB`);
    expect(lines).toBe(100_000);
    expect(bytes).toBeGreaterThan(120 * 2 ** 20);
    // Rows held in memory would grow the heap by at least the export's size; streaming holds one
    // page (~0.3 MiB) plus garbage the collector has not reached yet (~25 MiB measured).
    expect(growth).toBeLessThan(Math.min(64 * 2 ** 20, bytes / 2));
    // ~5 s on an idle machine; 25–60 s measured with the whole suite on 2 shared cores.
  }, 180_000);
});

const count = (sql: string, ...params: unknown[]) => (t.server.db.prepare(sql).get(...params) as { n: number }).n;

describe('DELETE /api/public/v2/requests/{id}', () => {
  it('deletes one request: 200 {success, deleted: 1}, then 404 on read and on a second delete', async () => {
    const key = await workspace();
    const id = await log(key);
    const res = await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE', key });
    expect(res).toMatchObject({ status: 200, body: { success: true, deleted: 1 } });
    expect((await t.api(`/api/public/v2/requests/${id}`, { key })).status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE', key })).status).toBe(404);
  });

  it("answers 404 for another workspace's request and leaves it in place", async () => {
    const owner = await workspace();
    const id = await log(owner);
    const res = await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE', key: await workspace() });
    expect(res.status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${id}`, { key: owner })).status).toBe(200);
  });

  it('removes everything that belongs to the request: tags, metadata, scores, text index, dashboard and trace totals', async () => {
    const key = await workspace();
    const keep = await log(key, { ...chat('zebra crossing kept'), tags: ['t'], price: 0.5, input_tokens: 7 });
    const spanId = 'abcdef0123456789';
    const traceId = '0123456789abcdef0123456789abcdef';
    const id = await log(key, { ...chat('zebra crossing gone'), tags: ['t', 'u'], metadata: { env: 'prod' }, score: 30, price: 0.25, input_tokens: 5, status: 'ERROR', span_id: spanId });
    expect((await t.api('/spans-bulk', { key, body: { spans: [bulkSpan(traceId, spanId)] } })).status).toBe(200);
    await t.api('/rest/track-score', { key, body: { request_id: id, score: 10, name: 'review' } });
    expect(count('SELECT request_count AS n FROM traces WHERE trace_id = ?', traceId)).toBe(1);
    const before = (await t.api('/api/public/v2/requests/stats', { key })).body.totals;
    expect(before).toMatchObject({ requests: 2, errors: 1, cost: 0.75 });

    expect((await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE', key })).status).toBe(200);

    const ids = async (query: string) => (await t.api(`/api/public/v2/requests?${query}`, { key })).body.items.map((r: { id: number }) => r.id);
    expect(await ids('q=zebra')).toEqual([keep]);
    expect(await ids('q=gone')).toEqual([]);
    expect(await ids('tags=u')).toEqual([]);
    expect(await ids('metadata[env]=prod')).toEqual([]);
    expect(await ids('score_min=0')).toEqual([]);
    for (const table of ['request_tags', 'request_metadata', 'request_scores']) {
      expect(count(`SELECT count(*) AS n FROM ${table} WHERE request_id = ?`, id), table).toBe(0);
    }
    expect(count("SELECT count(*) AS n FROM requests_fts WHERE requests_fts MATCH '\"gone\"'")).toBe(0);
    expect((await t.api('/api/public/v2/requests/stats', { key })).body.totals).toMatchObject({ requests: 1, errors: 0, cost: 0.5, input_tokens: 7 });
    expect(count('SELECT request_count AS n FROM traces WHERE trace_id = ?', traceId)).toBe(0);
    const trace = (await t.api(`/api/public/v2/traces/${traceId}`, { key })).body;
    expect(trace.spans[0].request_id ?? null).toBeNull();
  });

  it('leaves dataset versions built from the request intact (their rows are copies)', async () => {
    const key = await workspace();
    const id = await log(key, chat('copy me'));
    const group = (await t.api('/api/public/v2/dataset-groups', { key, body: { name: 'from requests' } })).body.dataset_group.id;
    const made = await t.api('/api/public/v2/dataset-versions/from-filter-params', { key, body: { dataset_group_id: group, request_log_ids: [id] } });
    expect(made.status).toBe(201);
    await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE', key });
    const rows = await t.api(`/api/public/v2/datasets/${made.body.dataset_id}/rows`, { key });
    expect(rows.body.rows).toHaveLength(1);
    expect(rows.body.rows[0].data.request_id).toBe(id);
  });
});

describe('POST /api/public/v2/requests/delete', () => {
  const remove = (key: string, body: unknown) => t.api('/api/public/v2/requests/delete', { key, body });

  it("deletes by ids; unknown ids and another workspace's count 0; a repeated id counts once", async () => {
    const key = await workspace();
    const [a, b, c] = [await log(key), await log(key), await log(key)];
    const other = await workspace();
    const foreign = await log(other);
    const res = await remove(key, { ids: [a, b, b, foreign, 999_999_999] });
    expect(res).toMatchObject({ status: 200, body: { deleted: 2 } });
    expect((await t.api(`/api/public/v2/requests/${c}`, { key })).status).toBe(200);
    expect((await t.api(`/api/public/v2/requests/${foreign}`, { key: other })).status).toBe(200);
  });

  it('deletes by the explorer filters, numbers given as JSON numbers or as query-string text', async () => {
    const key = await workspace();
    const old = await log(key, { ...minute(1), tags: ['drop'] });
    const keepNew = await log(key, { ...minute(30), tags: ['drop'] });
    const keepTag = await log(key, { ...minute(2), tags: ['keep'] });
    const cutoff = Date.UTC(2026, 10, 1, 12, 10) / 1000;
    expect((await remove(key, { filters: { tags: ['drop'], end_time: cutoff } })).body).toEqual({ success: true, deleted: 1 });
    expect((await t.api(`/api/public/v2/requests/${old}`, { key })).status).toBe(404);
    expect((await remove(key, { filters: { tags: 'drop', start_time: String(cutoff) } })).body.deleted).toBe(1);
    expect((await t.api(`/api/public/v2/requests/${keepNew}`, { key })).status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${keepTag}`, { key })).status).toBe(200);
  });

  it('answers 422 for neither, both, an empty or oversized id list, an unknown filter or a bad value, and deletes nothing', async () => {
    const key = await workspace();
    const id = await log(key);
    const cases: Array<[unknown, Array<string | number>]> = [
      [{}, ['body', 'ids']],
      [{ ids: [id], filters: {} }, ['body', 'ids']],
      [{ ids: [] }, ['body', 'ids']],
      [{ ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }, ['body', 'ids']],
      [{ ids: [0] }, ['body', 'ids', 0]],
      [{ filters: { tag: 'typo' } }, ['body', 'filters']],
      [{ filters: { score_min: 101 } }, ['body', 'filters', 'score_min']],
    ];
    for (const [body, loc] of cases) {
      const res = await remove(key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect((await t.api(`/api/public/v2/requests/${id}`, { key })).status).toBe(200);
  });

  it('takes 10,000 ids, the most one call may name', async () => {
    const key = await workspace();
    const id = await log(key);
    const ids = Array.from({ length: 10_000 }, (_, i) => (i === 0 ? id : 2_000_000_000 + i));
    expect((await remove(key, { ids })).body).toEqual({ success: true, deleted: 1 });
  });

  it('deletes a large match in bounded transactions: a request logged meanwhile is answered before the delete ends', async () => {
    const key = await workspace();
    const template = await log(key, { tags: ['mass'] });
    // 10,000 copies (twenty batches) with their tag rows (the filter walks request_tags), seeded in SQL for speed.
    t.server.db.transaction(() => {
      const columns = `workspace_id, provider, model, input, output, request_end_time, latency_ms, parameters, tags, metadata,
        prompt_input_variables, input_tokens, output_tokens, price, function_name, status, created_at`;
      t.server.db.prepare(`
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
        INSERT INTO requests (${columns}, request_start_time) SELECT ${columns}, request_start_time - i * 1000 FROM requests, n WHERE id = ?`).run(template);
      t.server.db.prepare(`INSERT INTO request_tags (request_id, workspace_id, tag, request_start_time)
        SELECT id, workspace_id, 'mass', request_start_time FROM requests WHERE workspace_id = (SELECT workspace_id FROM requests WHERE id = ?) AND id != ?`).run(template, template);
    })();
    const workspaceId = (t.server.db.prepare('SELECT workspace_id FROM requests WHERE id = ?').get(template) as { workspace_id: number }).workspace_id;
    const massLeft = t.server.db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM request_tags WHERE workspace_id = ? AND tag = 'mass'");
    let deleteDone = false;
    const deleting = remove(key, { filters: { tags: ['mass'] } }).finally(() => (deleteDone = true));
    // The delete is under way: its first batch of 500 has committed (read in this process, where
    // the server runs; every turn of the event loop, so before its next batch), so 19 batches and
    // their 20 ms pauses are still ahead of it. The 50 ms sleep this replaces could end before the
    // delete began, and then the log below was not logged meanwhile at all.
    while (massLeft.get(workspaceId)!.n === 10_001) await new Promise((resolve) => setImmediate(resolve));
    const logged = await log(key, { tags: ['meanwhile'] });
    expect(deleteDone).toBe(false);
    expect((await deleting).body).toEqual({ success: true, deleted: 10_001 });
    expect((await t.api(`/api/public/v2/requests/${logged}`, { key })).status).toBe(200);
  });
});

/** A span as the PromptLayer JS SDK's exporter writes it to /spans-bulk. */
function bulkSpan(traceId: string, spanId: string) {
  const start = 1_790_000_000n * 1_000_000_000n;
  return {
    name: 'llm call', context: { trace_id: traceId, span_id: spanId, trace_state: '' }, kind: 'SpanKind.CLIENT', parent_id: null,
    start_time: String(start), end_time: String(start + 1_000_000_000n), status: { status_code: 'StatusCode.OK' },
    attributes: {}, events: [], links: [], resource: { attributes: {}, schema_url: '' },
  };
}

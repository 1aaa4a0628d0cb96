import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { call, startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
let groupCounter = 0;

async function group(server = t) {
  const res = await server.api('/api/public/v2/dataset-groups', { body: { name: `transfer-${++groupCounter}` } });
  expect(res.status).toBe(201);
  return res.body.dataset_group.id as number;
}

async function upload(groupId: number, fileName: string, text: string) {
  return t.api('/api/public/v2/dataset-versions/from-file', {
    body: { dataset_group_id: groupId, file_name: fileName, file_content_base64: b64(text) },
  });
}

async function allRows(datasetId: number) {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const res = await t.api(`/api/public/v2/datasets/${datasetId}/rows?per_page=100&page=${page}`);
    expect(res.status).toBe(200);
    rows.push(...res.body.rows.map((r: { data: unknown }) => r.data));
    if (!res.body.has_next) return { columns: res.body.columns as string[], rows };
  }
}

async function exported(datasetId: number, format: 'csv' | 'jsonl') {
  const res = await fetch(`${t.url}/api/public/v2/datasets/${datasetId}/export?format=${format}`, { headers: { 'X-API-KEY': t.key } });
  expect(res.status).toBe(200);
  return { text: await res.text(), type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') };
}

const tricky = [
  'id,text,empty,unicode',
  '1,"comma, inside",,"日本語"',
  '2,"quote "" inside",,"émoji 😀"',
  '3,"new\nline and\r\nCRLF",,plain',
  '4, leading space ,,"trailing space "',
].join('\r\n');

describe('export', () => {
  it('round-trips CSV: import → export → import gives identical rows', async () => {
    const groupId = await group();
    const first = await upload(groupId, 'tricky.csv', tricky);
    expect(first.status).toBe(201);
    const csv = await exported(first.body.dataset_id, 'csv');
    expect(csv.type).toMatch(/^text\/csv/);
    expect(csv.disposition).toMatch(/attachment; filename="transfer-\d+-v1\.csv"/);
    const second = await upload(groupId, 'again.csv', csv.text);
    expect(second.status).toBe(201);
    const a = await allRows(first.body.dataset_id);
    expect(a.rows).toHaveLength(4);
    expect(a.rows[2]).toMatchObject({ text: 'new\nline and\r\nCRLF' });
    expect(await allRows(second.body.dataset_id)).toEqual(a);
  });

  it('round-trips JSONL with typed values, and exports nested values as JSON text in CSV', async () => {
    const groupId = await group();
    const records = [{ q: 'a', n: 1.5, ok: true, tags: ['x', 'y'], meta: { k: 'v' } }, { q: 'b', n: null, ok: false, tags: [], meta: {} }];
    const first = await upload(groupId, 'typed.json', JSON.stringify(records));
    const jsonl = await exported(first.body.dataset_id, 'jsonl');
    expect(jsonl.type).toMatch(/^application\/x-ndjson/);
    expect(jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(records);
    const second = await upload(groupId, 'typed.jsonl', jsonl.text);
    expect(await allRows(second.body.dataset_id)).toEqual(await allRows(first.body.dataset_id));
    const csv = await exported(first.body.dataset_id, 'csv');
    expect(csv.text).toBe('q,n,ok,tags,meta\r\na,1.5,true,"[""x"",""y""]","{""k"":""v""}"\r\nb,,false,[],{}\r\n');
  });

  it('streams a large version in row order (more rows than one read chunk)', async () => {
    const groupId = await group();
    const lines = ['i,payload', ...Array.from({ length: 5000 }, (_, i) => `${i},"${'x'.repeat(i % 50)}, row ${i}"`)];
    const v = await upload(groupId, 'big.csv', lines.join('\n'));
    expect(v.status).toBe(201);
    const jsonl = (await exported(v.body.dataset_id, 'jsonl')).text.trimEnd().split('\n');
    expect(jsonl).toHaveLength(5000);
    expect(jsonl.map((l) => Number(JSON.parse(l).i))).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    const csv = await exported(v.body.dataset_id, 'csv');
    expect(csv.text.split('\r\n')).toHaveLength(5002);
    expect((await t.api(`/api/public/v2/datasets/${v.body.dataset_id}/export?format=xlsx`)).status).toBe(422);
  });

  it('keeps every byte of a file that outgrows the import\'s 64 KiB starting buffers several times over', async () => {
    // ~3.2 MB of CSV: the upload's spool, the read buffer and the row batch each start at 64 KiB and
    // double while it arrives; each row's text differs, so a byte lost or moved at a doubling shows.
    const groupId = await group();
    const text = (i: number) => `row ${i} ${String(i * 7919).padStart(12, '0')} ${'abcdefghij'.repeat(1 + (i % 9))}`;
    const lines = ['i,text', ...Array.from({ length: 40_000 }, (_, i) => `${i},${text(i)}`)];
    const file = lines.join('\n');
    expect(file.length).toBeGreaterThan(3 * 1024 * 1024);
    const v = await upload(groupId, 'grows.csv', file);
    expect(v.status).toBe(201);
    const jsonl = (await exported(v.body.dataset_id, 'jsonl')).text.trimEnd().split('\n');
    expect(jsonl).toHaveLength(40_000);
    jsonl.forEach((line, i) => expect(JSON.parse(line)).toEqual({ i: String(i), text: text(i) }));
  });
});

describe('from-filter-params', () => {
  it('builds a version from the explorer filters with input variables, input, output, model and tags', async () => {
    const tag = `ff-${Date.now()}`;
    const bodies = [
      logBody({ ...chat('What is 2+2?', 'Four.'), tags: [tag], model: 'gpt-4o', prompt_input_variables: { a: '2', b: '2' }, request_start_time: '2026-11-02T10:00:00Z', request_end_time: '2026-11-02T10:00:01Z' }),
      logBody({ ...chat('Capital of France?', 'Paris.'), tags: [tag, 'geo'], model: 'gpt-4o', prompt_input_variables: { country: 'France' }, request_start_time: '2026-11-03T10:00:00Z', request_end_time: '2026-11-03T10:00:01Z' }),
      logBody({ ...chat('Ignored', 'nope'), tags: [tag], model: 'claude-3', request_start_time: '2026-11-04T10:00:00Z', request_end_time: '2026-11-04T10:00:01Z' }),
    ];
    const ids: number[] = [];
    for (const body of bodies) ids.push((await t.api('/log-request', { body })).body.id);
    const groupId = await group();
    const res = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, tags: [tag], model: 'gpt-4o' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, version_number: 1, row_count: 2 });
    const rows = await allRows(res.body.dataset_id);
    expect(rows.columns).toEqual(['country', 'input', 'output', 'model', 'tags', 'request_id', 'a', 'b']);
    // Explorer order: newest first.
    expect(rows.rows).toEqual([
      { country: 'France', input: [{ role: 'user', content: 'Capital of France?' }], output: 'Paris.', model: 'gpt-4o', tags: [tag, 'geo'], request_id: ids[1], a: null, b: null },
      { country: null, input: [{ role: 'user', content: 'What is 2+2?' }], output: 'Four.', model: 'gpt-4o', tags: [tag], request_id: ids[0], a: '2', b: '2' },
    ]);

    const parsed = await t.api('/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: groupId, tags: [tag], variables_to_parse: ['a'], limit: 1, q: 'France' },
    });
    expect(parsed.status).toBe(201);
    expect(parsed.body.version_number).toBe(2);
    expect(await allRows(parsed.body.dataset_id)).toEqual({
      columns: ['a', 'input', 'output', 'model', 'tags', 'request_id'],
      rows: [{ a: null, input: [{ role: 'user', content: 'Capital of France?' }], output: 'Paris.', model: 'gpt-4o', tags: [tag, 'geo'], request_id: ids[1] }],
    });

    const timeRange = await t.api('/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: groupId, tags: [tag], start_time: '2026-11-03T00:00:00Z', end_time: '2026-11-05T00:00:00Z' },
    });
    expect((await allRows(timeRange.body.dataset_id)).rows.map((r) => (r as { request_id: number }).request_id)).toEqual([ids[2], ids[1]]);
  });

  it('honours metadata, score and prompt filters', async () => {
    const run = `run-${Date.now()}`;
    const logged: number[] = [];
    for (const [score, prompt_id] of [[90, 7001], [40, 7001], [95, 7002]] as const) {
      const res = await t.api('/log-request', { body: logBody({ ...chat(`scored ${score}`), metadata: { run }, score, prompt_id }) });
      logged.push(res.body.id);
    }
    const groupId = await group();
    const res = await t.api('/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: groupId, metadata: { run }, score_min: 80, prompt_id: 7001 },
    });
    expect(res.status).toBe(201);
    expect((await allRows(res.body.dataset_id)).rows.map((r) => (r as { request_id: number }).request_id)).toEqual([logged[0]]);
    const bad = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, score_min: 101 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'score_min']);
  });

  it('builds a version from request ids in the given order; unknown ids are 404 and nothing is created', async () => {
    const a = (await t.api('/log-request', { body: logBody(chat('first')) })).body.id as number;
    const b = (await t.api('/log-request', { body: logBody(chat('second')) })).body.id as number;
    const groupId = await group();
    const res = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, request_log_ids: [b, a] } });
    expect(res.status).toBe(201);
    expect((await allRows(res.body.dataset_id)).rows.map((r) => (r as { request_id: number }).request_id)).toEqual([b, a]);
    const bad = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, request_log_ids: [a, 99999999] } });
    expect(bad.status).toBe(404);
    expect(bad.body.detail[0].loc).toEqual(['body', 'request_log_ids', 1]);
    const none = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, tags: ['no-such-tag-anywhere'] } });
    expect(none.status).toBe(400);
    const zeroLimit = await t.api('/api/public/v2/dataset-versions/from-filter-params', { body: { dataset_group_id: groupId, limit: 0 } });
    expect(zeroLimit.status).toBe(422);
    expect(zeroLimit.body.detail[0].loc).toEqual(['body', 'limit']);
    const versions = (await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=false`)).body.datasets;
    expect(versions.map((v: { version_number: number }) => v.version_number)).toEqual([1]);
  });
});

describe('upload size and durability', () => {
  it('bounds the decoded file by the body limit (413) while its base64 may exceed it', async () => {
    const small = await startServer({ bodyLimitBytes: 3000 });
    try {
      const groupId = await group(small);
      const fits = `x\n${'a'.repeat(2990)}\n`; // 2,994 bytes; its base64 is 3,992, over the body limit
      const ok = await small.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: b64(fits) } });
      expect(ok.status).toBe(201);
      const tooBig = `x\n${'a'.repeat(3000)}\n`;
      const over = await small.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: b64(tooBig) } });
      expect(over.status).toBe(413);
      const huge = await call(small.url, '/api/public/v2/dataset-versions/from-file', {
        key: small.key,
        body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: b64('x'.repeat(2_000_000)) },
      });
      expect(huge.status).toBe(413);
      const versions = (await small.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`)).body.datasets;
      expect(versions.map((v: { version_number: number }) => v.version_number)).toEqual([-1, 1]);
    } finally {
      await small.close();
    }
  });

  it('removes the rows of an import cut short by a crash at the next start', async () => {
    const groupId = await group();
    // What a crash mid-import leaves: a dataset with no number yet, and some of its rows.
    const db = t.server.db;
    const pending = Number(db.prepare('INSERT INTO datasets (dataset_group_id, version_number, column_names, row_count, created_at) VALUES (?, NULL, ?, 0, 0)').run(groupId, '["a"]').lastInsertRowid);
    db.prepare('INSERT INTO dataset_rows (dataset_id, row_index, data) VALUES (?, 0, ?), (?, 1, ?)').run(pending, '{"a":1}', pending, '{"a":2}');
    expect((await t.api(`/api/public/v2/datasets/${pending}/rows`)).status).toBe(404);
    await t.restart();
    const left = t.server.db.prepare('SELECT (SELECT count(*) FROM datasets WHERE id = ?) + (SELECT count(*) FROM dataset_rows WHERE dataset_id = ?) AS n').get(pending, pending) as { n: number };
    expect(left.n).toBe(0);
    const next = await upload(groupId, 'after.csv', 'a\n1\n');
    expect(next.body.version_number).toBe(1);
  });

  it('answers a bad upload with 422 even while a large body is still arriving', async () => {
    const groupId = await group();
    const body = `{"dataset_group_id": ${groupId}, "file_name": "a.csv", "file_content_base64": "!!${'QUFB'.repeat(2_000_000)}"}`;
    const res = await t.api('/api/public/v2/dataset-versions/from-file', { rawBody: body });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file_content_base64'], msg: 'Not valid base64' });
    expect((await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`)).body.datasets).toHaveLength(1);
  });

  it('keeps versions and rows across a restart', async () => {
    const groupId = await group();
    const v = await upload(groupId, 'keep.csv', 'k\nv1\nv2\n');
    await t.restart();
    expect(await allRows(v.body.dataset_id)).toEqual({ columns: ['k'], rows: [{ k: 'v1' }, { k: 'v2' }] });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

async function group(name = `group-${Math.random().toString(36).slice(2)}`) {
  const res = await t.api('/api/public/v2/dataset-groups', { body: { name } });
  expect(res.status).toBe(201);
  return res.body as { dataset_group: { id: number; name: string; workspace_id: number }; dataset: { id: number; version_number: number } };
}

function upload(groupId: number, fileName: string, text: string) {
  return t.api('/api/public/v2/dataset-versions/from-file', {
    body: { dataset_group_id: groupId, file_name: fileName, file_content_base64: b64(text) },
  });
}

async function rowsOf(datasetId: number, query = '') {
  const res = await t.api(`/api/public/v2/datasets/${datasetId}/rows?per_page=100${query}`);
  expect(res.status).toBe(200);
  return res.body as { columns: string[]; rows: Array<{ row_index: number; data: Record<string, unknown> }>; total: number; pages: number };
}

async function versionsOf(groupId: number) {
  const res = await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`);
  expect(res.status).toBe(200);
  return res.body.datasets as Array<{ id: number; version_number: number; row_count: number; column_names: string[] }>;
}

describe('dataset groups', () => {
  it('creates a group with its draft and lists it', async () => {
    const created = await group('support tickets');
    expect(created).toMatchObject({ success: true, dataset_group: { name: 'support tickets' }, dataset: { version_number: -1 } });
    expect(created.dataset_group.workspace_id).toBeGreaterThan(0);
    const versions = await versionsOf(created.dataset_group.id);
    expect(versions).toEqual([expect.objectContaining({ id: created.dataset.id, version_number: -1, row_count: 0, column_names: [] })]);
    const list = await t.api('/api/public/v2/dataset-groups?name=support');
    expect(list.status).toBe(200);
    expect(list.body.items.map((g: { id: number }) => g.id)).toContain(created.dataset_group.id);
    expect(list.body.items[0]).toMatchObject({ draft_dataset_id: created.dataset.id, latest_version: null, version_count: 0 });
  });

  it('refuses a duplicate name with 409 and bad names with 422', async () => {
    await group('dup-name');
    expect((await t.api('/api/public/v2/dataset-groups', { body: { name: 'dup-name' } })).status).toBe(409);
    const empty = await t.api('/api/public/v2/dataset-groups', { body: { name: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'name']);
  });

  it('checks folder_id: 0 is 422, an unknown folder 404, a real one is kept', async () => {
    const zero = await t.api('/api/public/v2/dataset-groups', { body: { name: 'f0', folder_id: 0 } });
    expect(zero.status).toBe(422);
    expect(zero.body.detail[0].loc).toEqual(['body', 'folder_id']);
    expect((await t.api('/api/public/v2/dataset-groups', { body: { name: 'f-missing', folder_id: 999999 } })).status).toBe(404);
    const folder = await t.api('/api/public/v2/folders', { body: { name: 'evals' } });
    const inFolder = await t.api('/api/public/v2/dataset-groups', { body: { name: 'f1', folder_id: folder.body.folder.id } });
    expect(inFolder.status).toBe(201);
    const listed = await t.api(`/api/public/v2/dataset-groups?folder_id=${folder.body.folder.id}`);
    expect(listed.body.items.map((g: { name: string }) => g.name)).toEqual(['f1']);
  });
});

describe('from-file', () => {
  it('imports CSV with quotes, commas and newlines inside fields, empty cells, CRLF and a BOM', async () => {
    const g = await group();
    const csv = '\uFEFFquestion,answer,notes\r\n"Hi, there","She said ""yes""\nthen left",\r\nplain,,"x"\r\n\r\nnon-ascii,日本語 ü,😀\r\n';
    const res = await upload(g.dataset_group.id, 'qa.csv', csv);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, version_number: 1 });
    const rows = await rowsOf(res.body.dataset_id);
    expect(rows.columns).toEqual(['question', 'answer', 'notes']);
    expect(rows.rows).toEqual([
      { row_index: 0, data: { question: 'Hi, there', answer: 'She said "yes"\nthen left', notes: '' } },
      { row_index: 1, data: { question: 'plain', answer: '', notes: 'x' } },
      { row_index: 2, data: { question: 'non-ascii', answer: '日本語 ü', notes: '😀' } },
    ]);
  });

  it('imports a header-only CSV as a version with columns and no rows', async () => {
    const g = await group();
    const res = await upload(g.dataset_group.id, 'empty.csv', 'a,b,c\n');
    expect(res.status).toBe(201);
    const [v] = (await versionsOf(g.dataset_group.id)).filter((d) => d.version_number === 1);
    expect(v).toMatchObject({ row_count: 0, column_names: ['a', 'b', 'c'] });
  });

  it.each([
    ['duplicate headers', 'a,b,a\n1,2,3\n', /line 1: the header names column 'a' twice/],
    ['too many fields', 'a,b\n1,2\n3,4,5\n', /line 3: 3 fields, but the header has 2 columns/],
    ['too few fields', 'a,b\n1,2\n"multi\nline",4\n5\n', /line 5: 1 field, but the header has 2 columns/],
    ['an unclosed quote', 'a,b\n1,2\n"oops,3\n4,5\n', /line 3: quoted field unterminated/],
    ['an empty header name', 'a,,c\n1,2,3\n', /line 1: the header \(column 2\) has an empty column name/],
    ['an empty file', '', /line 1: the file is empty/],
  ])('rejects a CSV with %s: 422 naming the line, nothing created', async (_name, csv, message) => {
    const g = await group();
    const res = await upload(g.dataset_group.id, 'bad.csv', csv);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    expect(res.body.detail[0].loc).toEqual(['body', 'file_content_base64']);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(1); // only the draft
  });

  it('writes nothing when the bad line comes after several batches of good rows', async () => {
    const g = await group();
    const count = () => (t.server.db.prepare('SELECT count(*) AS n FROM dataset_rows').get() as { n: number }).n;
    const before = count();
    // Batches hold at most 10,000 rows: two commit before the bad line.
    const lines = ['id,text', ...Array.from({ length: 25_000 }, (_, i) => `${i},"row ${i}"`), '25000,"bad" trailing'];
    const res = await upload(g.dataset_group.id, 'late.csv', lines.join('\n'));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/line 25002: /);
    expect(count()).toBe(before);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(1);
    const next = await upload(g.dataset_group.id, 'ok.csv', 'id\n1\n');
    expect(next.body.version_number).toBe(1);
    // An import holds SQLite's page cache to 4 MiB while it writes, and gives its size back.
    expect(t.server.db.pragma('cache_size', { simple: true })).toBe(-2048);
  });

  it('imports JSON arrays of objects with any values, columns in order of first appearance', async () => {
    const g = await group();
    const json = JSON.stringify([{ q: 'one', n: 1 }, { q: 'two', meta: { k: [1, 2] }, ok: true }], null, 2);
    const res = await upload(g.dataset_group.id, 'data.json', json);
    expect(res.status).toBe(201);
    const rows = await rowsOf(res.body.dataset_id);
    expect(rows.columns).toEqual(['q', 'n', 'meta', 'ok']);
    expect(rows.rows.map((r) => r.data)).toEqual([
      { q: 'one', n: 1, meta: null, ok: null },
      { q: 'two', n: null, meta: { k: [1, 2] }, ok: true },
    ]);
  });

  it.each([
    ['an object, not an array', '{"a": 1}', /line 1: a \.json dataset must be an array of objects/],
    ['an element that is not an object', '[{"a": 1},\n  "text"]', /line 2: element 2 of the array is a string/],
    ['invalid JSON in an element', '[{"a": 1},\n\n {"a": }]', /line 3: element 2 of the array is not valid JSON/],
    ['an unclosed array', '[{"a": 1}', /the array is closed/],
  ])('rejects a JSON file that is %s with 422', async (_name, json, message) => {
    const g = await group();
    const res = await upload(g.dataset_group.id, 'bad.json', json);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(message);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(1);
  });

  it('imports JSONL, skipping blank lines, and names the bad line', async () => {
    const g = await group();
    const ok = await upload(g.dataset_group.id, 'data.JSONL', '{"a":"x"}\n\n{"a":"y","b":2}\n');
    expect(ok.status).toBe(201);
    expect((await rowsOf(ok.body.dataset_id)).rows.map((r) => r.data)).toEqual([{ a: 'x', b: null }, { a: 'y', b: 2 }]);
    const bad = await upload(g.dataset_group.id, 'data.jsonl', '{"a":1}\n{"a":2}\n[3]\n');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/line 3: the line is an array, not an object/);
    const notJson = await upload(g.dataset_group.id, 'data.jsonl', '{"a":1}\nnope\n');
    expect(notJson.body.message).toMatch(/line 2: the line is not valid JSON/);
    expect((await versionsOf(g.dataset_group.id)).map((v) => v.version_number)).toEqual([-1, 1]);
  });

  it('rejects bad fields: unknown extension, group id 0, missing file, invalid base64, invalid UTF-8', async () => {
    const g = await group();
    const ext = await upload(g.dataset_group.id, 'data.xlsx', 'a\n1\n');
    expect(ext.status).toBe(422);
    expect(ext.body.detail[0].loc).toEqual(['body', 'file_name']);
    const zero = await upload(0, 'a.csv', 'a\n1\n');
    expect(zero.status).toBe(422);
    expect(zero.body.detail[0].loc).toEqual(['body', 'dataset_group_id']);
    const missing = await t.api('/api/public/v2/dataset-versions/from-file', { body: { dataset_group_id: g.dataset_group.id, file_name: 'a.csv' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'file_content_base64'], msg: 'Field required' });
    const notB64 = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: g.dataset_group.id, file_name: 'a.csv', file_content_base64: 'not base64!' },
    });
    expect(notB64.status).toBe(422);
    const latin1 = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: g.dataset_group.id, file_name: 'a.csv', file_content_base64: Buffer.from([0x61, 0x0a, 0xe9, 0x0a]).toString('base64') },
    });
    expect(latin1.status).toBe(422);
    expect(latin1.body.message).toMatch(/not valid UTF-8/);
    const malformed = await t.api('/api/public/v2/dataset-versions/from-file', { rawBody: '{"dataset_group_id": 1, "file_name": ' });
    expect(malformed.status).toBe(422);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(1);
  });

  it('takes a CSV record of just under 8 MiB; an unclosed quote running past 8 MiB is 422 naming its line', async () => {
    const g = await group();
    const big = 'a'.repeat(8 * 1024 * 1024 - 4); // with its quotes and line end: 8 MiB - 1 byte
    const fits = await upload(g.dataset_group.id, 'big.csv', `x\n"${big}"\n`);
    expect(fits.status).toBe(201);
    expect((await rowsOf(fits.body.dataset_id)).total).toBe(1);
    const runaway = await upload(g.dataset_group.id, 'runaway.csv', `x\n1\n"${big}xxxxxxxx\n2\n`);
    expect(runaway.status).toBe(422);
    expect(runaway.body.message).toMatch(/line 3: a record runs on for more than 8 MB: is a quote not closed\?/);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(2);
  });

  it('decodes base64 wrapped in escaped line breaks, across many pieces of the body', async () => {
    const g = await group();
    const lines = ['n,text', ...Array.from({ length: 6000 }, (_, i) => `${i},"row ${i} 東京 ""${'x'.repeat(i % 97)}"""`)];
    const wrapped = b64(`${lines.join('\n')}\n`).replace(/.{1,76}/g, (line) => `${line}\\r\\n`);
    const raw = `{"dataset_group_id": ${g.dataset_group.id}, "file_name": "w.csv", "file_content_base64": "${wrapped}"}`;
    expect(raw.length).toBeGreaterThan(4 * 64 * 1024);
    const res = await t.api('/api/public/v2/dataset-versions/from-file', { rawBody: raw });
    expect(res.status).toBe(201);
    const last = await rowsOf(res.body.dataset_id, '&page=60');
    expect(last.total).toBe(6000);
    expect(last.rows.at(-1)).toEqual({ row_index: 5999, data: { n: '5999', text: `row 5999 東京 "${'x'.repeat(5999 % 97)}"` } });
  });

  it('refuses base64 with a character outside its alphabet or padding inside it, deep in a large body; takes it unpadded', async () => {
    const g = await group();
    const good = b64(`n,text\n${Array.from({ length: 8000 }, (_, i) => `${i},row ${i}`).join('\n')}\n`);
    expect(good.length).toBeGreaterThan(2 * 64 * 1024);
    // Node's decoder would read 東 as its low byte ('q'), skip '!' and stop at '=': each must be 422.
    for (const bad of ['東', '!', '=', 'AB==']) {
      const at = 100_001;
      const body = { dataset_group_id: g.dataset_group.id, file_name: 'b.csv', file_content_base64: good.slice(0, at) + bad + good.slice(at) };
      const res = await t.api('/api/public/v2/dataset-versions/from-file', { body });
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file_content_base64'], msg: 'Not valid base64' });
    }
    // One character past whole groups is not base64 either.
    const lone = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: g.dataset_group.id, file_name: 'b.csv', file_content_base64: `${b64('a\n1\n')}Q` },
    });
    expect(lone.status).toBe(422);
    expect(await versionsOf(g.dataset_group.id)).toHaveLength(1);
    const unpadded = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: g.dataset_group.id, file_name: 'b.csv', file_content_base64: good.replace(/=+$/, '') },
    });
    expect(unpadded.status).toBe(201);
    expect((await rowsOf(unpadded.body.dataset_id)).total).toBe(8000);
  });

  it('accepts keys in any order and extra keys', async () => {
    const g = await group();
    const raw = `{"file_content_base64": "${b64('k\nv\n')}", "extra": {"nested": [1, "}"]}, "file_name": "x.csv", "dataset_group_id": ${g.dataset_group.id}}`;
    const res = await t.api('/api/public/v2/dataset-versions/from-file', { rawBody: raw });
    expect(res.status).toBe(201);
    expect((await rowsOf(res.body.dataset_id)).rows).toEqual([{ row_index: 0, data: { k: 'v' } }]);
  });

  it('numbers versions 1, 2, 3 and leaves the draft untouched', async () => {
    const g = await group();
    for (const n of [1, 2, 3]) {
      const res = await upload(g.dataset_group.id, 'v.csv', `n\n${n}\n`);
      expect(res.body.version_number).toBe(n);
    }
    const versions = await versionsOf(g.dataset_group.id);
    expect(versions.map((v) => v.version_number)).toEqual([-1, 3, 2, 1]);
    expect(versions[0]).toMatchObject({ id: g.dataset.id, row_count: 0 });
  });
});

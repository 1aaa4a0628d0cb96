import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
let otherKey: string;
beforeAll(async () => {
  t = await startServer();
  const ws = await t.api('/api/public/v2/workspaces', { body: { name: 'other team' } });
  otherKey = ws.body.api_key;
});
afterAll(() => t.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
let groupCounter = 0;

async function group() {
  const res = await t.api('/api/public/v2/dataset-groups', { body: { name: `versions-${++groupCounter}` } });
  expect(res.status).toBe(201);
  return { groupId: res.body.dataset_group.id as number, draftId: res.body.dataset.id as number };
}

async function upload(groupId: number, fileName: string, text: string) {
  const res = await t.api('/api/public/v2/dataset-versions/from-file', {
    body: { dataset_group_id: groupId, file_name: fileName, file_content_base64: b64(text) },
  });
  expect(res.status).toBe(201);
  return res.body as { dataset_id: number; version_number: number };
}

async function allRows(datasetId: number) {
  const res = await t.api(`/api/public/v2/datasets/${datasetId}/rows?per_page=100`);
  expect(res.status).toBe(200);
  return res.body as { columns: string[]; rows: Array<{ row_index: number; data: Record<string, unknown> }> };
}

const putRows = (datasetId: number, body: unknown, key?: string) =>
  t.api(`/api/public/v2/datasets/${datasetId}/rows`, { method: 'PUT', body, key });

describe('drafts', () => {
  it('edits the draft with PUT rows, saves it as the next version, and a fresh draft follows', async () => {
    const { groupId, draftId } = await group();
    const put = await putRows(draftId, { rows: [{ q: 'a', expected: '1' }, { q: 'b', extra: true }] });
    expect(put.status).toBe(200);
    expect(put.body.dataset).toMatchObject({ id: draftId, version_number: -1, row_count: 2, column_names: ['q', 'expected', 'extra'] });
    // Delete a row and change another: the draft becomes exactly what was sent.
    expect((await putRows(draftId, { rows: [{ q: 'b2', expected: '2' }], column_names: ['expected', 'q'] })).status).toBe(200);
    expect(await allRows(draftId)).toEqual({
      columns: ['expected', 'q'],
      rows: [{ row_index: 0, data: { expected: '2', q: 'b2' } }],
      page: 1, per_page: 100, total: 1, pages: 1, has_next: false, has_prev: false, next_num: null, prev_num: null,
    });
    const saved = await t.api('/api/public/v2/dataset-versions/save-draft', { body: { dataset_group_id: groupId } });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({ success: true, dataset_id: draftId, version_number: 1 });
    const versions = (await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`)).body.datasets;
    expect(versions.map((v: { version_number: number }) => v.version_number)).toEqual([-1, 1]);
    expect(versions[0]).toMatchObject({ row_count: 0, column_names: [] });
    expect(versions[0].id).not.toBe(draftId);
  });

  it('refuses to edit a published version with 409 and leaves it unchanged', async () => {
    const { groupId } = await group();
    const v1 = await upload(groupId, 'a.csv', 'x\n1\n2\n');
    const res = await putRows(v1.dataset_id, { rows: [{ x: 'changed' }] });
    expect(res.status).toBe(409);
    expect(res.body.success).toBe(false);
    expect((await allRows(v1.dataset_id)).rows.map((r) => r.data.x)).toEqual(['1', '2']);
  });

  it('rejects rows that are not objects with 422 and writes nothing', async () => {
    const { draftId } = await group();
    await putRows(draftId, { rows: [{ a: 1 }] });
    const res = await putRows(draftId, { rows: [{ a: 2 }, 'text'] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'rows', 1]);
    expect((await allRows(draftId)).rows).toEqual([{ row_index: 0, data: { a: 1 } }]);
  });

  it('creates a draft from a published version; a second draft is 409', async () => {
    const { groupId, draftId } = await group();
    const v1 = await upload(groupId, 'a.jsonl', '{"q":"one"}\n{"q":"two"}\n');
    const created = await t.api('/api/public/v2/dataset-versions/create-draft', { body: { dataset_group_id: groupId, source_dataset_id: v1.dataset_id } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, draft_dataset_id: draftId });
    expect(await allRows(draftId)).toMatchObject({ columns: ['q'], rows: [{ row_index: 0, data: { q: 'one' } }, { row_index: 1, data: { q: 'two' } }] });
    // The draft now holds rows: another create-draft is the "draft exists" conflict.
    const again = await t.api('/api/public/v2/dataset-versions/create-draft', { body: { dataset_group_id: groupId, source_dataset_id: v1.dataset_id } });
    expect(again.status).toBe(409);
    const plain = await t.api('/api/public/v2/dataset-versions/create-draft', { body: { dataset_group_id: groupId } });
    expect(plain.status).toBe(409);
    // Editing the draft does not touch the version it came from.
    await putRows(draftId, { rows: [{ q: 'three' }] });
    expect((await allRows(v1.dataset_id)).rows).toHaveLength(2);
    const saved = await t.api('/api/public/v2/dataset-versions/save-draft', { body: { dataset_group_id: groupId } });
    expect(saved.body.version_number).toBe(2);
  });

  it('answers 404 for a source dataset from another group', async () => {
    const a = await group();
    const b = await group();
    const v = await upload(b.groupId, 'b.csv', 'x\n1\n');
    const res = await t.api('/api/public/v2/dataset-versions/create-draft', { body: { dataset_group_id: a.groupId, source_dataset_id: v.dataset_id } });
    expect(res.status).toBe(404);
    expect(res.body.detail[0].loc).toEqual(['body', 'source_dataset_id']);
  });

  it('adds logged requests to the draft with variables, input, output, model and tags', async () => {
    const { groupId, draftId } = await group();
    const logged = await t.api('/log-request', {
      body: logBody({ tags: ['prod'], prompt_input_variables: { city: 'Paris' }, model: 'gpt-4o' }),
    });
    expect(logged.status).toBe(201);
    const added = await t.api('/api/public/v2/dataset-versions/add-request-log', { body: { dataset_group_id: groupId, request_log_id: logged.body.id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ success: true, draft_dataset_id: draftId });
    const rows = await allRows(draftId);
    expect(rows.columns).toEqual(['city', 'input', 'output', 'model', 'tags', 'request_id']);
    expect(rows.rows[0].data).toMatchObject({ city: 'Paris', model: 'gpt-4o', tags: ['prod'], request_id: logged.body.id });
    expect(rows.rows[0].data.input).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: expect.stringMatching(/^Question number/) },
    ]);
    expect(rows.rows[0].data.output).toMatch(/^Answer number/);
    const missing = await t.api('/api/public/v2/dataset-versions/add-request-log', { body: { dataset_group_id: groupId, request_log_id: 99999999 } });
    expect(missing.status).toBe(404);
  });
});

describe('limits and workspaces', () => {
  it('answers 422 for dataset_group_id 0 and 404 for an unknown group', async () => {
    for (const path of ['create-draft', 'save-draft']) {
      const zero = await t.api(`/api/public/v2/dataset-versions/${path}`, { body: { dataset_group_id: 0 } });
      expect(zero.status).toBe(422);
      expect(zero.body.detail[0].loc).toEqual(['body', 'dataset_group_id']);
      const one = await t.api(`/api/public/v2/dataset-versions/${path}`, { body: { dataset_group_id: 99999999 } });
      expect(one.status).toBe(404);
    }
    expect((await t.api('/api/public/v2/datasets?dataset_group_id=0')).status).toBe(422);
  });

  it("hides another workspace's group, versions and rows behind 404", async () => {
    const { groupId, draftId } = await group();
    const v1 = await upload(groupId, 'a.csv', 'x\n1\n');
    const other = { key: otherKey };
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, other)).status).toBe(404);
    expect((await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`, other)).status).toBe(404);
    expect((await t.api(`/api/public/v2/datasets/${v1.dataset_id}/rows`, other)).status).toBe(404);
    expect((await t.api(`/api/public/v2/datasets/${v1.dataset_id}/export`, other)).status).toBe(404);
    expect((await putRows(draftId, { rows: [{ x: 'hijack' }] }, otherKey)).status).toBe(404);
    const upload404 = await t.api('/api/public/v2/dataset-versions/from-file', {
      key: otherKey,
      body: { dataset_group_id: groupId, file_name: 'a.csv', file_content_base64: b64('x\n2\n') },
    });
    expect(upload404.status).toBe(404);
    for (const path of ['create-draft', 'save-draft']) {
      expect((await t.api(`/api/public/v2/dataset-versions/${path}`, { key: otherKey, body: { dataset_group_id: groupId } })).status).toBe(404);
    }
    const listed = await t.api('/api/public/v2/dataset-groups', other);
    expect(listed.body.items).toEqual([]);
    expect((await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`)).body.datasets).toHaveLength(2);
  });

  it('requires an API key', async () => {
    expect((await t.api('/api/public/v2/dataset-groups', { key: null })).status).toBe(401);
    const upload401 = await t.api('/api/public/v2/dataset-versions/from-file', { key: null, body: { dataset_group_id: 1, file_name: 'a.csv', file_content_base64: b64('x\n') } });
    expect(upload401.status).toBe(401);
  });
});

describe('rows', () => {
  it('pages rows and searches values with q', async () => {
    const { groupId } = await group();
    const lines = ['name,city', ...Array.from({ length: 45 }, (_, i) => `person ${i},${i % 3 === 0 ? 'Zürich' : 'Oslo'}`)];
    const v = await upload(groupId, 'p.csv', `${lines.join('\n')}\n`);
    const page2 = await t.api(`/api/public/v2/datasets/${v.dataset_id}/rows?page=2&per_page=20`);
    expect(page2.body).toMatchObject({ page: 2, per_page: 20, total: 45, pages: 3, has_next: true, has_prev: true, next_num: 3, prev_num: 1 });
    expect(page2.body.rows.map((r: { row_index: number }) => r.row_index)).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i));
    const found = await t.api(`/api/public/v2/datasets/${v.dataset_id}/rows?q=${encodeURIComponent('zür')}&per_page=5`);
    expect(found.body.total).toBe(15);
    expect(found.body.rows.map((r: { data: { name: string } }) => r.data.name)).toEqual(['person 0', 'person 3', 'person 6', 'person 9', 'person 12']);
    const quoted = await upload(groupId, 'quoted.jsonl', '{"t":"she said \\"hi\\""}\n{"t":"line\\nbreak"}\n{"t":"plain hi"}\n');
    const quoteHits = await t.api(`/api/public/v2/datasets/${quoted.dataset_id}/rows?q=${encodeURIComponent('"hi"')}`);
    expect(quoteHits.body.rows.map((r: { data: { t: string } }) => r.data.t)).toEqual(['she said "hi"']);
    const newlineHits = await t.api(`/api/public/v2/datasets/${quoted.dataset_id}/rows?q=${encodeURIComponent('line\nbr')}`);
    expect(newlineHits.body.total).toBe(1);
    // q matches values, not the column names every row repeats.
    expect((await t.api(`/api/public/v2/datasets/${v.dataset_id}/rows?q=city`)).body.total).toBe(0);
    expect((await t.api(`/api/public/v2/datasets/${v.dataset_id}/rows?per_page=101`)).status).toBe(422);
    expect((await t.api(`/api/public/v2/datasets/${v.dataset_id}/rows?page=0`)).status).toBe(422);
    expect((await t.api(`/api/public/v2/datasets/99999999/rows`)).status).toBe(404);
  });
});

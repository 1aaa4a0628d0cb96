import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { publishDataset } from './support/evaluations';

let t: TestServer;
let otherKey: string;
let groupId: number;
let datasetId: number;

beforeAll(async () => {
  t = await startServer({ env: {} });
  ({ groupId, datasetId } = await publishDataset(t, [{ question: 'q1', expected: 'a1' }, { question: 'q2', expected: 'a2' }]));
  const ws = await t.api('/api/public/v2/workspaces', { body: { name: 'other' } });
  otherKey = ws.body.api_key;
});
afterAll(() => t.close());

const contains = (name: string, source: string, value = 'a') => ({ column_type: 'CONTAINS', name, configuration: { source, value } });

async function pipeline(columns: unknown[] = [], extra: Record<string, unknown> = {}) {
  const res = await t.api('/reports', { body: { dataset_group_id: groupId, columns, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { report_id: number; report_columns: Array<{ id: number; name: string; column_type: string; position: number }> };
}

describe('POST /reports', () => {
  test('creates a pipeline on the latest version with dataset columns leftmost and a generated name', async () => {
    const created = await pipeline([contains('has a', 'expected')]);
    expect(created.report_columns.map((c) => [c.name, c.column_type, c.position])).toEqual([
      ['question', 'DATASET', 0], ['expected', 'DATASET', 1], ['has a', 'CONTAINS', 2],
    ]);
    const report = await t.api(`/reports/${created.report_id}`);
    expect(report.body.report).toMatchObject({ is_blueprint: true, parent_report_id: null, dataset_id: datasetId, score: null });
    expect(report.body.report.name).toMatch(/^Evaluation \d{4}-\d\d-\d\d/);
    const second = await pipeline();
    const names = [(await t.api(`/reports/${second.report_id}`)).body.report.name, report.body.report.name];
    expect(new Set(names).size).toBe(2);
  });

  test('a given name and version are used; the Bearer session works too', async () => {
    const session = await t.api('/api/public/v2/session', { method: 'POST', body: {} });
    const res = await t.api('/reports', {
      key: null, headers: { authorization: `Bearer ${session.body.token}` },
      body: { dataset_group_id: groupId, name: 'Named', dataset_version_number: 1 },
    });
    expect(res.status).toBe(201);
    expect((await t.api(`/reports/${res.body.report_id}`)).body.report.name).toBe('Named');
  });

  test.each([
    [{ dataset_group_id: groupId, dataset_version_number: -1 }, ['body', 'dataset_version_number']],
    [{}, ['body', 'dataset_group_id']],
    [{ dataset_group_id: 0 }, ['body', 'dataset_group_id']],
    [{ dataset_group_id: 'one' }, ['body', 'dataset_group_id']],
    [{ dataset_group_id: 1, name: '' }, ['body', 'name']],
    [{ dataset_group_id: 1, name: 'x'.repeat(256) }, ['body', 'name']],
    [{ dataset_group_id: 1, folder_id: 0 }, ['body', 'folder_id']],
    [{ dataset_group_id: 1, columns: [{ column_type: 'NOPE', name: 'x', configuration: {} }] }, ['body', 'columns', 0, 'column_type']],
    [{ dataset_group_id: 1, columns: [{ column_type: 'REGEX', name: 'x', configuration: { source: 'question', regex_pattern: '(' } }] }, ['body', 'columns', 0, 'configuration', 'regex_pattern']],
    [{ dataset_group_id: 1, columns: [{ column_type: 'CONTAINS', name: 'x', configuration: { source: 'nope', value: 'a' } }] }, ['body', 'columns', 0, 'configuration']],
  ])('422 for %j', async (body, loc) => {
    const res = await t.api('/reports', { body: { ...body, dataset_group_id: (body as { dataset_group_id?: unknown }).dataset_group_id === 1 ? groupId : (body as { dataset_group_id?: unknown }).dataset_group_id } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
  });

  test('the name is accepted at 255 characters', async () => {
    expect((await t.api('/reports', { body: { dataset_group_id: groupId, name: 'n'.repeat(255) } })).status).toBe(201);
  });

  test('a reference to a column on the right or unknown is 422 naming it', async () => {
    const right = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [contains('first', 'second'), contains('second', 'question')] } });
    expect(right.status).toBe(422);
    expect(right.body.message).toMatch(/'second', which is not to its left/);
    const unknown = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [contains('first', 'ghost')] } });
    expect(unknown.body.message).toMatch(/'ghost', which does not exist/);
    const duplicate = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [contains('question', 'expected')] } });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.message).toMatch(/already exists/);
  });

  test('a group with no published version is 400; another workspace\'s group is 404; nothing is written', async () => {
    const empty = await t.api('/api/public/v2/dataset-groups', { body: { name: 'empty group' } });
    const res = await t.api('/reports', { body: { dataset_group_id: empty.body.dataset_group.id } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false });
    expect(typeof res.body.message).toBe('string');
    const foreign = await t.api('/reports', { key: otherKey, body: { dataset_group_id: groupId } });
    expect(foreign.status).toBe(404);
    expect((await t.api('/reports', { body: { dataset_group_id: 999_999 } })).status).toBe(404);
    expect((await t.api('/reports', { body: { dataset_group_id: groupId, dataset_version_number: 7 } })).status).toBe(404);
    expect((await t.api('/reports', { body: { dataset_group_id: groupId, folder_id: 999 } })).status).toBe(404);
    const list = await t.api('/api/public/v2/evaluations', { key: otherKey });
    expect(list.body.total).toBe(0);
  });

  test('unauthenticated is 401', async () => {
    expect((await t.api('/reports', { key: null, body: { dataset_group_id: groupId } })).status).toBe(401);
  });
});

describe('report columns', () => {
  test('add, insert at a position, rename, move, delete; references stay to the left', async () => {
    const p = await pipeline([contains('c1', 'question')]);
    const added = await t.api('/report-columns', { body: { report_id: p.report_id, column_type: 'COUNT', name: 'len', configuration: { source: 'c1', type: 'chars' } } });
    expect(added.status).toBe(201);
    expect(added.body.report_column).toMatchObject({ name: 'len', position: 3, column_type: 'COUNT', configuration: { source: 'c1', type: 'chars' } });
    const inserted = await t.api('/report-columns', { body: { report_id: p.report_id, column_type: 'VARIABLE', name: 'const', position: 2, configuration: { value: { type: 'string', value: 'k' } } } });
    expect(inserted.body.report_column.position).toBe(2);
    const order = async () => (await t.api(`/reports/${p.report_id}`)).body.report_columns.map((c: { name: string }) => c.name);
    expect(await order()).toEqual(['question', 'expected', 'const', 'c1', 'len']);

    const intoDataset = await t.api('/report-columns', { body: { report_id: p.report_id, column_type: 'VARIABLE', name: 'v', position: 1, configuration: { value: { type: 'string', value: '' } } } });
    expect(intoDataset.status).toBe(422);
    expect(intoDataset.body.detail[0].loc).toEqual(['body', 'position']);

    const badKey = await t.api('/report-columns', { body: { report_id: p.report_id, column_type: 'COUNT', name: 'n2', configuration: { source: 'c1', type: 'bytes' } } });
    expect(badKey.status).toBe(422);
    expect(badKey.body.detail[0].loc).toEqual(['body', 'configuration', 'type']);
    const rightHand = await t.api('/report-columns', { body: { report_id: p.report_id, column_type: 'COUNT', name: 'n3', position: 2, configuration: { source: 'len' } } });
    expect(rightHand.status).toBe(422);
    expect(rightHand.body.message).toMatch(/'len'/);

    const c1 = (await t.api(`/reports/${p.report_id}`)).body.report_columns.find((c: { name: string }) => c.name === 'c1');
    const moveBehind = await t.api(`/report-columns/${c1.id}`, { method: 'PATCH', body: { position: 4 } });
    expect(moveBehind.status).toBe(422);
    expect(moveBehind.body.message).toMatch(/'len' reads column 'c1', which is not to its left/);
    const rename = await t.api(`/report-columns/${c1.id}`, { method: 'PATCH', body: { name: 'renamed' } });
    expect(rename.status).toBe(422);
    const reconfigure = await t.api(`/report-columns/${c1.id}`, { method: 'PATCH', body: { configuration: { source: 'expected', value: 'A2' }, is_part_of_score: true } });
    expect(reconfigure.status).toBe(200);
    expect(reconfigure.body.report_column).toMatchObject({ configuration: { source: 'expected', value: 'A2' }, is_part_of_score: true, position: 3 });

    expect((await t.api(`/report-columns/${c1.id}`, { method: 'DELETE' })).status).toBe(409);
    const len = (await t.api(`/reports/${p.report_id}`)).body.report_columns.find((c: { name: string }) => c.name === 'len');
    expect((await t.api(`/report-columns/${len.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/report-columns/${c1.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await order()).toEqual(['question', 'expected', 'const']);
    const dataset = (await t.api(`/reports/${p.report_id}`)).body.report_columns[0];
    expect((await t.api(`/report-columns/${dataset.id}`, { method: 'DELETE' })).status).toBe(403);
    expect((await t.api(`/report-columns/${len.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('another workspace cannot see or change them', async () => {
    const p = await pipeline([contains('c1', 'question')]);
    const col = p.report_columns[2];
    expect((await t.api(`/report-columns/${col.id}`, { method: 'PATCH', key: otherKey, body: { name: 'x' } })).status).toBe(404);
    expect((await t.api(`/report-columns/${col.id}`, { method: 'DELETE', key: otherKey })).status).toBe(404);
    expect((await t.api('/report-columns', { key: otherKey, body: { report_id: p.report_id, column_type: 'COUNT', name: 'x', configuration: { source: 'question' } } })).status).toBe(404);
    expect((await t.api(`/reports/${p.report_id}`, { key: otherKey })).status).toBe(404);
    expect((await t.api(`/reports/${p.report_id}/run`, { key: otherKey, body: { name: 'x' } })).status).toBe(404);
  });
});

describe('runs', () => {
  test('run answers 201 with a new final report pinned to the version and a copy of the columns', async () => {
    const p = await pipeline([contains('has a', 'expected')]);
    const run = await t.api(`/reports/${p.report_id}/run`, { body: { name: 'first run' } });
    expect(run.status).toBe(201);
    expect(run.body).toEqual({ success: true, report_id: expect.any(Number) });
    const report = await t.api(`/reports/${run.body.report_id}`);
    expect(report.body.report).toMatchObject({ name: 'first run', is_blueprint: false, parent_report_id: p.report_id, dataset_id: datasetId });
    expect(report.body.report_columns.map((c: { name: string }) => c.name)).toEqual(['question', 'expected', 'has a']);
    expect(report.body.report_columns[2].id).not.toBe(p.report_columns[2].id);

    expect((await t.api(`/reports/${run.body.report_id}/run`, { body: { name: 'again' } })).status).toBe(403);
    expect((await t.api('/report-columns', { body: { report_id: run.body.report_id, column_type: 'COUNT', name: 'x', configuration: { source: 'question' } } })).status).toBe(403);
    expect((await t.api(`/reports/${p.report_id}/score`)).status).toBe(400);
  });

  test.each([
    [{}, ['body', 'name']],
    [{ name: '' }, ['body', 'name']],
    [{ name: 'x'.repeat(256) }, ['body', 'name']],
    [{ name: 'x', dataset_id: 0 }, ['body', 'dataset_id']],
    [{ name: 'x', concurrency: 0 }, ['body', 'concurrency']],
  ])('run body %j → 422', async (body, loc) => {
    const p = await pipeline();
    const res = await t.api(`/reports/${p.report_id}/run`, { body });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  test('refresh_dataset and the default run on the newest version; dataset_id of another group is 422', async () => {
    const p = await pipeline([contains('has a', 'expected')]);
    const v2 = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: groupId, file_name: 'v2.csv', file_content_base64: Buffer.from('question,expected\nx,y\n').toString('base64') },
    });
    const refreshed = await t.api(`/reports/${p.report_id}/run`, { body: { name: 'fresh', refresh_dataset: true } });
    expect((await t.api(`/reports/${refreshed.body.report_id}`)).body.report.dataset_id).toBe(v2.body.dataset_id);
    // API.md §6: with no dataset option a run uses the latest published version; an older one is asked for by number.
    const latest = await t.api(`/reports/${p.report_id}/run`, { body: { name: 'latest' } });
    expect((await t.api(`/reports/${latest.body.report_id}`)).body.report.dataset_id).toBe(v2.body.dataset_id);
    const pinned = await t.api(`/reports/${p.report_id}/run`, { body: { name: 'pinned', dataset_version_number: 1 } });
    expect((await t.api(`/reports/${pinned.body.report_id}`)).body.report.dataset_id).toBe(datasetId);
    const elsewhere = await publishDataset(t, [{ other: 1 }]);
    const wrong = await t.api(`/reports/${p.report_id}/run`, { body: { name: 'x', dataset_id: elsewhere.datasetId } });
    expect(wrong.status).toBe(422);
  });

  test('DELETE archives: gone from lists and 404 afterwards', async () => {
    const p = await pipeline();
    const before = (await t.api('/api/public/v2/evaluations?per_page=100')).body;
    expect(before.items.some((i: { id: number }) => i.id === p.report_id)).toBe(true);
    expect((await t.api(`/reports/${p.report_id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/reports/${p.report_id}`)).status).toBe(404);
    const after = (await t.api('/api/public/v2/evaluations?per_page=100')).body;
    expect(after.items.some((i: { id: number }) => i.id === p.report_id)).toBe(false);
    expect(after.total).toBe(before.total - 1);
    expect((await t.api(`/reports/${p.report_id}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('the evaluations list pages with the envelope', async () => {
    const res = await t.api('/api/public/v2/evaluations?per_page=1&page=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 2, per_page: 1, has_prev: true, prev_num: 1 });
    expect(res.body.items).toHaveLength(1);
    expect((await t.api('/api/public/v2/evaluations?per_page=101')).status).toBe(422);
  });
});

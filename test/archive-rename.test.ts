import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRows, publishDataset, waitForRun } from './support/evaluations';
import { startServer, type TestServer } from './support/server';

/** Archiving dataset groups, pipelines and runs; renaming folders, dataset groups and pipelines. */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

let names = 0;
const unique = (prefix: string) => `${prefix} ${++names}`;
const otherKey = async () => (await t.api('/api/public/v2/workspaces', { body: { name: unique('other') } })).body.api_key as string;

/** A pipeline with one VARIABLE column over a fresh dataset, and one finished run of it. */
async function pipelineWithRun() {
  const dataset = await publishDataset(t, [{ q: 'a' }, { q: 'b' }], { name: unique('dataset') });
  const created = await t.api('/reports', {
    body: { dataset_group_id: dataset.groupId, name: unique('pipeline'), columns: [{ column_type: 'VARIABLE', name: 'k', configuration: { value: { type: 'string', value: 'x' } } }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const run = await t.api(`/reports/${created.body.report_id}/run`, { body: { name: unique('run') } });
  expect(run.status).toBe(201);
  await waitForRun(t, run.body.report_id);
  return { ...dataset, pipelineId: created.body.report_id as number, runId: run.body.report_id as number };
}

const groupNames = async () => (await t.api('/api/public/v2/dataset-groups?per_page=100')).body.items.map((g: { name: string }) => g.name);

describe('DELETE /api/public/v2/dataset-groups/{id}', () => {
  it('archives: gone from lists and 404 by id, while runs over its versions still render', async () => {
    const { groupId, datasetId, runId } = await pipelineWithRun();
    const name = (await t.api(`/api/public/v2/dataset-groups/${groupId}`)).body.dataset_group.name;
    expect(await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'DELETE' })).toMatchObject({ status: 204 });
    expect(await groupNames()).not.toContain(name);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`)).status).toBe(404);
    const versions = (await t.api('/api/public/v2/datasets?per_page=100')).body.datasets.map((d: { id: number }) => d.id);
    expect(versions).not.toContain(datasetId);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'DELETE' })).status).toBe(404);

    const report = await t.api(`/reports/${runId}`);
    expect(report.status).toBe(200);
    expect(report.body.stats.status_counts.COMPLETED).toBe(2);
    expect((await allRows(t, runId)).rows.map((r) => r.cells.k.value)).toEqual(['x', 'x']);
    expect((await t.api(`/api/public/v2/datasets/${datasetId}/rows`)).body.rows).toHaveLength(2);
  });

  it('frees the name for a new group, and refuses new versions or runs of the archived one (404)', async () => {
    const { groupId, pipelineId } = await pipelineWithRun();
    const name = (await t.api(`/api/public/v2/dataset-groups/${groupId}`)).body.dataset_group.name;
    await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'DELETE' });
    expect((await t.api('/api/public/v2/dataset-groups', { body: { name } })).status).toBe(201);
    expect((await t.api('/api/public/v2/dataset-versions/create-draft', { body: { dataset_group_id: groupId } })).status).toBe(404);
    expect((await t.api(`/reports/${pipelineId}/run`, { body: { name: unique('late run') } })).status).toBe(404);
  });

  it("answers 404 for another workspace's group and leaves it", async () => {
    const { groupId } = await publishDataset(t, [{ q: 1 }], { name: unique('mine') });
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'DELETE', key: await otherKey() })).status).toBe(404);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`)).status).toBe(200);
  });
});

describe('DELETE /api/public/v2/reports/{id}', () => {
  it('archives a run: gone from its pipeline in the list, 404 afterwards; the pipeline stays', async () => {
    const { pipelineId, runId } = await pipelineWithRun();
    expect((await t.api(`/api/public/v2/reports/${runId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/reports/${runId}`)).status).toBe(404);
    const list = (await t.api('/api/public/v2/evaluations?per_page=100')).body.items;
    const pipeline = list.find((p: { id: number }) => p.id === pipelineId);
    expect(pipeline.runs).toEqual([]);
  });

  it('archives a pipeline: gone from the list and 404', async () => {
    const { pipelineId } = await pipelineWithRun();
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/reports/${pipelineId}`)).status).toBe(404);
    const ids = (await t.api('/api/public/v2/evaluations?per_page=100')).body.items.map((p: { id: number }) => p.id);
    expect(ids).not.toContain(pipelineId);
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('renames', () => {
  it('PATCH /api/public/v2/folders/{id} renames; a sibling with the name is a 409; 1–255 characters', async () => {
    const a = (await t.api('/api/public/v2/folders', { body: { name: unique('folder') } })).body.folder;
    const b = (await t.api('/api/public/v2/folders', { body: { name: unique('folder') } })).body.folder;
    const renamed = await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: 'Renamed folder' } });
    expect(renamed).toMatchObject({ status: 200, body: { success: true, folder: { id: a.id, name: 'Renamed folder' } } });
    expect((await t.api(`/api/public/v2/folders/${b.id}`, { method: 'PATCH', body: { name: 'Renamed folder' } })).status).toBe(409);
    expect((await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: 'Renamed folder' } })).status).toBe(200);
    expect((await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: 'x'.repeat(255) } })).status).toBe(200);
    const long = await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: 'x'.repeat(256) } });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'name']);
    expect((await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: '  ' } })).status).toBe(422);
    expect((await t.api(`/api/public/v2/folders/${a.id}`, { method: 'PATCH', body: { name: 'theirs' }, key: await otherKey() })).status).toBe(404);
  });

  it('PATCH /api/public/v2/dataset-groups/{id} renames; a live group with the name is a 409, an archived one is not', async () => {
    const { groupId } = await publishDataset(t, [{ q: 1 }], { name: unique('group') });
    const taken = await publishDataset(t, [{ q: 1 }], { name: unique('group') });
    const takenName = (await t.api(`/api/public/v2/dataset-groups/${taken.groupId}`)).body.dataset_group.name;
    const renamed = await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'PATCH', body: { name: unique('renamed') } });
    expect(renamed).toMatchObject({ status: 200, body: { success: true, dataset_group: { id: groupId, version_count: 1 } } });
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'PATCH', body: { name: takenName } })).status).toBe(409);
    await t.api(`/api/public/v2/dataset-groups/${taken.groupId}`, { method: 'DELETE' });
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'PATCH', body: { name: takenName } })).status).toBe(200);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`, { method: 'PATCH', body: {} })).status).toBe(422);
    expect((await t.api(`/api/public/v2/dataset-groups/${taken.groupId}`, { method: 'PATCH', body: { name: 'ghost' } })).status).toBe(404);
  });

  it('PATCH /api/public/v2/reports/{id} renames a pipeline (1–255 characters) and answers its detail', async () => {
    const { pipelineId } = await pipelineWithRun();
    const renamed = await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'PATCH', body: { name: 'Nightly regression' } });
    expect(renamed).toMatchObject({ status: 200, body: { report: { id: pipelineId, name: 'Nightly regression' } } });
    const item = (await t.api('/api/public/v2/evaluations?per_page=100')).body.items.find((p: { id: number }) => p.id === pipelineId);
    expect(item.name).toBe('Nightly regression');
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'PATCH', body: { name: '' } })).status).toBe(422);
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'PATCH', body: { name: 'y'.repeat(256) } })).status).toBe(422);
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'PATCH', body: { name: 'y'.repeat(255) } })).status).toBe(200);
    expect((await t.api(`/api/public/v2/reports/${pipelineId}`, { method: 'PATCH', body: { name: 'z' }, key: await otherKey() })).status).toBe(404);
  });
});

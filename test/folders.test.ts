import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

const create = (body: unknown, key?: string) => t.api('/api/public/v2/folders', { body, key });

describe('folders', () => {
  it('creates folders at the root and inside a parent, and lists the tree or one level', async () => {
    const root = await create({ name: 'Evals' });
    expect(root.status).toBe(201);
    expect(root.body).toMatchObject({ success: true, folder: { name: 'Evals', parent_id: null } });
    const child = await create({ name: 'Regression', parent_id: root.body.folder.id });
    expect(child.status).toBe(201);
    expect(child.body.folder.parent_id).toBe(root.body.folder.id);

    const all = await t.api('/api/public/v2/folders');
    expect(all.status).toBe(200);
    expect(all.body.folders.map((f: { name: string }) => f.name)).toEqual(['Evals', 'Regression']);
    const level = await t.api(`/api/public/v2/folders?parent_id=${root.body.folder.id}`);
    expect(level.body.folders.map((f: { id: number }) => f.id)).toEqual([child.body.folder.id]);
    expect((await t.api(`/api/public/v2/folders/${child.body.folder.id}`)).body.folder.name).toBe('Regression');
  });

  it('refuses a duplicate name in the same parent (409) but allows it elsewhere', async () => {
    const a = await create({ name: 'Shared' });
    expect((await create({ name: 'Shared' })).status).toBe(409);
    expect((await create({ name: 'Shared', parent_id: a.body.folder.id })).status).toBe(201);
  });

  it('validates name and parent_id: empty name and parent 0 are 422, an unknown parent 404', async () => {
    const empty = await create({ name: '   ' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'name']);
    const zero = await create({ name: 'x', parent_id: 0 });
    expect(zero.status).toBe(422);
    expect(zero.body.detail[0].loc).toEqual(['body', 'parent_id']);
    expect((await create({ name: 'x', parent_id: 99999999 })).status).toBe(404);
    expect((await t.api('/api/public/v2/folders?parent_id=0')).status).toBe(422);
  });

  it("keeps workspaces apart: another workspace's folder is 404 as a parent and invisible in lists", async () => {
    const ws = await t.api('/api/public/v2/workspaces', { body: { name: 'folders-other' } });
    const otherKey = ws.body.api_key as string;
    const mine = await create({ name: 'Private' });
    expect((await create({ name: 'Sneaky', parent_id: mine.body.folder.id }, otherKey)).status).toBe(404);
    expect((await t.api(`/api/public/v2/folders/${mine.body.folder.id}`, { key: otherKey })).status).toBe(404);
    expect((await t.api('/api/public/v2/folders', { key: otherKey })).body.folders).toEqual([]);
    const group = await t.api('/api/public/v2/dataset-groups', { key: otherKey, body: { name: 'g', folder_id: mine.body.folder.id } });
    expect(group.status).toBe(404);
  });
});

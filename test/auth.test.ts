import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

describe('API keys', () => {
  it('writes the generated key to <data-dir>/api-key with mode 0600', () => {
    const file = join(t.dataDir, 'api-key');
    expect(readFileSync(file, 'utf8').trim()).toBe(t.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(t.key).toMatch(/^pl_/);
  });

  it('answers 401 without a key, with a wrong key, and with a revoked key', async () => {
    const missing = await t.api('/api/public/v2/requests', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, message: expect.stringContaining('API key') });
    expect((await t.api('/api/public/v2/requests', { key: 'pl_wrong' })).status).toBe(401);

    const created = await t.api('/api/public/v2/api-keys', { body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.api_key).toMatchObject({ name: 'ci', prefix: created.body.key.slice(0, 10) });
    expect((await t.api('/log-request', { key: created.body.key, body: logBody() })).status).toBe(201);

    const listed = await t.api('/api/public/v2/api-keys');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect(listed.body.api_keys.map((k: { id: number }) => k.id)).toContain(created.body.api_key.id);

    expect((await t.api(`/api/public/v2/api-keys/${created.body.api_key.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api('/log-request', { key: created.body.key, body: logBody() })).status).toBe(401);
    expect((await t.api(`/api/public/v2/api-keys/${created.body.api_key.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('stores keys hashed, never in clear', () => {
    const rows = t.server.db.prepare('SELECT * FROM api_keys').all() as Array<Record<string, unknown>>;
    expect(JSON.stringify(rows)).not.toContain(t.key);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the key in the body on the legacy tracking endpoints only', async () => {
    const res = await t.api('/log-request', { key: null, body: { ...logBody(), api_key: t.key } });
    expect(res.status).toBe(201);
    const score = await t.api('/library-track-score', { key: null, body: { request_id: res.body.id, score: 5, api_key: t.key } });
    expect(score.status).toBe(200);
    const explorer = await t.api(`/api/public/v2/requests?api_key=${t.key}`, { key: null });
    expect(explorer.status).toBe(401);
    const rest = await t.api('/rest/track-score', { key: null, body: { request_id: res.body.id, score: 5, api_key: t.key } });
    expect(rest.status).toBe(401);
  });

  it('accepts the header name in any case', async () => {
    const res = await t.api('/api/public/v2/requests', { key: null, headers: { 'x-Api-KEY': t.key } });
    expect(res.status).toBe(200);
  });
});

describe('sessions', () => {
  it('exchanges a key for a Bearer token accepted everywhere, and revocation ends it', async () => {
    const { body: created } = await t.api('/api/public/v2/api-keys', { body: { name: 'desktop' } });
    const session = await t.api('/api/public/v2/session', { method: 'POST', key: created.key });
    expect(session.status).toBe(200);
    expect(Date.parse(session.body.expires_at)).toBeGreaterThan(Date.now());
    const bearer = { Authorization: `Bearer ${session.body.token}` };
    expect((await t.api('/api/public/v2/requests', { key: null, headers: bearer })).status).toBe(200);
    expect((await t.api('/log-request', { key: null, headers: bearer, body: logBody() })).status).toBe(201);

    const tampered = { Authorization: `Bearer ${session.body.token.slice(0, -2)}xx` };
    expect((await t.api('/api/public/v2/requests', { key: null, headers: tampered })).status).toBe(401);

    await t.api(`/api/public/v2/api-keys/${created.api_key.id}`, { method: 'DELETE' });
    expect((await t.api('/api/public/v2/requests', { key: null, headers: bearer })).status).toBe(401);
  });
});

describe('workspaces', () => {
  it('isolates workspaces: ids from another workspace answer 404', async () => {
    const ws = await t.api('/api/public/v2/workspaces', { body: { name: 'Team B' } });
    expect(ws.status).toBe(201);
    expect(ws.body.workspace).toMatchObject({ name: 'Team B', id: expect.any(Number) });
    const other = ws.body.api_key as string;

    const mine = await t.api('/log-request', { body: logBody({ tags: ['mine'] }) });
    const theirs = await t.api('/log-request', { key: other, body: logBody({ tags: ['theirs'] }) });
    expect(theirs.status).toBe(201);

    expect((await t.api(`/api/public/v2/requests/${theirs.body.id}`)).status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${mine.body.id}`, { key: other })).status).toBe(404);
    const listed = await t.api('/api/public/v2/requests?limit=200', { key: other });
    expect(listed.body.items.map((r: { id: number }) => r.id)).toEqual([theirs.body.id]);
    expect((await t.api('/api/public/v2/requests?tags=theirs')).body.items).toEqual([]);

    for (const path of ['/library-track-score', '/rest/track-score']) {
      const res = await t.api(path, { key: other, body: { request_id: mine.body.id, score: 1 } });
      expect(res.status).toBe(404);
    }
    expect((await t.api('/rest/track-metadata', { key: other, body: { request_id: mine.body.id, metadata: { a: 'b' } } })).status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${mine.body.id}`)).body.scores).toEqual({});

    const { body: group } = await t.api('/create-group', { key: other, body: {} });
    expect((await t.api('/rest/track-group', { body: { request_id: mine.body.id, group_id: group.id } })).status).toBe(404);

    const { body: theirKeys } = await t.api('/api/public/v2/api-keys', { key: other });
    const theirKeyId = theirKeys.api_keys[0].id;
    expect((await t.api(`/api/public/v2/api-keys/${theirKeyId}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers known keys from memory for their own workspace; a revoked key at once, the others still', async () => {
    const { body: ws } = await t.api('/api/public/v2/workspaces', { body: { name: 'Cached' } });
    const { body: second } = await t.api('/api/public/v2/api-keys', { body: { name: 'second' } });
    const keys = { mine: t.key, second: second.key as string, theirs: ws.api_key as string };
    // Each key used twice (the second answer comes from memory), alternating.
    const ids: Record<string, number[]> = { mine: [], second: [], theirs: [] };
    for (let round = 0; round < 2; round++) {
      for (const [name, key] of Object.entries(keys)) {
        const res = await t.api('/log-request', { key, body: logBody({ tags: [`cached-${name}`] }) });
        expect(res.status).toBe(201);
        ids[name].push(res.body.id);
      }
    }
    const listed = async (key: string) =>
      (await t.api('/api/public/v2/requests?tags=cached-theirs&limit=200', { key })).body.items.map((r: { id: number }) => r.id).sort();
    expect(await listed(keys.theirs)).toEqual(ids.theirs.sort());
    expect(await listed(keys.mine)).toEqual([]);
    // A key one character off, or with its case changed, is another key.
    for (const near of [`${keys.mine}x`, keys.mine.slice(0, -1), keys.mine.toUpperCase()]) {
      expect((await t.api('/log-request', { key: near, body: logBody() })).status).toBe(401);
    }

    expect((await t.api(`/api/public/v2/api-keys/${second.api_key.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api('/log-request', { key: keys.second, body: logBody() })).status).toBe(401);
    expect((await t.api('/log-request', { key: keys.second, body: logBody() })).status).toBe(401);
    expect((await t.api('/log-request', { key: keys.mine, body: logBody() })).status).toBe(201);
    expect((await t.api('/log-request', { key: keys.theirs, body: logBody() })).status).toBe(201);
  });

  it('lets only the default workspace create workspaces (403 otherwise)', async () => {
    const { body } = await t.api('/api/public/v2/workspaces', { body: { name: 'C' } });
    const res = await t.api('/api/public/v2/workspaces', { key: body.api_key, body: { name: 'D' } });
    expect(res.status).toBe(403);
    expect(res.body.success).toBe(false);
  });

  it('validates the workspace name', async () => {
    const res = await t.api('/api/public/v2/workspaces', { body: { name: '' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'name']);
  });
});

describe('PROMPTLEDGER_API_KEY', () => {
  it('registers the given key for the default workspace and does not generate one', async () => {
    const s = await startServer({ apiKey: 'pl_from_environment_123' });
    try {
      expect(s.server.generatedKey).toBeUndefined();
      expect((await s.api('/log-request', { key: 'pl_from_environment_123', body: logBody() })).status).toBe(201);
      await s.restart();
      expect((await s.api('/api/public/v2/requests', { key: 'pl_from_environment_123' })).body.items).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allRows, publishDataset, waitForRun } from './support/evaluations';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

/**
 * The egress setting (issue 10, item 8). `0.0.0.0:<port>` reaches the local mock on Linux yet is
 * not loopback by our rule (only `localhost` and 127/8, ::1 are), so it stands in for "a remote
 * host" without the tests touching the network.
 */
let t: TestServer;
let mock: MockLlm;
let remote: string;
let loopback: string;

beforeAll(async () => {
  mock = await startMockLlm();
  const port = new URL(mock.rootUrl).port;
  remote = `http://0.0.0.0:${port}`;
  loopback = mock.rootUrl;
  t = await startServer({ env: { OPENAI_BASE_URL: `${remote}/v1`, OPENAI_API_KEY: 'sk-env' } });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(async () => {
  mock.resetCounters();
  await setEgress({ offline: false, allowed_hosts: [] });
});

async function setEgress(body: unknown, key?: string) {
  const res = await t.api('/api/public/v2/settings/egress', { method: 'PUT', body, key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const endpointColumn = (name: string, url: string) => ({ column_type: 'ENDPOINT', name, configuration: { url } });

async function run(columns: unknown[]) {
  const { groupId } = await publishDataset(t, [{ q: 'hello' }]);
  const pipeline = await t.api('/reports', { body: { dataset_group_id: groupId, columns } });
  expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
  const started = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'egress' } });
  const reportId = started.body.report_id as number;
  await waitForRun(t, reportId);
  const { rows } = await allRows(t, reportId);
  return { reportId, cells: rows[0].cells as Record<string, { status: string; error?: string; value: unknown }> };
}

describe('egress setting', () => {
  it('is online by default, saved per workspace, and normalised', async () => {
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'Egress other' } })).body.api_key as string;
    expect((await t.api('/api/public/v2/settings/egress', { key: other })).body).toEqual({ offline: false, allowed_hosts: [] });
    const saved = await setEgress({ offline: true, allowed_hosts: ['API.Example.com', 'api.example.com', ' 10.0.0.7 ', '[::2]'] });
    expect(saved).toEqual({ offline: true, allowed_hosts: ['api.example.com', '10.0.0.7', '::2'] });
    expect((await t.api('/api/public/v2/settings/egress')).body).toEqual(saved);
    expect((await t.api('/api/public/v2/settings/egress', { key: other })).body).toEqual({ offline: false, allowed_hosts: [] });
    expect(await setEgress({ offline: false })).toEqual({ offline: false, allowed_hosts: [] });
  });

  it('rejects bad settings with 422 naming the field, and keeps the old one', async () => {
    await setEgress({ offline: true, allowed_hosts: ['kept.example'] });
    const cases: Array<[unknown, Array<string | number>]> = [
      [{}, ['body', 'offline']],
      [{ offline: 'yes' }, ['body', 'offline']],
      [{ offline: true, allowed_hosts: 'a.example' }, ['body', 'allowed_hosts']],
      [{ offline: true, allowed_hosts: ['https://a.example'] }, ['body', 'allowed_hosts', 0]],
      [{ offline: true, allowed_hosts: ['ok.example', 'a.example:8080'] }, ['body', 'allowed_hosts', 1]],
      [{ offline: true, allowed_hosts: ['a.example/path'] }, ['body', 'allowed_hosts', 0]],
      [{ offline: true, allowed_hosts: [''] }, ['body', 'allowed_hosts', 0]],
      [{ offline: true, allowed_hosts: Array.from({ length: 201 }, (_, i) => `h${i}.example`) }, ['body', 'allowed_hosts']],
    ];
    for (const [body, loc] of cases) {
      const res = await t.api('/api/public/v2/settings/egress', { method: 'PUT', body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect((await t.api('/api/public/v2/settings/egress')).body).toEqual({ offline: true, allowed_hosts: ['kept.example'] });
    const most = Array.from({ length: 200 }, (_, i) => `h${i}.example`);
    expect((await setEgress({ offline: true, allowed_hosts: most })).allowed_hosts).toHaveLength(200);
  });
});

describe('offline runs', () => {
  it('a blocked ENDPOINT cell errors with a clear message; loopback is allowed; the run logs its hosts', async () => {
    await setEgress({ offline: true, allowed_hosts: [] });
    const { reportId, cells } = await run([
      endpointColumn('local', `${loopback}/v1/embeddings`),
      endpointColumn('named-local', `http://localhost:${new URL(loopback).port}/v1/embeddings`),
      endpointColumn('far', `${remote}/v1/embeddings`),
    ]);
    expect(cells.local.status).toBe('PASSED');
    expect(cells['named-local'].status).toBe('PASSED');
    expect(cells.far).toMatchObject({ status: 'ERROR', error: `Blocked by the offline setting: ${new URL(remote).host} is neither loopback nor in the allowed hosts (Settings → Network).` });
    expect(mock.calls).toHaveLength(2);

    const log = await t.api(`/api/public/v2/reports/${reportId}/outbound-hosts`);
    expect(log.status).toBe(200);
    expect(log.body.hosts).toEqual(expect.arrayContaining([
      { host: new URL(loopback).host, calls: 1, blocked: 0 },
      { host: `localhost:${new URL(loopback).port}`, calls: 1, blocked: 0 },
      { host: new URL(remote).host, calls: 0, blocked: 1 },
    ]));
    expect(log.body.hosts).toHaveLength(3);
  });

  it('every call of a run is counted once, however many share a commit; a setting saved between runs applies to the next', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({ q: `row ${i}` }));
    const { groupId } = await publishDataset(t, rows);
    const pipeline = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [endpointColumn('local', `${loopback}/v1/embeddings`)] } });
    const runOnce = async () => {
      const started = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'many', concurrency: 6 } });
      await waitForRun(t, started.body.report_id);
      return (await t.api(`/api/public/v2/reports/${started.body.report_id}/outbound-hosts`)).body.hosts;
    };
    expect(await runOnce()).toEqual([{ host: new URL(loopback).host, calls: 30, blocked: 0 }]);
    // The setting is read per call from what `put` last saved, not from a stale copy.
    await setEgress({ offline: true, allowed_hosts: [] });
    const far = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [endpointColumn('far', `${remote}/v1/embeddings`)] } });
    const started = await t.api(`/reports/${far.body.report_id}/run`, { body: { name: 'blocked', concurrency: 6 } });
    await waitForRun(t, started.body.report_id);
    expect((await t.api(`/api/public/v2/reports/${started.body.report_id}/outbound-hosts`)).body.hosts).toEqual([{ host: new URL(remote).host, calls: 0, blocked: 30 }]);
  });

  it('a listed host is allowed while offline', async () => {
    await setEgress({ offline: true, allowed_hosts: ['0.0.0.0'] });
    const { cells } = await run([endpointColumn('far', `${remote}/v1/embeddings`)]);
    expect(cells.far.status).toBe('PASSED');
  });

  it('a loopback server cannot redirect a call out; online, the redirect is followed and both hosts are logged', async () => {
    const bounce = `${loopback}/redirect?to=${encodeURIComponent(`${remote}/v1/embeddings`)}`;
    await setEgress({ offline: true, allowed_hosts: [] });
    const blocked = await run([endpointColumn('bounce', bounce)]);
    expect(blocked.cells.bounce).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^Blocked by the offline setting: 0\.0\.0\.0:/) });
    expect(mock.calls.map((c) => c.path)).toEqual(['/redirect']);

    await setEgress({ offline: false, allowed_hosts: [] });
    const followed = await run([endpointColumn('bounce', bounce)]);
    expect(followed.cells.bounce.status).toBe('PASSED');
    const hosts = (await t.api(`/api/public/v2/reports/${followed.reportId}/outbound-hosts`)).body.hosts;
    expect(hosts).toEqual(expect.arrayContaining([{ host: new URL(loopback).host, calls: 1, blocked: 0 }, { host: new URL(remote).host, calls: 1, blocked: 0 }]));
  });

  it('provider calls in evaluations honour it, without retrying', async () => {
    await setEgress({ offline: true, allowed_hosts: [] });
    const prompt = {
      column_type: 'PROMPT_TEMPLATE', name: 'answer',
      configuration: { inline_template: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'hi' }] } }, engine: { provider: 'openai', model: 'gpt-4o-mini' } },
    };
    const similarity = { column_type: 'COSINE_SIMILARITY', name: 'sim', configuration: { sources: ['q', 'q'] } };
    const { reportId, cells } = await run([prompt, similarity]);
    expect(cells.answer).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^Blocked by the offline setting/) });
    expect(cells.sim).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^Blocked by the offline setting/) });
    expect(mock.calls).toHaveLength(0);
    expect((await t.api(`/api/public/v2/reports/${reportId}/outbound-hosts`)).body.hosts).toEqual([{ host: new URL(remote).host, calls: 0, blocked: 2 }]);
  });

  it('the provider connection test honours it', async () => {
    const far = (await t.api('/api/public/v2/providers', { body: { name: 'far-away', client: 'openai', base_url: `${remote}/v1` } })).body.provider;
    await setEgress({ offline: true, allowed_hosts: [] });
    const res = await t.api(`/api/public/v2/providers/${far.id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, error: expect.stringMatching(/^Blocked by the offline setting/) });
    expect(mock.calls).toHaveLength(0);
    await setEgress({ offline: true, allowed_hosts: ['0.0.0.0'] });
    expect((await t.api(`/api/public/v2/providers/${far.id}/test`, { method: 'POST' })).body.ok).toBe(true);
  });

  it("a run's host log is 404 for an unknown report or another workspace's", async () => {
    const { reportId } = await run([endpointColumn('local', `${loopback}/v1/embeddings`)]);
    expect((await t.api('/api/public/v2/reports/999999/outbound-hosts')).status).toBe(404);
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'Egress snoop' } })).body.api_key as string;
    expect((await t.api(`/api/public/v2/reports/${reportId}/outbound-hosts`, { key: other })).status).toBe(404);
  });
});

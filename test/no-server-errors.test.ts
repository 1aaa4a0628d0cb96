import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset } from './support/evaluations';
import { logBody } from './support/factories';
import { call, startServer, type TestServer } from './support/server';

/**
 * "Never a 5xx for client input": every route in /openapi.json, called with bodies and ids a
 * careless or hostile client might send, answers a JSON 4xx (or a success), never a 5xx — a 5xx
 * also makes the PromptLayer SDK retry for seconds.
 */
let t: TestServer;
let paths: Record<string, Record<string, { requestBody?: unknown; parameters?: Array<{ name: string; in: string }> }>>;
beforeAll(async () => {
  t = await startServer();
  paths = (await t.api('/openapi.json', { key: null })).body.paths;
});
afterAll(() => t.close());

const ids = ['999999', '0', '-1', 'abc', '1.5', '%20', 'x'.repeat(300)];
const bodies: Array<{ body?: unknown; rawBody?: string }> = [
  {},
  { body: {} },
  { body: [] },
  { body: null },
  { body: 'text' },
  { body: 42 },
  { rawBody: '{"unterminated": ' },
  { body: { name: ['array'], id: { nested: true }, dataset_group_id: 'one', rows: 'x', columns: 7, prompt_template: 3 } },
];

describe('no 5xx for client input', () => {
  it('holds for every documented route', async () => {
    const failures: string[] = [];
    for (const [path, methods] of Object.entries(paths)) {
      for (const method of Object.keys(methods)) {
        if (path.endsWith('/events')) continue; // an SSE stream; its unknown-id case is covered below
        const concrete = path.includes('{') ? ids.map((id) => path.replace(/\{[^}]+\}/g, encodeURIComponent(id))) : [path];
        for (const url of concrete) {
          for (const variant of method === 'get' || method === 'delete' ? [{}] : bodies) {
            const res = await call(t.url, url, { method: method.toUpperCase(), key: t.key, ...variant });
            if (res.status >= 500) failures.push(`${method.toUpperCase()} ${url} ${JSON.stringify(variant).slice(0, 80)} → ${res.status} ${JSON.stringify(res.body)}`);
            else if (res.status >= 400 && (typeof res.body !== 'object' || res.body?.success !== false)) {
              failures.push(`${method.toUpperCase()} ${url} → ${res.status} without the error body: ${String(res.body).slice(0, 80)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('holds with real ids of every kind of object, so bad bodies reach the deeper rules', async () => {
    const request = (await t.api('/log-request', { body: logBody() })).body.id;
    const dataset = await publishDataset(t, [{ q: 'a', a: 'b' }]);
    const draft = (await t.api(`/api/public/v2/datasets?dataset_group_id=${dataset.groupId}`)).body.datasets.find(
      (d: { version_number: number }) => d.version_number === -1,
    ).id;
    const folder = (await t.api('/api/public/v2/folders', { body: { name: 'f' } })).body.folder.id;
    const template = (await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'fuzz' },
        prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'hi {x}' }], input_variables: ['x'] } },
        release_labels: ['prod'],
      },
    })).body;
    const label = (await t.api('/prompt-templates/fuzz/labels')).body;
    const labelId = (Array.isArray(label) ? label : label.release_labels ?? label.labels ?? label.items)[0].id;
    const report = (await t.api('/reports', { body: { dataset_group_id: dataset.groupId, name: 'fuzz' } })).body;
    const column = (await t.api('/report-columns', {
      body: { report_id: report.report_id, column_type: 'CONTAINS', name: 'has a', configuration: { source: 'a', value: 'b' } },
    })).body.report_column.id;
    const real: Array<[RegExp, string]> = [
      [/^\/api\/public\/v2\/requests\//, String(request)],
      [/^\/api\/public\/v2\/dataset-groups\//, String(dataset.groupId)],
      [/^\/api\/public\/v2\/datasets\//, String(draft)],
      [/^\/api\/public\/v2\/folders\//, String(folder)],
      [/^\/(api\/public\/v2\/)?reports\//, String(report.report_id)],
      [/^\/report-columns\//, String(column)],
      [/^\/prompt-templates\//, 'fuzz'],
      [/^\/api\/public\/v2\/prompt-templates\//, String(template.id)],
      [/^\/prompts\//, String(template.id)],
      [/^\/prompt-labels\//, String(labelId)],
    ];
    const failures: string[] = [];
    let calls = 0;
    for (const [path, methods] of Object.entries(paths)) {
      const id = real.find(([pattern]) => pattern.test(path))?.[1];
      if (!path.includes('{') || !id || path.endsWith('/events')) continue;
      const url = path.replace(/\{[^}]+\}/g, encodeURIComponent(id));
      for (const method of Object.keys(methods).filter((m) => m !== 'delete')) {
        for (const variant of method === 'get' ? [{}] : bodies) {
          const res = await call(t.url, url, { method: method.toUpperCase(), key: t.key, ...variant });
          calls++;
          if (res.status >= 500) failures.push(`${method.toUpperCase()} ${url} ${JSON.stringify(variant).slice(0, 80)} → ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(60);
  });

  it('answers query strings of the wrong type with 422, not 5xx', async () => {
    const queries = ['page=abc', 'per_page=1000', 'page=-1', 'limit=x', 'version=abc', 'label=', 'format=xml'];
    // The query is checked before the handler looks the id up, so any well-formed id will do.
    const gets = Object.keys(paths).filter((p) => paths[p].get && !p.endsWith('/events'));
    for (const query of queries) {
      const name = query.split('=')[0];
      const declares = (p: string) => (paths[p].get.parameters ?? []).some((x) => x.in === 'query' && x.name === name);
      expect(gets.filter(declares).length, `a route declares '${name}'`).toBeGreaterThan(0);
      for (const path of gets) {
        const url = `${path.replace(/\{[^}]+\}/g, '1')}?${query}`;
        const res = await t.api(url);
        if (declares(path)) {
          expect(res.status, url).toBe(422);
          expect(res.body.detail?.[0]?.loc, url).toEqual(['query', name]);
        } else expect(res.status, url).toBeLessThan(500);
      }
    }
  });

  it('takes malformed percent escapes in a query as text, not a 5xx', async () => {
    for (const path of Object.keys(paths).filter((p) => !p.includes('{') && paths[p].get)) {
      const res = await t.api(`${path}?q=%%%`);
      expect(res.status, path).toBeLessThan(500);
    }
    const search = await t.api('/api/public/v2/requests?q=%%%');
    expect(search.status).toBe(200);
  });

  it('answers the events stream of an unknown report with 404', async () => {
    const res = await t.api('/api/public/v2/reports/999999/events');
    expect(res.status).toBe(404);
  });
});

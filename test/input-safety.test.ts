import http from 'node:http';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH } from '../src-server/json-depth';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

let t: TestServer;

beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.close();
});

/** /health answered within `ms`: the event loop is free. */
async function answersPromptly(ms = 1000) {
  const started = Date.now();
  const health = await t.api('/health', { key: null });
  expect(health.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(ms);
}

async function runColumns(rows: Array<Record<string, unknown>>, columns: unknown[]) {
  const { groupId } = await publishDataset(t, rows);
  const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const run = await t.api(`/reports/${p.body.report_id}/run`, { body: { name: 'run' } });
  expect(run.status).toBe(201);
  return run.body.report_id as number;
}

describe('user regular expressions run in linear time', () => {
  const evil = `${'a'.repeat(34)}!`;

  test('a catastrophic pattern does not hold the server', async () => {
    const reportId = await runColumns([{ text: evil }, { text: 'aaa' }], [
      { column_type: 'REGEX', name: 'm', configuration: { source: 'text', regex_pattern: '^(a+)+$' } },
      { column_type: 'REGEX_EXTRACTION', name: 'x', configuration: { source: 'text', regex_pattern: '(a+)+!' } },
    ]);
    await answersPromptly();
    const done = await waitForRun(t, reportId, 5000);
    expect(done.status).toBe('COMPLETED');
    const { rows } = await allRows(t, reportId);
    expect(rows.map((r) => [r.cells.m.value, r.cells.x.value])).toEqual([[false, ['a'.repeat(34)]], [true, []]]);
  });

  test.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', 'a(?=b)'],
    ['a lookbehind', '(?<=a)b'],
  ])('%s is refused at column creation, naming regex_pattern', async (_name, pattern) => {
    const { groupId } = await publishDataset(t, [{ text: 'ab' }]);
    const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [{ column_type: 'REGEX', name: 'm', configuration: { source: 'text', regex_pattern: pattern } }] } });
    expect(p.status).toBe(422);
    expect(JSON.stringify(p.body.detail)).toContain('regex_pattern');
    expect(p.body.message).toMatch(/linear-time/);
  });

  test('JavaScript escapes RE2 spells differently still work', async () => {
    const reportId = await runColumns([{ text: 'say A and é' }], [
      { column_type: 'REGEX_EXTRACTION', name: 'x', configuration: { source: 'text', regex_pattern: '\\u0041|\\u{e9}|s\\w+' } },
    ]);
    const done = await waitForRun(t, reportId, 5000);
    expect(done.status).toBe('COMPLETED');
    const { rows } = await allRows(t, reportId);
    expect(rows[0].cells.x.value).toEqual(['say', 'A', 'é']);
  });
});

/**
 * Sends the headers and the first 64 KB of a body that declares `declaredBytes`, and resolves with
 * the status the server answers before the rest arrives (or rejects after `ms`).
 */
function answerBeforeBody(path: string, headers: Record<string, string>, declaredBytes = 50 * 1024 * 1024, ms = 2000) {
  const url = new URL(t.url + path);
  return new Promise<number>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...headers, 'content-length': String(declaredBytes) } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${ms} ms: the server waited for the body`));
    }, ms);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode!);
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(64 * 1024, 'x'));
  });
}

describe('a body is read only once the request may send it', () => {
  test('no key: 401 before the body is read', async () => {
    expect(await answerBeforeBody('/reports', { 'content-type': 'text/plain' })).toBe(401);
    expect(await answerBeforeBody('/rest/prompt-templates', { 'content-type': 'application/json' })).toBe(401);
    await answersPromptly();
  });

  test('a revoked or unknown key: 401 before the body is read', async () => {
    expect(await answerBeforeBody('/reports', { 'content-type': 'application/json', 'x-api-key': 'pl_not_a_key' })).toBe(401);
  });

  test('a valid key with a non-JSON content type: 415 before the body is read', async () => {
    expect(await answerBeforeBody('/reports', { 'content-type': 'text/plain', 'x-api-key': t.key })).toBe(415);
    expect(await answerBeforeBody('/log-request', { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': t.key })).toBe(415);
  });

  test('JSON content types the SDKs and scripts send are accepted', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const res = await t.api('/log-request', { body: logBody(), headers: { 'content-type': type } });
      expect(res.status, type).toBe(201);
    }
    // No content type at all: taken as JSON.
    const res = await fetch(`${t.url}/log-request`, { method: 'POST', headers: { 'x-api-key': t.key }, body: new Blob([JSON.stringify(logBody())]) });
    expect(res.status).toBe(201);
  });

  test('a legacy tracking route with the key in a text/plain body is 415 and writes nothing', async () => {
    const tag = `cors-${Date.now()}`;
    const res = await t.api('/log-request', { key: null, rawBody: JSON.stringify({ ...logBody({ tags: [tag] }), api_key: t.key }), headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false });
    const list = await t.api(`/api/public/v2/requests?tags=${tag}`);
    expect(list.body.items).toEqual([]);
  });

  test('a legacy tracking route still takes the key from a JSON body', async () => {
    const res = await t.api('/log-request', { key: null, body: { ...logBody(), api_key: t.key } });
    expect(res.status).toBe(201);
  });

  test('an upload with a non-JSON content type is 415', async () => {
    const res = await t.api('/api/public/v2/dataset-versions/from-file', { rawBody: '{}', headers: { 'content-type': 'text/csv' } });
    expect(res.status).toBe(415);
  });
});

/** `levels` nested objects around a number, as text (JSON.stringify itself overflows the stack
 * past a few thousand levels): `{"a":{"a":…1}}`. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** `body` as JSON text with the string "DEEP" replaced by `levels` nested objects. */
const withDeep = (body: unknown, levels: number) => JSON.stringify(body).replace('"DEEP"', nestedText(levels));

describe('deeply nested JSON is a 422, never a 500', () => {
  test(`a body nested exactly ${MAX_JSON_DEPTH} levels is stored and read back`, async () => {
    // The body object is one level, `parameters` holds the rest.
    const res = await t.api('/log-request', { rawBody: withDeep(logBody({ parameters: 'DEEP' }), MAX_JSON_DEPTH - 1) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    const detail = await t.api(`/api/public/v2/requests/${res.body.id}`);
    expect(detail.status).toBe(200);
  });

  test(`a shallow body with more than ${MAX_JSON_DEPTH} brackets, in strings and in a long array, is stored`, async () => {
    const text = '{['.repeat(MAX_JSON_DEPTH);
    const list = Array.from({ length: MAX_JSON_DEPTH + 1 }, (_, i) => [i]);
    const res = await t.api('/log-request', { body: logBody({ input: { type: 'completion', content: text }, parameters: { list } }) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    const detail = await t.api(`/api/public/v2/requests/${res.body.id}`);
    expect(detail.body.input.content).toBe(text);
    expect(detail.body.parameters.list).toHaveLength(MAX_JSON_DEPTH + 1);
  });

  test.each([MAX_JSON_DEPTH, 5000, 100_000])('parameters nested %i levels (body one more) is 422', async (levels) => {
    const res = await t.api('/log-request', { rawBody: withDeep(logBody({ parameters: 'DEEP' }), levels) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_too_deep' });
  });

  test('nested content and input variables are 422', async () => {
    const input = { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', extra: 'DEEP' }] }] };
    const content = await t.api('/log-request', { rawBody: withDeep(logBody({ input }), 5000) });
    expect(content.status).toBe(422);
    const fetched = await t.api('/prompt-templates/anything', { rawBody: withDeep({ input_variables: { v: 'DEEP' } }, 5000) });
    expect(fetched.status).toBe(422);
  });

  test('a .json dataset file with a deeply nested element is 422', async () => {
    const group = await t.api('/api/public/v2/dataset-groups', { body: { name: `deep-${Date.now()}` } });
    expect(group.status).toBe(201);
    const file = withDeep([{ q: 'fine' }, { q: 'DEEP' }], 5000);
    const version = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: group.body.dataset_group.id, file_name: 'deep.json', file_content_base64: Buffer.from(file).toString('base64') },
    });
    expect(version.status, JSON.stringify(version.body)).toBe(422);
    expect(version.body.message).toMatch(/nested deeper than 512/);
  });
});

describe('timestamps outside what the store can key are 422', () => {
  const maxSeconds = Date.UTC(2200, 0, 1) / 1000 - 0.001;

  test.each([
    ['1e10 epoch seconds', 1e10],
    ['just past the upper bound', maxSeconds + 0.001],
    ['negative epoch seconds', -1],
    ['a far-future ISO date', '2300-01-01T00:00:00Z'],
    ['an ISO date before 1970', '1969-12-31T23:59:59Z'],
  ])('%s → 422 naming the field', async (_name, value) => {
    const res = await t.api('/log-request', { body: logBody({ request_start_time: value }) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'request_start_time']);
  });

  test.each([
    ['the upper bound', maxSeconds, '2199-12-31T23:59:59.999Z'],
    ['the lower bound', 0, '1970-01-01T00:00:00.000Z'],
  ])('%s is stored and read back exactly', async (_name, value, iso) => {
    const res = await t.api('/log-request', { body: logBody({ request_start_time: value, request_end_time: value }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const detail = await t.api(`/api/public/v2/requests/${res.body.id}`);
    expect(detail.body.request_start_time ?? detail.body.request?.request_start_time).toBe(iso);
  });

  test('a far-future filter on the explorer is 422, not 500', async () => {
    const res = await t.api('/api/public/v2/requests?start_time=10000000000');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'start_time']);
  });
});

describe('a jinja2 render has a size and a time budget', () => {
  const bombs = [
    ['an allocating filter', '{{ "x" | center(300000000) }}', /longer than the limit of 4000000 characters/],
    ['nested loops', '{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}', /longer than the limit of 1000 ms/],
    ['doubling a variable', '{% set s = "xxxxxxxx" %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s }}', /limit of 4000000 characters/],
    ['amplifying replaces', '{{ range(10000) | join("xxxxxxxxxx") | replace("x", "xxxxxxxxxx") | replace("x", "xxxxxxxxxx") }}', /limit of 4000000 characters/],
    ['exponential macro recursion', '{% macro m(n) %}{% if n > 0 %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}{{ m(40) }}', /limit of (1000 ms|4000000 characters)/],
  ] as const;

  async function publishJinja(text: string) {
    const name = `bomb-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const res = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: name },
        prompt_version: { prompt_template: { type: 'chat', input_variables: ['v'], messages: [{ role: 'user', template_format: 'jinja2', content: [{ type: 'text', text }] }] } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return name;
  }

  test.each(bombs)('%s: fetch-for-use answers 422 naming the limit, and the server stays responsive', async (_name, text, limit) => {
    const name = await publishJinja(text);
    const res = await t.api(`/prompt-templates/${name}`, { body: { input_variables: { v: 'x' } } });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(limit);
    expect(res.body.detail[0].loc).toEqual(['body', 'input_variables']);
    await answersPromptly();
  });

  test('an ordinary template renders as before', async () => {
    const name = await publishJinja('{% for x in v %}{{ loop.index }}={{ x | upper | center(5) }};{% endfor %}{{ v | join("+") }}');
    const res = await t.api(`/prompt-templates/${name}`, { body: { input_variables: { v: ['a', 'b'] } } });
    expect(res.status).toBe(200);
    expect(res.body.prompt_template.messages[0].content[0].text).toBe('1=  A  ;2=  B  ;a+b');
  });

  test('a regular-expression literal is refused when the template is published', async () => {
    const res = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: `re-${Date.now()}` },
        prompt_version: { prompt_template: { type: 'chat', messages: [{ role: 'user', template_format: 'jinja2', content: [{ type: 'text', text: '{{ v | replace(r/^(a+)+$/, "b") }}' }] }] } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/regular expression literals/);
  });

  test('in a run, a bomb is a cell error and the run completes', async () => {
    const column = (name: string, text: string) => ({
      column_type: 'PROMPT_TEMPLATE',
      name,
      configuration: {
        inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', template_format: 'jinja2', content: [{ type: 'text', text }] }] } },
        prompt_template_variable_mappings: { v: 'q' },
        engine: { provider: 'openai', model: 'gpt-4o-mini' },
      },
    });
    const reportId = await runColumns([{ q: 'x' }], [column('big', bombs[0][1]), column('slow', bombs[1][1])]);
    const done = await waitForRun(t, reportId, 10_000);
    expect(done.status).toBe('COMPLETED');
    const { rows } = await allRows(t, reportId);
    expect(rows[0].cells.big.status).toBe('ERROR');
    expect(rows[0].cells.big.error).toMatch(/limit of 4000000 characters/);
    expect(rows[0].cells.slow.error).toMatch(/limit of 1000 ms/);
    await answersPromptly();
  });
});

async function newGroup() {
  const group = await t.api('/api/public/v2/dataset-groups', { body: { name: `safety-${Date.now()}-${Math.random().toString(36).slice(2)}` } });
  expect(group.status).toBe(201);
  return { groupId: group.body.dataset_group.id as number, draftId: group.body.dataset.id as number };
}

async function uploadFile(groupId: number, fileName: string, text: string) {
  const res = await t.api('/api/public/v2/dataset-versions/from-file', {
    body: { dataset_group_id: groupId, file_name: fileName, file_content_base64: Buffer.from(text).toString('base64') },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.dataset_id as number;
}

async function exportText(datasetId: number, format: 'csv' | 'jsonl') {
  const res = await fetch(`${t.url}/api/public/v2/datasets/${datasetId}/export?format=${format}`, { headers: { 'X-API-KEY': t.key } });
  expect(res.status).toBe(200);
  return res.text();
}

async function rowsOf(datasetId: number) {
  const res = await t.api(`/api/public/v2/datasets/${datasetId}/rows?per_page=100`);
  expect(res.status).toBe(200);
  return { columns: res.body.columns as string[], rows: res.body.rows.map((r: { data: unknown }) => r.data) as Array<Record<string, unknown>> };
}

describe('CSV export neutralises spreadsheet formulas', () => {
  const values = ['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil")', 'plain', "'=kept", -5, '-5', '+1.5e3', 'a=b'];

  test('a cell starting with = + - @ tab or CR gets a leading apostrophe; plain numbers and text do not', async () => {
    const { groupId } = await newGroup();
    const id = await uploadFile(groupId, 'f.jsonl', values.map((v) => JSON.stringify({ '=col': v })).join('\n'));
    const csv = await exportText(id, 'csv');
    const parsed = Papa.parse<string[]>(csv.trimEnd(), { newline: '\r\n' }).data;
    expect(parsed[0]).toEqual(["'=col"]);
    expect(parsed.slice(1).map((r) => r[0])).toEqual([
      "'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "'\tx", "'\rx", '\'=HYPERLINK("http://evil")', 'plain', "'=kept", '-5', '-5', '+1.5e3', 'a=b',
    ]);
  });

  test('JSONL export is unchanged, and re-importing the CSV keeps the apostrophes as text', async () => {
    const { groupId } = await newGroup();
    const id = await uploadFile(groupId, 'f.jsonl', [JSON.stringify({ a: '=1+1' }), JSON.stringify({ a: 'ok' })].join('\n'));
    expect((await exportText(id, 'jsonl')).trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([{ a: '=1+1' }, { a: 'ok' }]);
    const again = await uploadFile(groupId, 'again.csv', await exportText(id, 'csv'));
    expect((await rowsOf(again)).rows).toEqual([{ a: "'=1+1" }, { a: 'ok' }]);
  });
});

describe('columns named like Object.prototype members are data', () => {
  const names = ['__proto__', 'constructor', 'prototype', 'toString'];

  test.each([
    ['CSV', 'x.csv', `${[...names, 'a'].join(',')}\np,c,pr,t,1\n`],
    ['JSON', 'x.json', '[{"__proto__":"p","constructor":"c","prototype":"pr","toString":"t","a":"1"}]'],
    ['JSONL', 'x.jsonl', '{"__proto__":"p","constructor":"c","prototype":"pr","toString":"t","a":"1"}\n'],
  ])('%s import → rows → JSONL and CSV export keep them', async (_format, fileName, text) => {
    const { groupId } = await newGroup();
    const id = await uploadFile(groupId, fileName, text);
    const { columns, rows } = await rowsOf(id);
    expect(columns).toEqual([...names, 'a']);
    expect(JSON.stringify(rows[0])).toBe('{"__proto__":"p","constructor":"c","prototype":"pr","toString":"t","a":"1"}');
    const jsonl = (await exportText(id, 'jsonl')).trimEnd();
    expect(jsonl).toBe('{"__proto__":"p","constructor":"c","prototype":"pr","toString":"t","a":"1"}');
    expect(await exportText(id, 'csv')).toBe('__proto__,constructor,prototype,toString,a\r\np,c,pr,t,1\r\n');
  });

  test('a row without those keys reads them as null, not as inherited functions', async () => {
    const { groupId } = await newGroup();
    const id = await uploadFile(groupId, 'x.jsonl', '{"__proto__":"p","constructor":"c"}\n{"a":"1"}\n');
    const { rows } = await rowsOf(id);
    expect(JSON.stringify(rows[1])).toBe('{"__proto__":null,"constructor":null,"a":"1"}');
  });

  test('row editing (PUT rows) keeps them', async () => {
    const { draftId } = await newGroup();
    const put = await t.api(`/api/public/v2/datasets/${draftId}/rows`, { method: 'PUT', rawBody: '{"rows":[{"__proto__":"p","constructor":"c","prototype":"pr","a":1}]}' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const { columns, rows } = await rowsOf(draftId);
    expect(columns).toEqual(['__proto__', 'constructor', 'prototype', 'a']);
    expect(JSON.stringify(rows[0])).toBe('{"__proto__":"p","constructor":"c","prototype":"pr","a":1}');
    expect((await exportText(draftId, 'jsonl')).trimEnd()).toBe('{"__proto__":"p","constructor":"c","prototype":"pr","a":1}');
  });
});

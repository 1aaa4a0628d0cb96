// POST /log-request is served by the lean path (src-server/http/lean.ts), before Koa: the same
// rules must hold there as on every other route — auth, content type, size limit, schema — each
// at and just past its bound, and what it answers must look like a Koa answer.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

const LIMIT = 4000;
let t: TestServer;
beforeAll(async () => {
  t = await startServer({ bodyLimitBytes: LIMIT });
});
afterAll(() => t.close());

const countRequests = async () => (await t.api('/api/public/v2/requests?limit=1')).body.total_estimate as number;

/** A raw POST (fetch always sends a content type for a string body); resolves with status, headers and body. */
function post(path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any; text: string }>((resolve, reject) => {
    const url = new URL(path, t.url);
    const req = request(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A log body of exactly `bytes` bytes of JSON. */
function bodyOf(bytes: number): string {
  const base = JSON.stringify(logBody({ metadata: { pad: '' } }));
  return JSON.stringify(logBody({ metadata: { pad: 'x'.repeat(bytes - base.length) } }));
}

describe('the lean path of POST /log-request', () => {
  it('answers 201 with the headers Koa would send, query string or not', async () => {
    for (const path of ['/log-request', '/log-request?source=sdk']) {
      const res = await post(path, JSON.stringify(logBody()), { 'content-type': 'application/json', 'x-api-key': t.key });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(res.body)));
      expect(res.body.id).toBeGreaterThan(0);
    }
  });

  it('answers the bytes JSON.stringify writes, the input as stored, alike through Koa (a trailing slash)', async () => {
    const published = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'lean-linked' },
        prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Hi {name}' }] }, metadata: {} },
      },
    });
    expect(published.status).toBe(201);
    const awkward = 'quote " backslash \\ newline \n tab \t 東京 😀 \u2028 </script>';
    const bodies: Array<Record<string, unknown>> = [
      logBody(),
      logBody({
        input: { type: 'chat', messages: [{ content: [{ text: awkward, type: 'text', cache_control: { type: 'ephemeral' } }], role: 'user', name: 'ann' }], tools: null },
        parameters: { temperature: 0.5, stop: ['\n'] },
        status: 'ERROR', error_type: 'timeout', error_message: awkward,
      }),
      logBody({ input: { type: 'completion', content: awkward } }),
      logBody({ prompt_name: 'no-such-template' }),
      logBody({ prompt_name: 'lean-linked' }),
    ];
    for (const body of bodies) {
      for (const path of ['/log-request', '/log-request/']) {
        const res = await post(path, JSON.stringify(body), { 'content-type': 'application/json', 'x-api-key': t.key });
        expect(res.status, res.text).toBe(201);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.text).toBe(JSON.stringify(res.body));
        expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
        const stored = (await t.api(`/api/public/v2/requests/${res.body.id}`)).body;
        expect(res.body.prompt_version).toEqual(stored.prompt_version);
        if (body.prompt_name === 'lean-linked') expect(res.body.prompt_version.prompt_template.content[0].text).toBe('Hi {name}');
        else expect(res.body.prompt_version.prompt_template).toEqual(stored.input);
        expect(res.body).toMatchObject({ status: stored.status, error_type: stored.error_type, error_message: stored.error_message });
        expect('warning' in res.body).toBe(body.prompt_name === 'no-such-template');
      }
    }
  });

  it('leaves other methods and paths to the router', async () => {
    const viaKoa = await t.api('/track-request', { method: 'GET' });
    const lean = await t.api('/log-request', { method: 'GET' });
    expect(lean.status).toBe(viaKoa.status);
    expect(lean.status).not.toBe(201);
    expect((await t.api('/log-request/x', { body: logBody() })).status).toBe(404);
  });

  it('takes JSON content types and no content type, and refuses others with 415 storing nothing', async () => {
    const body = JSON.stringify(logBody());
    for (const type of ['application/json; charset=utf-8', 'application/vnd.promptledger+json']) {
      expect((await post('/log-request', body, { 'content-type': type, 'x-api-key': t.key })).status).toBe(201);
    }
    expect((await post('/log-request', body, { 'x-api-key': t.key })).status).toBe(201);
    const before = await countRequests();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await post('/log-request', body, { 'content-type': type, 'x-api-key': t.key });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ success: false, message: expect.stringContaining(type) });
    }
    expect(await countRequests()).toBe(before);
  });

  it('takes the key from the header or the body, and answers 401 without a valid one', async () => {
    const body = logBody();
    expect((await post('/log-request', JSON.stringify({ ...body, api_key: t.key }), { 'content-type': 'application/json' })).status).toBe(201);
    expect((await post('/log-request', JSON.stringify(body), { 'content-type': 'application/json', authorization: `Bearer ${t.key}` })).status).toBe(201);
    const before = await countRequests();
    const none = await post('/log-request', JSON.stringify(body), { 'content-type': 'application/json' });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ success: false, message: expect.stringContaining('Missing API key') });
    const wrong = await post('/log-request', JSON.stringify({ ...body, api_key: t.key }), { 'content-type': 'application/json', 'x-api-key': 'pl_wrong' });
    expect(wrong.status).toBe(401);
    expect((await post('/log-request', JSON.stringify({ ...body, api_key: 'pl_wrong' }), { 'content-type': 'application/json' })).status).toBe(401);
    expect(await countRequests()).toBe(before);
  });

  it('answers 401 for a wrong key in the header and 415 for a wrong type before reading the body', async () => {
    // 50 MB declared, 64 KB sent: an answer now means the rest was never awaited.
    const answerBeforeBody = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(new URL('/log-request', t.url), { method: 'POST', headers: { ...headers, 'content-length': String(50 * 1024 * 1024) } });
        const timer = setTimeout(() => (req.destroy(), reject(new Error('the server waited for the body'))), 2000);
        req.on('response', (res) => {
          clearTimeout(timer);
          res.resume();
          req.destroy();
          resolve(res.statusCode!);
        });
        req.on('error', () => undefined);
        req.write(Buffer.alloc(64 * 1024, 'x'));
      });
    expect(await answerBeforeBody({ 'content-type': 'application/json', 'x-api-key': 'pl_not_a_key' })).toBe(401);
    expect(await answerBeforeBody({ 'content-type': 'text/plain', 'x-api-key': t.key })).toBe(415);
  });

  it('reads a body of exactly the limit, and answers 413 one byte past it (declared or streamed) storing nothing', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': t.key };
    expect(Buffer.byteLength(bodyOf(LIMIT))).toBe(LIMIT);
    expect((await post('/log-request', bodyOf(LIMIT), headers)).status).toBe(201);
    const before = await countRequests();
    const over = await post('/log-request', bodyOf(LIMIT + 1), headers);
    expect(over.status).toBe(413);
    expect(over.headers.connection).toBe('close');
    expect(over.body).toMatchObject({ success: false, message: expect.stringContaining(`${LIMIT} bytes`) });
    // Chunked: no Content-Length to refuse it by, so the limit is met while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/log-request', t.url), { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      const text = bodyOf(LIMIT + 1);
      req.write(text.slice(0, 100));
      req.end(text.slice(100));
    });
    expect(chunked).toBe(413);
    expect(await countRequests()).toBe(before);
  });

  it('answers 422 naming the field, for malformed JSON, and for JSON nested too deep, storing nothing', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': t.key };
    const before = await countRequests();
    const invalid = await post('/log-request', JSON.stringify(logBody({ input_tokens: -1 })), headers);
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toContain("'input_tokens'");
    expect(invalid.body.detail[0]).toMatchObject({ loc: ['body', 'input_tokens'] });
    const malformed = await post('/log-request', '{"provider":', headers);
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const deep = await post('/log-request', `${'['.repeat(600)}${']'.repeat(600)}`, headers);
    expect(deep.status).toBe(422);
    expect(deep.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_too_deep' });
    expect(await countRequests()).toBe(before);
  });
});

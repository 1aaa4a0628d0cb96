import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

describe('system endpoints', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t.close());

  it('answers /health without a key', async () => {
    const res = await t.api('/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('serves an OpenAPI 3.1 document built from the request schemas', async () => {
    const res = await t.api('/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const logRequest = res.body.paths['/log-request'].post;
    const schema = logRequest.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(
      expect.arrayContaining(['provider', 'model', 'input', 'output', 'request_start_time', 'request_end_time']),
    );
    const variants = (s: any): any[] => s.anyOf ?? [s];
    const tags = variants(schema.properties.tags).find((v) => v.type === 'array');
    expect(tags.items.maxLength).toBe(512);
    expect(variants(schema.properties.score)).toEqual(
      expect.arrayContaining([expect.objectContaining({ minimum: 0, maximum: 100 })]),
    );
    expect(res.body.paths['/api/public/v2/requests/{id}'].get.parameters[0]).toMatchObject({ name: 'id', in: 'path' });
  });

  it('answers an unknown route with a JSON 404', async () => {
    const res = await t.api('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  });
});

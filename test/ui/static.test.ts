import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../src-main/renderer-build';
import { CONTENT_SECURITY_POLICY } from '../../src-server/http/static';
import { startServer, type TestServer } from '../support/server';

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the server serves the built UI', () => {
  let t: TestServer;
  let staticDir: string;
  beforeAll(async () => {
    staticDir = await ensureRendererBuilt({ root: process.cwd() });
    t = await startServer({ staticDir });
  });
  afterAll(() => t?.close());

  it('serves index.html at / with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${t.url}/`, { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await res.text()).toBe(readFileSync(join(staticDir, 'index.html'), 'utf8'));
  });

  it('falls back to index.html for client routes a browser opens', async () => {
    const res = await fetch(`${t.url}/requests/42?model=x`, { headers: html });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="root">');
  });

  it('serves hashed assets with a long cache lifetime', async () => {
    const index = readFileSync(join(staticDir, 'index.html'), 'utf8');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1];
    const res = await fetch(t.url + script);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const head = await fetch(t.url + script, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
  });

  it('keeps API routes first and JSON 404s for API clients and unknown API paths', async () => {
    expect(await (await fetch(`${t.url}/health`, { headers: html })).json()).toMatchObject({ status: 'ok' });
    const api = await fetch(`${t.url}/api/public/v2/nope`, { headers: html });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ success: false });
    const sdk = await fetch(`${t.url}/nope`);
    expect(sdk.status).toBe(404);
    expect(await sdk.json()).toMatchObject({ success: false });
    const post = await fetch(`${t.url}/`, { method: 'POST', headers: html });
    expect(post.status).toBe(404);
    const missingAsset = await fetch(`${t.url}/assets/missing.js`, { headers: html });
    expect(missingAsset.status).toBe(404);
  });

  it('never serves files outside the UI folder', async () => {
    for (const path of ['/..%2fpackage.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2f..%2fpackage.json', '/%E0%A4%A']) {
      const res = await fetch(t.url + path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('"dependencies"');
    }
  });

  it('answers the Settings page data: data folder and database size, owner only', async () => {
    const res = await t.api('/api/public/v2/system');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data_dir: t.dataDir, database_file: join(t.dataDir, 'promptledger.db'), database_bytes: expect.any(Number) });
    expect(res.body.database_bytes).toBeGreaterThan(0);
    const other = await t.api('/api/public/v2/workspaces', { body: { name: 'Team' } });
    expect((await t.api('/api/public/v2/system', { key: other.body.api_key })).status).toBe(403);
    expect((await t.api('/api/public/v2/system', { key: null })).status).toBe(401);
  });

  it('lists the evaluation column types with the JSON Schema the UI builds its forms from', async () => {
    const res = await t.api('/api/public/v2/column-types');
    expect(res.status).toBe(200);
    const contains = res.body.column_types.find((c: { id: string }) => c.id === 'CONTAINS');
    expect(contains.description).toEqual(expect.any(String));
    expect(contains.config_schema).toMatchObject({ type: 'object', required: ['source'], properties: { source: { type: 'string' }, value: { type: 'string' } } });
    expect(res.body.column_types.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining(['PROMPT_TEMPLATE', 'LLM_ASSERTION', 'CODE_EXECUTION', 'HUMAN', 'MIN_MAX']));
    expect((await t.api('/api/public/v2/column-types', { key: null })).status).toBe(401);
  });
});

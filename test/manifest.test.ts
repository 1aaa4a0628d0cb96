import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { publishDataset, waitForRun } from './support/evaluations';

let t: TestServer;
let mock: MockLlm;

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-env-secret-000' } });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(() => mock.resetCounters());

let prompts = 0;
async function publishPrompt(name: string, text: string, labels: string[] = []) {
  const res = await t.api('/rest/prompt-templates', {
    body: {
      prompt_template: { prompt_name: name },
      prompt_version: {
        prompt_template: { type: 'chat', input_variables: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
        metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0.2 } } },
      },
      release_labels: labels,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.version_number as number;
}

const registryColumn = (prompt: string, label: string) => ({
  column_type: 'PROMPT_TEMPLATE', name: 'answer',
  configuration: { template: { name: prompt, label }, prompt_template_variable_mappings: { x: 'q' } },
});

async function pipeline(rows: Array<Record<string, unknown>>, columns: unknown[]) {
  const { groupId, datasetId } = await publishDataset(t, rows);
  const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  return { groupId, datasetId, pipelineId: p.body.report_id as number };
}

async function run(pipelineId: number, body: Record<string, unknown> = {}) {
  const res = await t.api(`/reports/${pipelineId}/run`, { body: { name: `run ${Math.random()}`, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return waitForRun(t, res.body.report_id as number);
}

const userTexts = () => mock.calls.map((c) => JSON.stringify(c.body));

describe('run manifests', () => {
  test('a run stores its manifest: dataset version, hash, resolved label, engine, app version', async () => {
    const name = `manifest-${++prompts}`;
    await publishPrompt(name, 'v1 says {x}', ['prod']);
    const { pipelineId, groupId, datasetId } = await pipeline([{ q: 'a' }, { q: 'b' }], [registryColumn(name, 'prod')]);
    const done = await run(pipelineId, { concurrency: 2 });
    const m = done.report.manifest;
    expect(m.dataset).toEqual({ dataset_group_id: groupId, dataset_id: datasetId, version_number: 1, row_count: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(m.concurrency).toBe(2);
    expect(m.app_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(m.started_at)).not.toBeNaN();
    expect(m.columns.map((c: any) => [c.name, c.column_type, c.position])).toEqual([['q', 'DATASET', 0], ['answer', 'PROMPT_TEMPLATE', 1]]);
    expect(m.columns[1].resolved).toEqual({
      prompt_template_id: expect.any(Number), prompt_name: name, version_number: 1, label: 'prod',
      provider: 'openai', model: 'gpt-4o-mini', parameters: { temperature: 0.2 }, base_url: mock.baseUrl,
    });
    // The same rows hash the same; other rows do not.
    const again = await run(pipelineId);
    expect(again.report.manifest.dataset.sha256).toBe(m.dataset.sha256);
    const other = await pipeline([{ q: 'a' }, { q: 'c' }], [registryColumn(name, 'prod')]);
    expect((await run(other.pipelineId)).report.manifest.dataset.sha256).not.toBe(m.dataset.sha256);
    // A pipeline has no manifest.
    expect((await t.api(`/reports/${pipelineId}`)).body.report.manifest).toBeUndefined();
  });

  test('no secret appears in a manifest', async () => {
    const provider = await t.api('/api/public/v2/providers', {
      body: { name: `secret-provider-${++prompts}`, client: 'openai', base_url: mock.baseUrl, api_key: 'sk-provider-secret-222' },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const { pipelineId } = await pipeline([{ q: 'a' }], [
      {
        column_type: 'ENDPOINT', name: 'hook',
        configuration: { url: `${mock.baseUrl.replace('http://', 'http://user:sk-url-secret-111@')}/hook?api_key=sk-query-secret-333&x=1`, headers: { Authorization: 'Bearer sk-header-secret-444', 'X-Custom': 'sk-header-secret-555' } },
      },
      {
        column_type: 'PROMPT_TEMPLATE', name: 'answer',
        configuration: {
          inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say {x}' }] }] } },
          prompt_template_variable_mappings: { x: 'q' },
          engine: { provider: provider.body.provider.name, model: 'm', parameters: { api_key: 'sk-param-secret-666', max_tokens: 5 } },
        },
      },
      { column_type: 'CODE_EXECUTION', name: 'code', configuration: { language: 'JAVASCRIPT', code: 'return 1;' } },
    ]);
    const done = await run(pipelineId);
    const text = JSON.stringify(done.report.manifest);
    expect(text).not.toMatch(/sk-[a-z]+-secret/);
    expect(text).not.toContain('sk-env-secret');
    const [, hook, answer, code] = done.report.manifest.columns;
    expect(hook.configuration.url).toBe(`${mock.baseUrl}/hook?api_key=%5Bredacted%5D&x=1`);
    expect(hook.configuration.headers).toEqual({ Authorization: '[redacted]', 'X-Custom': '[redacted]' });
    expect(answer.resolved.parameters).toEqual({ api_key: '[redacted]', max_tokens: 5 });
    expect(answer.resolved.base_url).toBe(mock.baseUrl);
    expect(code.resolved.code_sha256).toMatch(/^[0-9a-f]{64}$/);
    // The run itself still used the real values (the provider's key reached the mock).
    expect(mock.calls.find((c) => c.path.endsWith('/chat/completions') || c.path.endsWith('/responses'))?.headers.authorization).toBe('Bearer sk-provider-secret-222');
  });

  test('a label moved after a run: reproduce_report_id runs the old version, a new run the new one', async () => {
    const name = `moving-${++prompts}`;
    await publishPrompt(name, 'OLD prompt {x}', ['prod']);
    const { pipelineId } = await pipeline([{ q: 'a' }], [registryColumn(name, 'prod')]);
    const first = await run(pipelineId);
    expect(first.report.manifest.columns[1].resolved.version_number).toBe(1);
    expect(userTexts().join()).toContain('OLD prompt a');
    await publishPrompt(name, 'NEW prompt {x}', ['prod']);

    mock.resetCounters();
    mock.calls.length = 0;
    const again = await run(pipelineId, { reproduce_report_id: first.report.id });
    expect(again.status).toBe('COMPLETED');
    expect(again.report.manifest.columns[1].resolved.version_number).toBe(1);
    expect(again.report.manifest.dataset).toEqual(first.report.manifest.dataset);
    expect(again.report.manifest.reproduces_report_id).toBe(first.report.id);
    expect(userTexts().join()).toContain('OLD prompt a');
    expect(userTexts().join()).not.toContain('NEW');

    mock.calls.length = 0;
    const fresh = await run(pipelineId);
    expect(fresh.report.manifest.columns[1].resolved).toMatchObject({ version_number: 2, label: 'prod' });
    expect(fresh.report.manifest).not.toHaveProperty('reproduces_report_id');
    expect(userTexts().join()).toContain('NEW prompt a');
  });

  test('reproduce_report_id: unknown → 404, a pipeline or another pipeline’s run → 422, with a dataset option → 422', async () => {
    const a = await pipeline([{ q: 'a' }], [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'q', value: 'a' } }]);
    const b = await pipeline([{ q: 'a' }], [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'q', value: 'a' } }]);
    const runOfB = await run(b.pipelineId);
    const runOfA = await run(a.pipelineId);
    const ask = (body: Record<string, unknown>) => t.api(`/reports/${a.pipelineId}/run`, { body: { name: 'r', ...body } });
    expect((await ask({ reproduce_report_id: 999_999 })).status).toBe(404);
    for (const id of [runOfB.report.id, a.pipelineId]) {
      const res = await ask({ reproduce_report_id: id });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'reproduce_report_id']);
    }
    const clash = await ask({ reproduce_report_id: runOfA.report.id, dataset_version_number: 1 });
    expect(clash.status).toBe(422);
    expect(clash.body.detail[0].loc).toEqual(['body', 'dataset_version_number']);
  });

  test('dataset_version_number picks a version; default is the latest published; unknown → 404', async () => {
    const { pipelineId, groupId } = await pipeline([{ q: 'a' }], [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'q', value: 'a' } }]);
    const v2 = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: groupId, file_name: 'v2.json', file_content_base64: Buffer.from(JSON.stringify([{ q: 'a' }, { q: 'b' }])).toString('base64') },
    });
    expect(v2.status).toBe(201);
    expect((await run(pipelineId)).report.manifest.dataset).toMatchObject({ version_number: 2, row_count: 2 });
    expect((await run(pipelineId, { dataset_version_number: 1 })).report.manifest.dataset).toMatchObject({ version_number: 1, row_count: 1 });
    const unknown = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'x', dataset_version_number: 3 } });
    expect(unknown.status).toBe(404);
    const zero = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'x', dataset_version_number: 0 } });
    expect(zero.status).toBe(422);
  });

  test('the draft (-1) is refused unless allow_draft: true', async () => {
    const { pipelineId, groupId } = await pipeline([{ q: 'a' }], [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'q', value: 'a' } }]);
    const versions = await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=true`);
    const draftId = versions.body.datasets.find((d: any) => d.version_number === -1).id as number;
    const put = await t.api(`/api/public/v2/datasets/${draftId}/rows`, { method: 'PUT', body: { rows: [{ q: 'a' }, { q: 'b' }, { q: 'c' }] } });
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
    const refused = await t.api(`/reports/${pipelineId}/run`, { body: { name: 'draft', dataset_version_number: -1 } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'dataset_version_number']);
    const allowed = await run(pipelineId, { dataset_version_number: -1, allow_draft: true });
    expect(allowed.report.manifest.dataset).toMatchObject({ version_number: -1, row_count: 3, dataset_id: draftId });
  });
});

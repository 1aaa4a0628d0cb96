import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorBody, NoContent } from '../src-server/schemas/common';
import { CreatedDatasetGroup, DatasetGroupPage, DatasetGroupResponse, DatasetRows, DatasetVersionPage, DatasetVersionResponse, DraftResponse, PublishedDataset, PublishedFromRequests } from '../src-server/schemas/datasets';
import { RequestItem, RequestPage, RequestStats } from '../src-server/schemas/explorer';
import { FolderList, FolderResponse } from '../src-server/schemas/folders';
import { CreatedGroup, LoggedRequest, TrackAnswer, TrackedRequest } from '../src-server/schemas/logging';
import { PromptVersionPage, PublishedTemplate, ReleaseLabel, ReleaseLabelList, TemplateForUse, TemplatePage, TemplateVersion } from '../src-server/schemas/prompts';
import { ProviderList, ProviderResponse } from '../src-server/schemas/providers';
import {
  CreatedReport, PipelinePage, ReportColumnResponse, ReportDetail, ReportRows, RunCanceled, RunStarted, ScoreCardResponse, ScoreResponse, SetCellResponse,
} from '../src-server/schemas/reports';
import { PreviewAnswer } from '../src-server/schemas/report-preview';
import { ColumnTypeList, Health, SystemInfo } from '../src-server/schemas/system';
import { ApiKeyList, CreatedApiKey, CreatedWorkspace, Session } from '../src-server/schemas/workspaces';
import { publishDataset, waitForRun } from './support/evaluations';
import { chat, logBody } from './support/factories';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type ApiInit, type TestServer } from './support/server';

/**
 * The response schemas are documentation the UI's types are inferred from; nothing checks them at
 * run time. Here real answers are parsed with the very schema each route declares (the test
 * asserts /openapi.json holds that schema), and the parse must keep every field: a field the
 * server sends but the schema does not declare fails as surely as a missing or mistyped one.
 */
let t: TestServer;
let mock: MockLlm;
let paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' } });
  paths = (await t.api('/openapi.json', { key: null })).body.paths;
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});

const declared = (schema: z.ZodType) => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
};

/** Calls `method template` (with `:params` filled from `url`) and checks the answer against `schema`. */
async function answer<S extends z.ZodType>(schema: S, route: string, url: string, init: ApiInit = {}, status = 200): Promise<z.output<S>> {
  const [method, template] = route.split(' ');
  const res = await t.api(url, { method: method.toUpperCase(), ...init });
  expect(res.status, `${route}: ${JSON.stringify(res.body)}`).toBe(status);
  const operation = paths[template.replace(/:(\w+)/g, '{$1}')]?.[method];
  expect(operation, `${route} is not in /openapi.json`).toBeDefined();
  if ((schema as z.ZodType) === NoContent) {
    expect(operation.responses[String(status)].content).toBeUndefined();
    expect(res.body).toBeUndefined();
    return undefined as z.output<S>;
  }
  expect(operation.responses[String(status)].content!['application/json'].schema, `${route} declares another schema`).toEqual(declared(schema));
  const parsed = schema.safeParse(res.body);
  expect(parsed.error, `${route}: ${JSON.stringify(res.body).slice(0, 500)}`).toBeUndefined();
  expect(parsed.data, `${route} sends fields its schema does not declare`).toEqual(res.body);
  return parsed.data as z.output<S>;
}

describe('/openapi.json', () => {
  it('declares a success body for every route, and the error body once, referenced by every route', async () => {
    const doc = (await t.api('/openapi.json', { key: null })).body;
    expect(doc.components.schemas.Error).toEqual(declared(ErrorBody));
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const [status, success] = Object.entries(operation.responses).find(([code]) => /^2/.test(code))!;
        const content = success.content ? Object.values(success.content)[0] : undefined;
        if (status !== '204' && !(content?.schema && typeof content.schema === 'object' && Object.keys(content.schema).length > 0)) missing.push(`${method} ${path}`);
        for (const code of ['422', '4XX', '500']) {
          expect(operation.responses[code].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(paths).length).toBeGreaterThan(40);
  });

  it('describes error answers truly', async () => {
    const unauthenticated = await t.api('/api/public/v2/requests', { key: null });
    expect(unauthenticated.status).toBe(401);
    expect(ErrorBody.parse(unauthenticated.body)).toEqual(unauthenticated.body);
    const invalid = await t.api('/log-request', { body: { provider: 'openai' } });
    expect(invalid.status).toBe(422);
    expect(ErrorBody.parse(invalid.body)).toEqual(invalid.body);
    expect(invalid.body.detail.length).toBeGreaterThan(0);
  });
});

describe('real answers match their declared schemas', () => {
  it('logging and the request log', async () => {
    expect((await answer(Health, 'get /health', '/health', { key: null })).status).toBe('ok');
    const logged = await answer(LoggedRequest, 'post /log-request', '/log-request', { body: logBody({ tags: ['a'], metadata: { env: 'dev' } }) }, 201);
    await answer(LoggedRequest, 'post /log-request', '/log-request', { body: logBody({ prompt_name: 'nowhere', status: 'ERROR', error_type: 'Timeout' }) }, 201);
    const tracked = await answer(TrackedRequest, 'post /track-request', '/track-request', {
      body: {
        function_name: 'openai.chat.completions.create', provider_type: 'openai', return_prompt_blueprint: true,
        kwargs: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
        request_response: { choices: [{ message: { role: 'assistant', content: 'Hello' } }], usage: { prompt_tokens: 3, completion_tokens: 1 } },
        request_start_time: 1_700_000_000, request_end_time: 1_700_000_001,
      },
    });
    const group = await answer(CreatedGroup, 'post /create-group', '/create-group', { body: {} });
    await answer(TrackAnswer, 'post /rest/track-score', '/rest/track-score', { body: { request_id: logged.id, score: 80 } });
    await answer(TrackAnswer, 'post /library-track-metadata', '/library-track-metadata', { body: { request_id: logged.id, metadata: { k: 'v' } } });
    await answer(TrackAnswer, 'post /track-group', '/track-group', { body: { request_id: tracked.request_id, group_id: group.id } });
    expect((await answer(TrackAnswer, 'post /rest/track-prompt', '/rest/track-prompt', { body: { request_id: logged.id, prompt_name: 'ghost' } })).warning).toBeTruthy();

    const page = await answer(RequestPage, 'get /api/public/v2/requests', '/api/public/v2/requests?limit=2');
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    await answer(RequestItem, 'get /api/public/v2/requests/:id', `/api/public/v2/requests/${tracked.request_id}`);
    const one = await answer(RequestItem, 'get /api/public/v2/requests/:id', `/api/public/v2/requests/${logged.id}`);
    expect(one.scores).toEqual({ default: 80 });
    const stats = await answer(RequestStats, 'get /api/public/v2/requests/stats', '/api/public/v2/requests/stats');
    expect(stats.totals.requests).toBe(3);
  });

  it('the prompt registry', async () => {
    const template = { type: 'chat', messages: [{ role: 'system', content: [{ type: 'text', text: 'Answer {q}' }] }, { role: 'user', content: 'plain' }], input_variables: ['q'] };
    const published = await answer(PublishedTemplate, 'post /rest/prompt-templates', '/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'schema-check', tags: ['t'] },
        prompt_version: { prompt_template: template, commit_message: 'first', metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0 } } } },
        release_labels: ['prod'],
      },
    }, 201);
    await answer(PublishedTemplate, 'post /rest/prompt-templates', '/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: 'schema-check' }, prompt_version: { prompt_template: { type: 'completion', content: 'Hi {name}' } } },
    }, 201);
    await answer(TemplatePage, 'get /prompt-templates', '/prompt-templates');
    await answer(TemplateVersion, 'get /prompt-templates/:identifier', '/prompt-templates/schema-check?label=prod');
    await answer(TemplateVersion, 'get /prompt-templates/:identifier', '/prompt-templates/schema-check');
    await answer(TemplateForUse, 'post /prompt-templates/:identifier', '/prompt-templates/schema-check', { body: { label: 'prod', input_variables: { q: 'why' } } });
    const versions = await answer(PromptVersionPage, 'get /api/public/v2/prompt-templates/:identifier/versions', '/api/public/v2/prompt-templates/schema-check/versions');
    expect(versions.items).toHaveLength(2);
    const staging = await answer(ReleaseLabel, 'post /prompts/:prompt_id/label', `/prompts/${published.id}/label`, { body: { name: 'staging', prompt_version_number: 1 } }, 201);
    await answer(ReleaseLabel, 'patch /prompt-labels/:id', `/prompt-labels/${staging.id}`, { method: 'PATCH', body: { prompt_version_number: 2 } });
    expect((await answer(ReleaseLabelList, 'get /prompt-templates/:identifier/labels', '/prompt-templates/schema-check/labels')).release_labels).toHaveLength(2);
    await answer(NoContent, 'delete /prompt-labels/:id', `/prompt-labels/${staging.id}`, {}, 204);
    await answer(NoContent, 'delete /api/public/v2/prompt-templates/:identifier', '/api/public/v2/prompt-templates/schema-check', {}, 204);

    const provider = await answer(ProviderResponse, 'post /api/public/v2/providers', '/api/public/v2/providers', {
      body: { name: 'local', client: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-secret-1234567890' },
    }, 201);
    await answer(ProviderList, 'get /api/public/v2/providers', '/api/public/v2/providers');
    await answer(NoContent, 'delete /api/public/v2/providers/:id', `/api/public/v2/providers/${provider.provider.id}`, {}, 204);
  });

  it('folders and datasets', async () => {
    const folder = await answer(FolderResponse, 'post /api/public/v2/folders', '/api/public/v2/folders', { body: { name: 'f' } }, 201);
    await answer(FolderResponse, 'get /api/public/v2/folders/:id', `/api/public/v2/folders/${folder.folder.id}`);
    await answer(FolderList, 'get /api/public/v2/folders', '/api/public/v2/folders');

    const group = await answer(CreatedDatasetGroup, 'post /api/public/v2/dataset-groups', '/api/public/v2/dataset-groups', { body: { name: 'schemas', folder_id: folder.folder.id } }, 201);
    const groupId = group.dataset_group.id;
    const file = Buffer.from('q,a\nhi,there\n').toString('base64');
    const v1 = await answer(PublishedDataset, 'post /api/public/v2/dataset-versions/from-file', '/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: groupId, file_name: 'rows.csv', file_content_base64: file },
    }, 201);
    const logged = (await t.api('/log-request', { body: logBody(chat('What is 2+2?', '4')) })).body;
    await answer(PublishedFromRequests, 'post /api/public/v2/dataset-versions/from-filter-params', '/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: groupId, request_log_ids: [logged.id] },
    }, 201);
    await answer(DraftResponse, 'post /api/public/v2/dataset-versions/create-draft', '/api/public/v2/dataset-versions/create-draft', {
      body: { dataset_group_id: groupId, source_dataset_id: v1.dataset_id },
    }, 201);
    const draft = await answer(DraftResponse, 'post /api/public/v2/dataset-versions/add-request-log', '/api/public/v2/dataset-versions/add-request-log', {
      body: { dataset_group_id: groupId, request_log_id: logged.id },
    }, 201);
    await answer(DatasetVersionResponse, 'put /api/public/v2/datasets/:id/rows', `/api/public/v2/datasets/${draft.draft_dataset_id}/rows`, {
      method: 'PUT', body: { rows: [{ q: 'a', a: 1 }, { q: 'b', a: null }] },
    });
    await answer(PublishedDataset, 'post /api/public/v2/dataset-versions/save-draft', '/api/public/v2/dataset-versions/save-draft', { body: { dataset_group_id: groupId } }, 201);
    await answer(DatasetGroupPage, 'get /api/public/v2/dataset-groups', '/api/public/v2/dataset-groups');
    await answer(DatasetGroupResponse, 'get /api/public/v2/dataset-groups/:id', `/api/public/v2/dataset-groups/${groupId}`);
    const versions = await answer(DatasetVersionPage, 'get /api/public/v2/datasets', `/api/public/v2/datasets?dataset_group_id=${groupId}&include_draft=true`);
    expect(versions.datasets.some((d) => d.version_number === -1)).toBe(true);
    await answer(DatasetVersionResponse, 'get /api/public/v2/datasets/:id', `/api/public/v2/datasets/${v1.dataset_id}`);
    await answer(DatasetRows, 'get /api/public/v2/datasets/:id/rows', `/api/public/v2/datasets/${v1.dataset_id}/rows`);
  });

  it('evaluations', async () => {
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'eval-schemas' } })).body.dataset_group.id;
    const rows = [{ q: 'yes', n: '3' }, { q: 'no', n: 'x' }];
    await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: group, file_name: 'rows.json', file_content_base64: Buffer.from(JSON.stringify(rows)).toString('base64') },
    });
    await answer(ColumnTypeList, 'get /api/public/v2/column-types', '/api/public/v2/column-types');
    const created = await answer(CreatedReport, 'post /reports', '/reports', {
      body: { dataset_group_id: group, name: 'pipeline', columns: [{ column_type: 'CONTAINS', name: 'ok', configuration: { source: 'q', value: 'yes' } }] },
    }, 201);
    const pipeline = created.report_id;
    const column = await answer(ReportColumnResponse, 'post /report-columns', '/report-columns', {
      body: { report_id: pipeline, column_type: 'PARSE_VALUE', name: 'num', configuration: { source: 'n', type: 'number' } },
    }, 201);
    await answer(ReportColumnResponse, 'patch /report-columns/:id', `/report-columns/${column.report_column.id}`, { method: 'PATCH', body: { name: 'number' } });
    const human = await answer(ReportColumnResponse, 'post /report-columns', '/report-columns', {
      body: { report_id: pipeline, column_type: 'HUMAN', name: 'rating', configuration: { data_type: 'boolean' } },
    }, 201);
    await answer(ReportDetail, 'get /reports/:id', `/reports/${pipeline}`);
    await answer(ScoreCardResponse, 'patch /reports/:id/score-card', `/reports/${pipeline}/score-card`, { method: 'PATCH', body: { column_names: ['ok'] } });
    await answer(PreviewAnswer, 'post /api/public/v2/reports/:id/preview', `/api/public/v2/reports/${pipeline}/preview`, { body: { rows: 2 } });

    const run = await answer(RunStarted, 'post /reports/:report_id/run', `/reports/${pipeline}/run`, { body: { name: 'run 1' } }, 201);
    await waitForRun(t, run.report_id);
    await answer(ReportDetail, 'get /reports/:id', `/reports/${run.report_id}`);
    await answer(ReportRows, 'get /api/public/v2/reports/:id/rows', `/api/public/v2/reports/${run.report_id}/rows`);
    await answer(SetCellResponse, 'patch /api/public/v2/reports/:id/cells', `/api/public/v2/reports/${run.report_id}/cells`, {
      method: 'PATCH', body: { row_index: 0, column_name: 'rating', value: true },
    });
    expect((await answer(ScoreResponse, 'get /reports/:id/score', `/reports/${run.report_id}/score`)).score.overall_score).toBe(50);
    await answer(ScoreCardResponse, 'patch /reports/:id/score-card', `/reports/${run.report_id}/score-card`, { method: 'PATCH', body: { column_names: ['ok', 'number'] } });
    const list = await answer(PipelinePage, 'get /api/public/v2/evaluations', '/api/public/v2/evaluations');
    expect(list.items[0].runs).toHaveLength(1);
    await answer(NoContent, 'delete /report-columns/:id', `/report-columns/${human.report_column.id}`, {}, 204);
    await answer(NoContent, 'delete /reports/:id', `/reports/${run.report_id}`, {}, 204);
  });

  it('a run that calls a model: cells in flight, canceled, with cost and latency', async () => {
    mock.setLatency(300);
    const { groupId } = await publishDataset(t, Array.from({ length: 6 }, (_, i) => ({ q: `row ${i}` })));
    const column = {
      column_type: 'PROMPT_TEMPLATE', name: 'answer',
      configuration: {
        inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say {x}' }] }] } },
        prompt_template_variable_mappings: { x: 'q' },
        engine: { provider: 'openai', model: 'gpt-4o-mini' },
      },
    };
    const pipeline = (await t.api('/reports', { body: { dataset_group_id: groupId, columns: [column] } })).body.report_id;
    const run = (await t.api(`/reports/${pipeline}/run`, { body: { name: 'slow', concurrency: 1 } })).body.report_id;
    await expect.poll(async () => (await t.api(`/reports/${run}`)).body.stats.status_counts.COMPLETED, { timeout: 10_000 }).toBeGreaterThan(0);
    const running = await answer(ReportRows, 'get /api/public/v2/reports/:id/rows', `/api/public/v2/reports/${run}/rows`);
    expect(running.rows.at(-1)!.cells.answer.status).toBe('QUEUED');
    await answer(ReportDetail, 'get /reports/:id', `/reports/${run}`);
    expect((await answer(RunCanceled, 'post /api/public/v2/reports/:id/cancel', `/api/public/v2/reports/${run}/cancel`, { body: {} })).status).toBe('CANCELED');
    const after = await answer(ReportRows, 'get /api/public/v2/reports/:id/rows', `/api/public/v2/reports/${run}/rows`);
    expect(after.rows[0].cells.answer.cost).toBeGreaterThanOrEqual(0);
    expect(after.rows.at(-1)!.cells.answer.status).toBe('SKIPPED');
    await answer(PipelinePage, 'get /api/public/v2/evaluations', '/api/public/v2/evaluations');
  });

  it('workspaces, keys, sessions and the system page', async () => {
    await answer(SystemInfo, 'get /api/public/v2/system', '/api/public/v2/system');
    const created = await answer(CreatedApiKey, 'post /api/public/v2/api-keys', '/api/public/v2/api-keys', { body: { name: 'ci' } }, 201);
    const keys = await answer(ApiKeyList, 'get /api/public/v2/api-keys', '/api/public/v2/api-keys');
    expect(keys.api_keys.filter((k) => k.current)).toHaveLength(1);
    await answer(Session, 'post /api/public/v2/session', '/api/public/v2/session', { body: {} });
    await answer(NoContent, 'delete /api/public/v2/api-keys/:id', `/api/public/v2/api-keys/${created.api_key.id}`, {}, 204);
    await answer(CreatedWorkspace, 'post /api/public/v2/workspaces', '/api/public/v2/workspaces', { body: { name: 'second' } }, 201);
  });
});

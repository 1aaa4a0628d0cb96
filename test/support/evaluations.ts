import type { TestServer } from './server';

let groups = 0;

/** A dataset group with one published version holding `rows` (uploaded as a JSON file). */
export async function publishDataset(t: Pick<TestServer, 'api'>, rows: Array<Record<string, unknown>>, options: { key?: string; name?: string } = {}) {
  const group = await t.api('/api/public/v2/dataset-groups', { body: { name: options.name ?? `eval-dataset-${process.pid}-${++groups}` }, key: options.key });
  if (group.status !== 201) throw new Error(`dataset group: ${group.status} ${JSON.stringify(group.body)}`);
  const groupId = group.body.dataset_group.id as number;
  const version = await t.api('/api/public/v2/dataset-versions/from-file', {
    key: options.key,
    body: { dataset_group_id: groupId, file_name: 'rows.json', file_content_base64: Buffer.from(JSON.stringify(rows)).toString('base64') },
  });
  if (version.status !== 201) throw new Error(`dataset version: ${version.status} ${JSON.stringify(version.body)}`);
  return { groupId, datasetId: version.body.dataset_id as number, versionNumber: version.body.version_number as number };
}

/** Polls `GET /reports/{id}` until the run leaves RUNNING. */
export async function waitForRun(t: Pick<TestServer, 'api'>, reportId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api(`/reports/${reportId}`);
    if (res.status !== 200) throw new Error(`report ${reportId}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status !== 'RUNNING') return res.body;
    if (Date.now() > deadline) throw new Error(`report ${reportId} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every row of a report, all pages. */
export async function allRows(t: Pick<TestServer, 'api'>, reportId: number) {
  const rows: any[] = [];
  for (let page = 1; ; page++) {
    const res = await t.api(`/api/public/v2/reports/${reportId}/rows?page=${page}&per_page=100`);
    if (res.status !== 200) throw new Error(`rows: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...res.body.rows);
    if (page >= res.body.pages) return { columns: res.body.columns as Array<{ id: number; name: string; column_type: string }>, rows };
  }
}

/**
 * A pipeline of one PROMPT_TEMPLATE column `answer` that sends `text` (with `{x}` mapped to the
 * dataset's `q`) to `engine`, run once; answers the finished report.
 */
export async function runOnePrompt(t: Pick<TestServer, 'api'>, groupId: number, engine: { provider: string; model: string }, text: string, name: string) {
  const pipeline = await t.api('/reports', {
    body: {
      dataset_group_id: groupId,
      columns: [{
        column_type: 'PROMPT_TEMPLATE', name: 'answer',
        configuration: {
          inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text }] }] } },
          prompt_template_variable_mappings: { x: 'q' }, engine,
        },
      }],
    },
  });
  if (pipeline.status !== 201) throw new Error(`pipeline: ${pipeline.status} ${JSON.stringify(pipeline.body)}`);
  const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name } });
  if (run.status !== 201) throw new Error(`run: ${run.status} ${JSON.stringify(run.body)}`);
  return waitForRun(t, run.body.report_id);
}

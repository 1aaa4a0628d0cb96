import { afterAll, beforeAll, expect, test } from 'vitest';
import { allRows, publishDataset, waitForRun } from './support/evaluations';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
let mock: MockLlm;
/** What the server logged, exactly as its Logger received it (main.ts prints `error` only when given). */
const logged: Array<{ message: string; error: unknown }> = [];

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({
    env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' },
    log: { info: () => {}, error: (message, error) => logged.push({ message, error }) },
  });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});

test('a provider 500 during a run is logged as one line with its message, not a stack trace', async () => {
  const { groupId } = await publishDataset(t, [{ q: 'a' }]);
  const pipeline = await t.api('/reports', {
    body: {
      dataset_group_id: groupId,
      columns: [{
        column_type: 'PROMPT_TEMPLATE',
        name: 'answer',
        configuration: {
          inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Say {q}' }] }] } },
          prompt_template_variable_mappings: { q: 'q' },
          engine: { provider: 'openai', model: 'gpt-4o-mini' },
        },
      }],
    },
  });
  expect(pipeline.status).toBe(201);
  // Every attempt fails: the first call and all its retries.
  mock.failNext(10, 500);
  const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'run' } });
  expect(run.status).toBe(201);
  await waitForRun(t, run.body.report_id);
  const { rows } = await allRows(t, run.body.report_id);
  expect(rows[0].cells.answer).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/answered 500/) });

  const lines = logged.filter((l) => l.message.includes(`Report ${run.body.report_id}`));
  expect(lines).toHaveLength(1);
  expect(lines[0].error).toBeUndefined();
  expect(lines[0].message).not.toContain('\n');
  expect(lines[0].message).toMatch(new RegExp(`^Report ${run.body.report_id}: column 'answer' failed on row 0: .*answered 500: injected failure 500$`));
});

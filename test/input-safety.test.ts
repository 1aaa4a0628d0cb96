import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { publishDataset, waitForRun } from './support/evaluations';

let t: TestServer;
let otherKey: string;
beforeAll(async () => {
  t = await startServer();
  const ws = await t.api('/api/public/v2/workspaces', { body: { name: 'compare other team' } });
  otherKey = ws.body.api_key;
});
afterAll(() => t.close());

/**
 * 12 rows. `a`→`b` is a boolean column (contains "yes"): rows 0-7 go false → true, row 8 true →
 * false, rows 9-11 stay. `x`→`y` rises by exactly 1 on every row; `p`→`q` moves ±1 alternately.
 */
const ROWS = Array.from({ length: 12 }, (_, i) => ({
  a: i <= 7 || i === 11 ? 'no' : 'yes',
  b: i === 8 || i === 11 ? 'no' : 'yes',
  x: String(i), y: String(i + 1),
  p: String(10), q: String(i % 2 === 0 ? 11 : 9),
}));

const columns = (ok: string, up: string, noise: string) => [
  { column_type: 'PARSE_VALUE', name: 'up', configuration: { source: up, type: 'number' } },
  { column_type: 'PARSE_VALUE', name: 'noise', configuration: { source: noise, type: 'number' } },
  { column_type: 'CONTAINS', name: 'ok', configuration: { source: ok, value: 'yes' } },
];

async function runOf(pipelineId: number, name: string, body: Record<string, unknown> = {}) {
  const res = await t.api(`/reports/${pipelineId}/run`, { body: { name, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const done = await waitForRun(t, res.body.report_id);
  expect(done.status).toBe('COMPLETED');
  return res.body.report_id as number;
}

/** A pipeline run once on the a/x/p columns (baseline) and once on b/y/q (candidate). */
async function pair(rows = ROWS) {
  const { groupId } = await publishDataset(t, rows);
  const p = await t.api('/reports', { body: { dataset_group_id: groupId, columns: columns('a', 'x', 'p') } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const pipelineId = p.body.report_id as number;
  const baseline = await runOf(pipelineId, `base ${pipelineId}`);
  const ids = new Map<string, number>((p.body.report_columns as any[]).map((c) => [c.name, c.id]));
  for (const [name, source] of [['ok', 'b'], ['up', 'y'], ['noise', 'q']]) {
    const config = name === 'ok' ? { source, value: 'yes' } : { source, type: 'number' };
    const res = await t.api(`/report-columns/${ids.get(name)}`, { method: 'PATCH', body: { configuration: config } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const candidate = await runOf(pipelineId, `cand ${pipelineId}`);
  return { groupId, pipelineId, baseline, candidate };
}

let fixture: Awaited<ReturnType<typeof pair>>;
const compare = (a: number, b: number, query = '') => t.api(`/reports/${a}/compare/${b}${query}`);

describe('compare', () => {
  beforeAll(async () => {
    fixture = await pair();
  });

  test('boolean column: counts, means, McNemar exact p (9 discordant, 1 against: p = 20/512)', async () => {
    const res = await compare(fixture.baseline, fixture.candidate);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ok = res.body.columns.find((c: any) => c.name === 'ok');
    expect(ok).toMatchObject({ column_type: 'CONTAINS', kind: 'boolean', improved: 8, regressed: 1, unchanged: 3 });
    expect(ok.baseline_mean).toBeCloseTo(3 / 12, 12);
    expect(ok.candidate_mean).toBeCloseTo(10 / 12, 12);
    expect(ok.delta).toBeCloseTo(7 / 12, 12);
    expect(ok.p_value).toBeCloseTo(20 / 512, 12);
    expect(ok.summary).toMatch(/^candidate better: a real difference/);
    expect(res.body.baseline).toMatchObject({ id: fixture.baseline });
    expect(res.body.candidate).toMatchObject({ id: fixture.candidate });
  });

  test('numeric columns: a constant +1 has ci95 [1, 1]; a ±1 wobble has a ci95 around 0 and reads "within noise"', async () => {
    const res = await compare(fixture.baseline, fixture.candidate);
    const up = res.body.columns.find((c: any) => c.name === 'up');
    expect(up).toMatchObject({ kind: 'number', improved: 12, regressed: 0, unchanged: 0, delta: 1, ci95: [1, 1] });
    expect(up.baseline_mean).toBeCloseTo(5.5, 12);
    expect(up.summary).toMatch(/a real difference/);
    const noise = res.body.columns.find((c: any) => c.name === 'noise');
    expect(noise).toMatchObject({ kind: 'number', improved: 6, regressed: 6, unchanged: 0, delta: 0 });
    expect(noise.ci95[0]).toBeLessThan(0);
    expect(noise.ci95[1]).toBeGreaterThan(0);
    expect(noise.summary).toMatch(/^within noise/);
    expect(noise.p_value).toBeUndefined();
  });

  test('the score: delta of the two scores and a paired bootstrap ci95 that excludes 0', async () => {
    const res = await compare(fixture.baseline, fixture.candidate);
    expect(res.body.baseline.score).toBeCloseTo(25, 2);
    expect(res.body.candidate.score).toBeCloseTo(83.33, 2);
    expect(res.body.score_delta).toBeCloseTo(58.33, 2);
    expect(res.body.score_ci95[0]).toBeGreaterThan(0);
    expect(res.body.score_ci95[1]).toBeLessThanOrEqual(100);
    expect(res.body.summary).toMatch(/^candidate better/);
  });

  test('swapping the ids swaps every verdict and negates every delta and interval', async () => {
    const ab = (await compare(fixture.baseline, fixture.candidate, '?per_page=100')).body;
    const ba = (await compare(fixture.candidate, fixture.baseline, '?per_page=100')).body;
    // JSON has no -0, so a zero stays 0 on both sides.
    const neg = (v: number) => (v === 0 ? 0 : -v);
    const flip: Record<string, string> = { improved: 'regressed', regressed: 'improved', changed: 'changed', same: 'same' };
    expect(ba.score_delta).toBe(neg(ab.score_delta));
    expect(ba.score_ci95).toEqual([neg(ab.score_ci95[1]), neg(ab.score_ci95[0])]);
    for (const col of ab.columns) {
      const other = ba.columns.find((c: any) => c.name === col.name);
      expect(other.delta).toBe(neg(col.delta));
      expect([other.improved, other.regressed, other.unchanged]).toEqual([col.regressed, col.improved, col.unchanged]);
      if (col.p_value !== undefined) expect(other.p_value).toBe(col.p_value);
      if (col.ci95) expect(other.ci95).toEqual([neg(col.ci95[1]), neg(col.ci95[0])]);
    }
    for (const [i, row] of ab.rows.entries()) {
      for (const [name, cell] of Object.entries<any>(row.cells)) {
        const mirrored = ba.rows[i].cells[name];
        expect(mirrored).toEqual({ baseline: cell.candidate, candidate: cell.baseline, verdict: flip[cell.verdict] });
      }
    }
  });

  test('rows: paged, and filtered by verdict', async () => {
    const all = await compare(fixture.baseline, fixture.candidate, '?per_page=5&page=3');
    expect(all.body).toMatchObject({ page: 3, per_page: 5, total: 12, pages: 3 });
    expect(all.body.rows.map((r: any) => r.row_index)).toEqual([10, 11]);
    expect(all.body.rows[0].cells.ok).toEqual({ baseline: true, candidate: true, verdict: 'same' });
    // A row is listed when any column regressed in it: `noise` on odd rows, `ok` on row 8.
    const regressed = await compare(fixture.baseline, fixture.candidate, '?verdict=regressed&per_page=100');
    expect(regressed.body.rows.map((r: any) => r.row_index)).toEqual([1, 3, 5, 7, 8, 9, 11]);
    const improved = await compare(fixture.baseline, fixture.candidate, '?verdict=improved&per_page=100');
    expect(improved.body.total).toBe(12);
    const changed = await compare(fixture.baseline, fixture.candidate, '?verdict=changed&per_page=100');
    expect(changed.body.total).toBe(12);
    const bad = await compare(fixture.baseline, fixture.candidate, '?verdict=worse');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'verdict']);
  });

  test('a run compared with itself: nothing changed, p = 1, ci95 [0, 0]', async () => {
    const res = await compare(fixture.baseline, fixture.baseline, '?verdict=changed');
    expect(res.body.total).toBe(0);
    const ok = res.body.columns.find((c: any) => c.name === 'ok');
    expect(ok).toMatchObject({ improved: 0, regressed: 0, unchanged: 12, delta: 0, p_value: 1 });
    expect(res.body.columns.find((c: any) => c.name === 'up').ci95).toEqual([0, 0]);
  });

  test('unknown ids and another workspace’s runs → 404; a pipeline → 422', async () => {
    expect((await compare(fixture.baseline, 999_999)).status).toBe(404);
    expect((await compare(999_999, fixture.candidate)).status).toBe(404);
    const foreign = await t.api(`/reports/${fixture.baseline}/compare/${fixture.candidate}`, { key: otherKey });
    expect(foreign.status).toBe(404);
    const pipeline = await compare(fixture.pipelineId, fixture.candidate);
    expect(pipeline.status).toBe(422);
    expect(pipeline.body.detail[0].loc).toEqual(['path', 'baseline_id']);
  });

  test('runs of different pipelines and different groups → 422; of another pipeline on the same rows → compared', async () => {
    const elsewhere = await pair(ROWS.slice(0, 4));
    const res = await compare(fixture.baseline, elsewhere.candidate);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'candidate_id']);
    const sibling = await t.api('/reports', { body: { dataset_group_id: fixture.groupId, columns: columns('b', 'y', 'q') } });
    const siblingRun = await runOf(sibling.body.report_id, 'sibling');
    const same = await compare(fixture.baseline, siblingRun);
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.columns.find((c: any) => c.name === 'ok')).toMatchObject({ improved: 8, regressed: 1 });
  });

  test('runs on dataset versions with different rows → 422; versions with the same rows pair by row_index', async () => {
    const { pipelineId, groupId } = await pair(ROWS.slice(0, 3));
    const publish = (rows: unknown[]) => t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: groupId, file_name: 'v.json', file_content_base64: Buffer.from(JSON.stringify(rows)).toString('base64') },
    });
    const onV1 = await runOf(pipelineId, 'on v1', { dataset_version_number: 1 });
    expect((await publish(ROWS.slice(0, 4))).status).toBe(201);
    const onV2 = await runOf(pipelineId, 'on v2', { dataset_version_number: 2 });
    const differ = await compare(onV1, onV2);
    expect(differ.status).toBe(422);
    expect(differ.body.detail[0].msg ?? differ.body.detail[0].message ?? JSON.stringify(differ.body)).toMatch(/different rows/);
    expect((await publish(ROWS.slice(0, 3))).status).toBe(201);
    const onV3 = await runOf(pipelineId, 'on v3', { dataset_version_number: 3 });
    const same = await compare(onV1, onV3);
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.total).toBe(3);
  });
});

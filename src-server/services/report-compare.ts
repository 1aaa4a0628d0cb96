import { invalidField } from '../errors';
import { describeDifference, mcnemarExact, mean, pairedBootstrapCi } from '../eval/compare-stats';
import { runScoreUnit, scoreColumns } from '../eval/score';
import type { ReportCellStore } from '../store/report-cells';
import type { ReportColumn, Report } from '../store/reports';
import { versionSha256 } from './run-manifest';

/**
 * `GET /reports/{baseline}/compare/{candidate}` (API.md §6). Rows are paired by row_index: both
 * runs must have used the same dataset version, or two versions holding exactly the same rows
 * (same count, same content hash) — anything else is not a paired comparison and is refused.
 */

export type Verdict = 'improved' | 'regressed' | 'changed' | 'same';
export type Kind = 'boolean' | 'number' | 'text';

export interface CompareDeps {
  requireFinal(workspaceId: number, id: number, loc: Array<string | number>): Report;
  columns(reportId: number): ReportColumn[];
  cells: ReportCellStore;
  datasets: {
    version(workspaceId: number, datasetId: number): { version_number: number; row_count: number };
    rows(workspaceId: number, datasetId: number, from: number, limit: number): Array<{ row_index: number; data: Record<string, unknown> }>;
  };
}

export interface CompareQuery {
  verdict?: 'regressed' | 'improved' | 'changed';
  page: number;
  per_page: number;
}

/** A cell as compared: its value, or null when it has none (ERROR, SKIPPED, not computed). */
type Value = unknown;

export function compareRuns(deps: CompareDeps, workspaceId: number, baselineId: number, candidateId: number, query: CompareQuery) {
  const baseline = deps.requireFinal(workspaceId, baselineId, ['path', 'baseline_id']);
  const candidate = deps.requireFinal(workspaceId, candidateId, ['path', 'candidate_id']);
  if (baseline.parent_report_id !== candidate.parent_report_id && baseline.dataset_group_id !== candidate.dataset_group_id) {
    throw invalidField(['path', 'candidate_id'], `Report ${candidate.id} is neither a run of the same pipeline nor of the same dataset group as report ${baseline.id}`);
  }
  const rowCount = pairedRowCount(deps, workspaceId, baseline, candidate);

  const baseColumns = deps.columns(baseline.id).filter((c) => c.column_type !== 'DATASET');
  const candColumns = new Map(deps.columns(candidate.id).filter((c) => c.column_type !== 'DATASET').map((c) => [c.name, c]));
  const shared = baseColumns.flatMap((b) => {
    const c = candColumns.get(b.name);
    return c && c.column_type === b.column_type ? [{ name: b.name, column_type: b.column_type, baseline: b, candidate: c }] : [];
  });

  const baseValues = valuesByColumn(deps.cells, baseline.id, rowCount);
  const candValues = valuesByColumn(deps.cells, candidate.id, rowCount);

  const compared = shared.map((col) => {
    const b = baseValues.get(col.baseline.id) ?? new Map<number, Value>();
    const c = candValues.get(col.candidate.id) ?? new Map<number, Value>();
    const kind = kindOf([...b.values(), ...c.values()]);
    const verdicts: Verdict[] = [];
    const pairedBase: number[] = [];
    const pairedCand: number[] = [];
    let improved = 0, regressed = 0, unchanged = 0;
    for (let i = 0; i < rowCount; i++) {
      const verdict = verdictOf(kind, b.get(i) ?? null, c.get(i) ?? null);
      verdicts.push(verdict);
      if (verdict === 'improved') improved++;
      else if (verdict === 'regressed') regressed++;
      else if (verdict === 'same') unchanged++;
      const x = numeric(kind, b.get(i) ?? null);
      const y = numeric(kind, c.get(i) ?? null);
      if (x !== null && y !== null) {
        pairedBase.push(x);
        pairedCand.push(y);
      }
    }
    const baselineMean = kind === 'text' ? null : mean(pairedBase);
    const candidateMean = kind === 'text' ? null : mean(pairedCand);
    const delta = baselineMean === null || candidateMean === null ? null : candidateMean - baselineMean;
    const stats: { p_value?: number; ci95?: [number, number] | null } = {};
    if (kind === 'boolean') stats.p_value = mcnemarExact(improved, regressed);
    if (kind === 'number') stats.ci95 = pairedBootstrapCi(pairedBase, pairedCand);
    const changed = rowCount - unchanged - improved - regressed;
    return {
      verdicts, b, c,
      view: {
        name: col.name, column_type: col.column_type, kind,
        baseline_mean: baselineMean, candidate_mean: candidateMean, delta,
        improved, regressed, unchanged,
        ...stats,
        summary: kind === 'text' ? `${changed} of ${rowCount} rows changed` : summarize(kind, delta, stats),
      },
    };
  });

  // The score's rows: each row's mean over the score columns both runs count, on the score's scale.
  const scoreNames = intersect(scoreNamesOf(baseline, deps.columns(baseline.id)), scoreNamesOf(candidate, deps.columns(candidate.id)));
  const scored = compared.filter((c) => scoreNames.includes(c.view.name) && c.view.kind !== 'text');
  const rowScores = (side: 'b' | 'c') => Array.from({ length: rowCount }, (_, i) => {
    const values = scored.map((col) => scoreValue(col.view.kind, col[side].get(i) ?? null));
    if (values.length === 0 || values.some((v) => v === null)) return null;
    return (values as number[]).reduce((sum, v) => sum + v, 0) / values.length;
  });
  const baseScores = rowScores('b');
  const candScores = rowScores('c');
  const both = baseScores.flatMap((v, i) => (v !== null && candScores[i] !== null ? [i] : []));
  const scoreCi = pairedBootstrapCi(both.map((i) => baseScores[i]!), both.map((i) => candScores[i]!));
  const scoreDelta = baseline.score === null || candidate.score === null ? null : candidate.score - baseline.score;

  const matching = Array.from({ length: rowCount }, (_, i) => i).filter((i) =>
    !query.verdict || compared.some((col) => matchesFilter(col.verdicts[i], query.verdict!)),
  );
  const total = matching.length;
  const pageRows = matching.slice((query.page - 1) * query.per_page, query.page * query.per_page);
  return {
    success: true,
    baseline: { id: baseline.id, name: baseline.name, score: baseline.score, score_unit: runScoreUnit(baseline) },
    candidate: { id: candidate.id, name: candidate.name, score: candidate.score, score_unit: runScoreUnit(candidate) },
    columns: compared.map((c) => c.view),
    score_delta: scoreDelta,
    ...(scoreCi ? { score_ci95: scoreCi } : {}),
    summary: scoreDelta === null ? 'no score to compare' : summarize('number', scoreDelta, { ci95: scoreCi }),
    rows: pageRows.map((i) => ({
      row_index: i,
      cells: Object.fromEntries(compared.map((col) => [col.view.name, { baseline: col.b.get(i) ?? null, candidate: col.c.get(i) ?? null, verdict: col.verdicts[i] }])),
    })),
    page: query.page, per_page: query.per_page, total, pages: Math.max(1, Math.ceil(total / query.per_page)),
  };
}

/** `changed` lists every row that is not `same`; `improved`/`regressed` only those. */
const matchesFilter = (verdict: Verdict, filter: NonNullable<CompareQuery['verdict']>) => (filter === 'changed' ? verdict !== 'same' : verdict === filter);

function pairedRowCount(deps: CompareDeps, workspaceId: number, baseline: Report, candidate: Report): number {
  const a = deps.datasets.version(workspaceId, baseline.dataset_id);
  if (baseline.dataset_id === candidate.dataset_id) return a.row_count;
  const b = deps.datasets.version(workspaceId, candidate.dataset_id);
  const same = a.row_count === b.row_count && hashOf(deps, workspaceId, baseline.dataset_id) === hashOf(deps, workspaceId, candidate.dataset_id);
  if (!same) {
    throw invalidField(['path', 'candidate_id'],
      `The runs used different rows (dataset version ${a.version_number}, ${a.row_count} rows, and version ${b.version_number}, ${b.row_count} rows); compare runs on the same rows`);
  }
  return a.row_count;
}

const hashOf = (deps: CompareDeps, workspaceId: number, datasetId: number) => versionSha256((...a) => deps.datasets.rows(...a), workspaceId, datasetId);

/** Every cell's value per column id, by row; cells without a value (ERROR, SKIPPED) hold null. */
function valuesByColumn(cells: ReportCellStore, reportId: number, rowCount: number): Map<number, Map<number, Value>> {
  const out = new Map<number, Map<number, Value>>();
  for (const cell of cells.range(reportId, 0, rowCount)) {
    const column = out.get(cell.column_id) ?? out.set(cell.column_id, new Map()).get(cell.column_id)!;
    const usable = cell.status === 'PASSED' || cell.status === 'FAILED';
    column.set(cell.row_index, usable ? cell.value : null);
  }
  return out;
}

function kindOf(values: Value[]): Kind {
  const present = values.filter((v) => v !== null);
  if (present.length === 0) return 'text';
  if (present.every((v) => typeof v === 'boolean')) return 'boolean';
  if (present.every((v) => typeof v === 'number' && Number.isFinite(v))) return 'number';
  return 'text';
}

function numeric(kind: Kind, value: Value): number | null {
  if (kind === 'boolean' && typeof value === 'boolean') return value ? 1 : 0;
  if (kind === 'number' && typeof value === 'number') return value;
  return null;
}

/** A row's contribution to the score: booleans 100/0 (no value counts as not passing, as in the score), numbers as they are. */
function scoreValue(kind: Kind, value: Value): number | null {
  if (kind === 'boolean') return value === true ? 100 : 0;
  return typeof value === 'number' ? value : null;
}

/** Booleans: true is better; numbers: higher is better; text and one-sided values only change. */
function verdictOf(kind: Kind, base: Value, cand: Value): Verdict {
  const x = numeric(kind, base);
  const y = numeric(kind, cand);
  if (x !== null && y !== null) return y > x ? 'improved' : y < x ? 'regressed' : 'same';
  return JSON.stringify(base) === JSON.stringify(cand) ? 'same' : 'changed';
}

function summarize(kind: 'boolean' | 'number', delta: number | null, stats: { p_value?: number; ci95?: [number, number] | null }): string {
  const words = describeDifference(kind, stats);
  if (delta === null || delta === 0 || words.startsWith('within noise') || !words.startsWith('a real')) return words;
  return `${delta > 0 ? 'candidate better' : 'candidate worse'}: ${words}`;
}

function scoreNamesOf(report: Report, columns: ReportColumn[]): string[] {
  return scoreColumns(columns, report.score_card).map((c) => c.name);
}

const intersect = (a: string[], b: string[]) => a.filter((n) => b.includes(n));

export interface ScoredColumn {
  id: number;
  name: string;
  column_type: string;
  is_part_of_score: boolean;
}

export interface ScoreCell {
  status: string;
  /** The cell's JSON value, or null. */
  value: unknown;
}

export interface ColumnScore {
  column_name: string;
  /** `boolean`: % of true; `number`: the mean. */
  type: 'boolean' | 'number';
  score: number;
  /** Cells counted: for booleans, ERROR and SKIPPED cells count as not passing. */
  counted: number;
  passed?: number;
}

/**
 * How a score reads: `percent` (0–100, % passing) when every column it averages is boolean,
 * `mean` (the columns' own scale) when every one is numeric, `mixed` when it averages both.
 */
export type ScoreUnit = 'percent' | 'mean' | 'mixed';

export function scoreUnit(columns: ReadonlyArray<Pick<ColumnScore, 'type'>>): ScoreUnit | null {
  if (columns.length === 0) return null;
  if (columns.every((c) => c.type === 'boolean')) return 'percent';
  return columns.every((c) => c.type === 'number') ? 'mean' : 'mixed';
}

/** The unit of a run's stored score (`score_details` as `combineScores` made it); null without a score. */
export function runScoreUnit(run: { score: number | null; score_details: unknown }): ScoreUnit | null {
  const columns = (run.score_details as { columns?: unknown } | null)?.columns;
  return run.score !== null && Array.isArray(columns) ? scoreUnit(columns as Array<Pick<ColumnScore, 'type'>>) : null;
}

export interface Score {
  overall_score: number | null;
  unit: ScoreUnit | null;
  score_type: 'single_column' | 'multi_column' | 'none';
  details: { columns: ColumnScore[]; column_names: string[] };
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Which columns make the score: the score card's names if set, else the columns marked
 * `is_part_of_score`, else the last evaluation column.
 */
export function scoreColumns(columns: ScoredColumn[], scoreCard: string[] | null): ScoredColumn[] {
  const evaluated = columns.filter((c) => c.column_type !== 'DATASET');
  if (scoreCard && scoreCard.length > 0) return evaluated.filter((c) => scoreCard.includes(c.name));
  const marked = evaluated.filter((c) => c.is_part_of_score);
  if (marked.length > 0) return marked;
  return evaluated.length > 0 ? [evaluated[evaluated.length - 1]] : [];
}

/** Scores one column from its cells, streamed; null when it holds neither booleans nor numbers. */
export function scoreColumn(name: string, cells: Iterable<ScoreCell>): ColumnScore | null {
  let trues = 0, booleans = 0, failedCells = 0, sum = 0, numbers = 0;
  for (const cell of cells) {
    if (cell.status === 'ERROR' || cell.status === 'SKIPPED') {
      failedCells++;
      continue;
    }
    const value = cell.value;
    if (typeof value === 'boolean') {
      booleans++;
      if (value) trues++;
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      numbers++;
      sum += value;
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      // LLM_ASSERTION with a list of prompts: every verdict counts.
      for (const v of Object.values(value)) {
        if (typeof v !== 'boolean') continue;
        booleans++;
        if (v) trues++;
      }
    }
  }
  if (booleans > 0 && booleans >= numbers) {
    const counted = booleans + failedCells;
    return { column_name: name, type: 'boolean', score: round((100 * trues) / counted), counted, passed: trues };
  }
  if (numbers > 0) return { column_name: name, type: 'number', score: round(sum / numbers), counted: numbers };
  return null;
}

export function combineScores(columnNames: string[], scores: ColumnScore[]): Score {
  if (scores.length === 0) return { overall_score: null, unit: null, score_type: 'none', details: { columns: [], column_names: columnNames } };
  const overall = round(scores.reduce((a, s) => a + s.score, 0) / scores.length);
  return {
    overall_score: overall,
    unit: scoreUnit(scores),
    score_type: scores.length === 1 ? 'single_column' : 'multi_column',
    details: { columns: scores, column_names: columnNames },
  };
}

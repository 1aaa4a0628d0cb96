import type { PipelineSummary } from '../../api/types';

/** How many runs the compare view shows side by side: a baseline and up to three candidates. */
export const MAX_COMPARED = 4;

type Run = PipelineSummary['runs'][number];

/**
 * The picked runs in the order the compare view uses: oldest first, so the baseline is the older
 * run whichever box was ticked first, and a comparison's verdicts never depend on click order.
 */
export function compareIds(runs: Run[], picked: number[]): number[] {
  const startedAt = new Map(runs.map((r) => [r.id, r.created_at]));
  return [...picked].sort((a, b) => (startedAt.get(a) ?? '').localeCompare(startedAt.get(b) ?? '') || a - b);
}

export interface Evidence {
  kind: 'boolean' | 'number' | 'text';
  delta: number | null;
  p_value?: number;
  ci95?: [number, number] | null;
  improved?: number;
  regressed?: number;
}

/**
 * The plain words the compare view puts next to a p-value or interval: "likely better", "likely
 * worse", or "within noise" when the test cannot tell the difference from chance (p ≥ 0.05, or a
 * 95% interval that includes 0). Text columns are not ranked, only counted as changed.
 */
export function plainWords(e: Evidence): { words: string; tone: 'ok' | 'bad' | 'muted' } {
  if (e.kind === 'text') return { words: 'not ranked (text)', tone: 'muted' };
  if (e.delta === null) return { words: 'no paired values', tone: 'muted' };
  if (e.kind === 'boolean') {
    if (e.p_value === undefined) return { words: 'no paired values', tone: 'muted' };
    if (e.improved === 0 && e.regressed === 0) return { words: 'no change', tone: 'muted' };
    if (e.p_value >= 0.05 || e.delta === 0) return { words: 'within noise', tone: 'muted' };
  } else {
    if (!e.ci95) return { words: 'too few rows to tell', tone: 'muted' };
    if (e.ci95[0] === 0 && e.ci95[1] === 0) return { words: 'no change', tone: 'muted' };
    if (e.ci95[0] <= 0 && e.ci95[1] >= 0) return { words: 'within noise', tone: 'muted' };
  }
  return e.delta > 0 ? { words: 'likely better', tone: 'ok' } : { words: 'likely worse', tone: 'bad' };
}

/** A p-value as people read it: three decimals, or "< 0.001". */
export const fmtP = (p: number) => (p < 0.001 ? '< 0.001' : p.toFixed(3));

/** A signed number with a fixed precision: +2.5, −1.0, 0.0. */
export function fmtSigned(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined) return '—';
  const text = Math.abs(n).toFixed(digits);
  if (Number(text) === 0) return text;
  return `${n > 0 ? '+' : '−'}${text}`;
}

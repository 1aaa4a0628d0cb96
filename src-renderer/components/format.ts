import type { ScoreUnit } from '../api/types';

const integer = new Intl.NumberFormat('en-US');

export const fmtInt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : integer.format(n));

/**
 * Dollars with three significant digits below $1 ($0.000123, $0.0042, $0.50): per-request prices
 * are often fractions of a cent, and `$0.00` would hide them.
 */
export function fmtCost(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(n < 100 ? 2 : 0)}`;
  const decimals = Math.min(12, Math.max(2, 2 - Math.floor(Math.log10(n))));
  return `$${n.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function fmtTime(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "yesterday", "in 2 hours" (clock skew can put a start in the future). */
export function fmtRelative(iso: string, now = Date.now()): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return relative.format(Math.round(seconds / size), unit);
  }
  return '';
}

export function fmtCompact(n: number): string {
  if (Math.abs(n) >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (Math.abs(n) >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** "1 run", "2 runs", "0 columns". */
export const countOf = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? '' : 's'}`;

/**
 * A run's score with its unit, so 83.3 never reads as a fraction or 0.83 as a percent: "83.3%"
 * when every score column is boolean (% passing), "0.83 mean" on numeric columns' own scale,
 * "41.67 mixed" when the score averages both.
 */
export function fmtScore(score: number | null | undefined, unit: ScoreUnit | null | undefined): string {
  if (score === null || score === undefined) return '—';
  if (unit === 'percent') return `${score.toFixed(1)}%`;
  return `${score.toFixed(2)} ${unit === 'mixed' ? 'mixed' : 'mean'}`;
}

const SCORE_UNIT_TITLE: Record<ScoreUnit, string> = {
  percent: '% of rows passing',
  mean: 'mean of the score columns, on their own scale',
  mixed: 'average of % passing and means on their own scales',
};

/** Hover text for `fmtScore`'s unit; none without a score. */
export const scoreUnitTitle = (unit: ScoreUnit | null | undefined) => (unit ? SCORE_UNIT_TITLE[unit] : undefined);

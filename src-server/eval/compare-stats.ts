/**
 * Statistics for comparing two runs of one pipeline over the same rows (API.md §6). Both tests are
 * paired: row i of the baseline is compared with row i of the candidate, which is what removes the
 * rows' own difficulty from the comparison and makes a 3-row change on 1,000 rows detectable.
 */

/**
 * McNemar's exact test: of the rows whose boolean changed, `improved` went false → true and
 * `regressed` true → false. Under "no difference" each change is a fair coin, so the two-sided
 * p-value is twice the binomial tail of the rarer direction, capped at 1. No changes → 1.
 * Computed in log space: 0.5^n underflows past n = 1,074 discordant rows.
 */
export function mcnemarExact(improved: number, regressed: number): number {
  const n = improved + regressed;
  if (n === 0) return 1;
  const k = Math.min(improved, regressed);
  let logTerm = n * Math.log(0.5); // log of C(n, 0) · 0.5^n
  let logTail = logTerm;
  for (let i = 0; i < k; i++) {
    logTerm += Math.log(n - i) - Math.log(i + 1);
    logTail = logAdd(logTail, logTerm);
  }
  return Math.min(1, 2 * Math.exp(logTail));
}

function logAdd(a: number, b: number): number {
  const hi = Math.max(a, b);
  return hi + Math.log(Math.exp(a - hi) + Math.exp(b - hi));
}

/** mulberry32: a small, fast, seedable generator, so the same data always gives the same interval. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BOOTSTRAP_RESAMPLES = 2000;
export const BOOTSTRAP_SEED = 20261122;

/**
 * Paired bootstrap 95% interval of mean(candidate − baseline): resample rows with replacement,
 * take the mean difference of each resample, report the 2.5th and 97.5th percentiles.
 * The resampled row indices depend only on the row count and the seed, and the percentiles are
 * interpolated symmetrically, so swapping baseline and candidate gives exactly [−hi, −lo].
 * Fewer than two pairs → null: one row has no spread to resample.
 */
export function pairedBootstrapCi(
  baseline: readonly number[],
  candidate: readonly number[],
  resamples = BOOTSTRAP_RESAMPLES,
  seed = BOOTSTRAP_SEED,
): [number, number] | null {
  const n = Math.min(baseline.length, candidate.length);
  if (n < 2) return null;
  const diffs = new Float64Array(n);
  for (let i = 0; i < n; i++) diffs[i] = candidate[i] - baseline[i];
  const random = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  means.sort();
  return centralInterval(means, 0.95);
}

/**
 * The central `coverage` interval of sorted values, interpolating linearly between order
 * statistics ("type 7"). The upper end mirrors the lower end's index and weight from the top, so
 * negating every value gives exactly the negated interval, floating point included.
 */
function centralInterval(sorted: Float64Array, coverage: number): [number, number] {
  const last = sorted.length - 1;
  const position = ((1 - coverage) / 2) * last;
  const below = Math.floor(position);
  const weight = position - below;
  const between = (a: number, b: number) => (a === b ? a : a * (1 - weight) + b * weight);
  return [between(sorted[below], sorted[below + 1]), between(sorted[last - below], sorted[last - below - 1])];
}

export const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((a, v) => a + v, 0) / values.length;

/** Plain words for a compared column, so "within noise" is said rather than left to a p-value. */
export function describeDifference(kind: 'boolean' | 'number', evidence: { p_value?: number | null; ci95?: [number, number] | null }): string {
  if (kind === 'boolean') {
    const p = evidence.p_value;
    if (p === undefined || p === null) return 'no paired rows to compare';
    return p < 0.05 ? `a real difference (McNemar p = ${formatP(p)})` : `within noise (McNemar p = ${formatP(p)}; p ≥ 0.05)`;
  }
  const ci = evidence.ci95;
  if (!ci) return 'too few paired rows to estimate noise';
  const [lo, hi] = ci;
  return lo > 0 || hi < 0 ? 'a real difference (the 95% interval excludes 0)' : 'within noise (the 95% interval includes 0)';
}

const formatP = (p: number) => (p < 0.001 ? '< 0.001' : p.toFixed(3));

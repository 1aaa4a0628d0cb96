import { describe, expect, it } from 'vitest';
import { describeDifference, mcnemarExact, pairedBootstrapCi } from '../src-server/eval/compare-stats';

describe("McNemar's exact test", () => {
  it('matches hand-computed binomial tails', () => {
    // 7 discordant rows, 1 the rarer way: 2 · (C(7,0) + C(7,1)) / 2^7 = 16/128.
    expect(mcnemarExact(6, 1)).toBeCloseTo(0.125, 12);
    expect(mcnemarExact(1, 6)).toBeCloseTo(0.125, 12);
    // 2 · 1 / 2^5.
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 12);
    // 2 · (1 + 12 + 66) / 2^12.
    expect(mcnemarExact(10, 2)).toBeCloseTo(0.03857421875, 12);
  });

  it('is 1 with no changes or balanced changes, and stays finite past 0.5^1074', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 3)).toBe(1);
    const big = mcnemarExact(1500, 1400);
    expect(big).toBeGreaterThan(0);
    expect(big).toBeLessThan(1);
  });
});

describe('paired bootstrap interval', () => {
  it('is exact for a constant difference', () => {
    expect(pairedBootstrapCi([1, 2, 3, 4], [3, 4, 5, 6])).toEqual([2, 2]);
  });

  it('spans the possible resample means of a two-row fixture', () => {
    // Differences [0, 1]: a resample's mean is 0, 0.5 or 1 with probability 1/4, 1/2, 1/4, so
    // over 2,000 resamples the 2.5th and 97.5th percentiles are the extremes.
    expect(pairedBootstrapCi([5, 5], [5, 6])).toEqual([0, 1]);
  });

  it('is deterministic and exactly negated when the runs are swapped', () => {
    const a = [0.1, 0.9, 0.4, 0.7, 0.3, 0.8, 0.2, 0.6];
    const b = [0.3, 0.8, 0.6, 0.9, 0.2, 0.9, 0.5, 0.6];
    const forward = pairedBootstrapCi(a, b)!;
    expect(pairedBootstrapCi(a, b)).toEqual(forward);
    const backward = pairedBootstrapCi(b, a)!;
    expect(backward[0]).toBe(-forward[1]);
    expect(backward[1]).toBe(-forward[0]);
    const meanDiff = b.reduce((s, v, i) => s + v - a[i], 0) / a.length;
    expect(forward[0]).toBeLessThanOrEqual(meanDiff);
    expect(forward[1]).toBeGreaterThanOrEqual(meanDiff);
  });

  it('has nothing to say about fewer than two pairs', () => {
    expect(pairedBootstrapCi([1], [2])).toBeNull();
    expect(pairedBootstrapCi([], [])).toBeNull();
  });
});

describe('plain words', () => {
  it('says within noise when the evidence is weak and real otherwise', () => {
    expect(describeDifference('boolean', { p_value: 0.125 })).toMatch(/^within noise/);
    expect(describeDifference('boolean', { p_value: 0.0386 })).toMatch(/^a real difference/);
    expect(describeDifference('number', { ci95: [-0.1, 0.3] })).toMatch(/^within noise/);
    expect(describeDifference('number', { ci95: [0.05, 0.3] })).toMatch(/^a real difference/);
  });
});

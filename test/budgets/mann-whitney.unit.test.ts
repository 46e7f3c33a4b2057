/**
 * The Mann-Whitney U test against SciPy 1.17's `scipy.stats.mannwhitneyu` on the same data
 * (values printed by SciPy here, with the `method` named), and the regression rule on top of it.
 */
import { describe, expect, it } from 'vitest';
import { mannWhitneyU, normalSf } from '../../src/budgets/mann-whitney.ts';
import { compareRuns } from '../../src/budgets/regression.ts';
import type { LabFigures } from '../../src/reports/lab-samples.ts';

const males = [19, 22, 16, 29, 24];
const females = [20, 11, 17, 12];

describe('mannWhitneyU', () => {
  it('matches SciPy exactly without ties', () => {
    expect(mannWhitneyU(males, females, 'greater')).toMatchObject({ u: 17, method: 'exact' });
    expect(mannWhitneyU(males, females, 'greater').p).toBeCloseTo(0.05555555555555555, 12);
    expect(mannWhitneyU(males, females).p).toBeCloseTo(0.1111111111111111, 12);
    expect(mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 'less').p).toBeCloseTo(0.003968253968253968, 12);
  });

  it('matches SciPy’s normal approximation with the tie correction', () => {
    const x = [1, 2, 2, 3, 3, 3, 4];
    const y = [2, 3, 4, 4, 5, 5, 6];
    expect(mannWhitneyU(x, y, 'less')).toMatchObject({ u: 8.5, method: 'asymptotic' });
    expect(mannWhitneyU(x, y, 'less').p).toBeCloseTo(0.021525716364472567, 6);
    expect(mannWhitneyU(x, y).p).toBeCloseTo(0.043051432728945134, 6);
    const a = [812, 845, 790, 901, 856, 870, 823, 799, 888, 840, 860, 815];
    const b = [780, 801, 765, 822, 790, 775, 810, 799, 770, 795, 803, 788];
    expect(mannWhitneyU(a, b, 'greater')).toMatchObject({ u: 131, method: 'asymptotic' });
    expect(mannWhitneyU(a, b, 'greater').p).toBeCloseTo(0.0003637917068289058, 7);
  });

  it('finds no evidence in identical samples', () => {
    expect(mannWhitneyU([5, 5, 5], [5, 5, 5]).p).toBe(1);
    expect(mannWhitneyU([0, 0, 0, 0, 0], [0, 0, 0, 0, 0], 'greater').p).toBe(1);
  });

  it('has a standard normal tail to 1e-7', () => {
    expect(normalSf(0)).toBeCloseTo(0.5, 7);
    expect(normalSf(1.959963985)).toBeCloseTo(0.025, 7);
    expect(normalSf(-1.644853627)).toBeCloseTo(0.95, 7);
  });
});

const run = (lcp: number, cls = 0): LabFigures => ({ fcp: lcp - 100, lcp, tbt: 0, cls, score: 100, bytes: 1000 });

describe('compareRuns', () => {
  it('reports a significant change larger than the minimum effect', () => {
    const before = [800, 810, 790, 805, 795].map((v) => run(v));
    const after = [1300, 1310, 1290, 1305, 1295].map((v) => run(v));
    const lcp = compareRuns(after, before).find((c) => c.metric === 'lcp')!;
    expect(lcp).toMatchObject({ regressed: true, baseline_median: 800, median: 1300, change: 500 });
    expect(lcp.p_value).toBeCloseTo(0.003968, 5);
  });

  it('does not report a significant change below the minimum effect', () => {
    const before = [800, 810, 790, 805, 795].map((v) => run(v));
    const after = [850, 860, 840, 855, 845].map((v) => run(v));
    const lcp = compareRuns(after, before).find((c) => c.metric === 'lcp')!;
    expect(lcp.p_value).toBeLessThan(0.05);
    expect(lcp.regressed).toBe(false);
  });

  it('does not report an improvement, nor test too few runs', () => {
    const before = [1300, 1310, 1290].map((v) => run(v));
    const after = [800, 810, 790].map((v) => run(v));
    expect(compareRuns(after, before).some((c) => c.regressed)).toBe(false);
    expect(compareRuns(after.slice(0, 2), before)).toEqual([]);
  });
});

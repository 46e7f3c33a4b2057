/**
 * The Mann-Whitney U test (Wilcoxon rank-sum), as sitespeed.io's compare plugin and SciPy's
 * `mannwhitneyu` compute it. U of `x` is its rank sum (mid-ranks for ties) less
 * n1(n1+1)/2. The p-value is exact (the distribution of U by counting, every arrangement of
 * the ranks equally likely) when there are no ties and n1 + n2 <= {@link EXACT_LIMIT};
 * otherwise the normal approximation with the tie correction of the variance and a continuity
 * correction of 0.5, as SciPy's `method="asymptotic"`.
 */

export type Alternative = 'greater' | 'less' | 'two-sided';

export interface MannWhitneyResult {
  /** U of the first sample. */
  u: number;
  p: number;
  method: 'exact' | 'asymptotic';
}

/** Largest n1 + n2 counted exactly (the table is (n1*n2+1) numbers per n2, cheap at this size). */
export const EXACT_LIMIT = 50;

/** Mid-ranks of the pooled samples, and the tie sizes. */
function ranks(x: readonly number[], y: readonly number[]): { rx: number; ties: number[] } {
  const pooled = [...x.map((v) => ({ v, fromX: true })), ...y.map((v) => ({ v, fromX: false }))].sort(
    (a, b) => a.v - b.v,
  );
  let rx = 0;
  const ties: number[] = [];
  for (let i = 0; i < pooled.length;) {
    let j = i;
    while (j + 1 < pooled.length && pooled[j + 1].v === pooled[i].v) j++;
    const rank = (i + j + 2) / 2; // ranks are 1-based
    for (let k = i; k <= j; k++) if (pooled[k].fromX) rx += rank;
    if (j > i) ties.push(j - i + 1);
    i = j + 1;
  }
  return { rx, ties };
}

/**
 * The number of arrangements giving each U, for samples of m and n: the recurrence
 * f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u) (Mann and Whitney, 1947).
 */
function exactCounts(m: number, n: number): number[] {
  // prev[j][u]: counts for (i - 1, j); built up over i.
  let prev: number[][] = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i++) {
    const cur: number[][] = [Array.from({ length: 1 }, () => 1)];
    for (let j = 1; j <= n; j++) {
      const size = i * j + 1;
      const row = new Array<number>(size).fill(0);
      for (let u = 0; u < size; u++) {
        const a = u - j >= 0 ? (prev[j][u - j] ?? 0) : 0; // the largest value is from x
        const b = cur[j - 1][u] ?? 0; // the largest value is from y
        row[u] = a + b;
      }
      cur.push(row);
    }
    prev = cur;
  }
  return prev[n];
}

/** The standard normal's upper tail, P(Z > z); erfc by Numerical Recipes' erfcc (relative error < 1.2e-7). */
export function normalSf(z: number): number {
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return (x >= 0 ? erfc : 2 - erfc) / 2;
}

/** Mann-Whitney U test of `x` against `y`; `greater`: x tends to be larger than y. */
export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  alternative: Alternative = 'two-sided',
): MannWhitneyResult {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('Both samples need at least one value.');
  const { rx, ties } = ranks(x, y);
  const u = rx - (n1 * (n1 + 1)) / 2;
  const total = n1 * n2;
  if (ties.length === 0 && n1 + n2 <= EXACT_LIMIT) {
    const counts = exactCounts(n1, n2);
    const all = counts.reduce((s, c) => s + c, 0);
    // U is whole without ties.
    const atLeast = counts.slice(Math.round(u)).reduce((s, c) => s + c, 0) / all;
    const atMost = counts.slice(0, Math.round(u) + 1).reduce((s, c) => s + c, 0) / all;
    const p =
      alternative === 'greater'
        ? atLeast
        : alternative === 'less'
          ? atMost
          : Math.min(1, 2 * Math.min(atLeast, atMost));
    return { u, p, method: 'exact' };
  }
  const n = n1 + n2;
  const tieTerm = ties.reduce((s, t) => s + t ** 3 - t, 0);
  const variance = (total / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const mean = total / 2;
  if (variance <= 0) return { u, p: 1, method: 'asymptotic' }; // every value the same: no evidence either way
  const sd = Math.sqrt(variance);
  const upper = normalSf((u - mean - 0.5) / sd); // P(U >= u)
  const lower = normalSf((mean - u - 0.5) / sd); // P(U <= u)
  const p =
    alternative === 'greater' ? upper : alternative === 'less' ? lower : Math.min(1, 2 * Math.min(upper, lower));
  return { u, p: Math.min(1, p), method: 'asymptotic' };
}

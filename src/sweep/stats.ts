// Statistics of one metric over a point's seeds: mean and a 95 % confidence half-width from the
// Student t distribution (seeds are few, so the normal 1.96 would claim too much confidence).
import type { MetricStats } from "./types.ts";

/** t(0.975, df) for df = 1…30 (index df − 1), to 6 decimals. */
const T975: readonly number[] = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
  2.200985, 2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
  2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272,
];

/** The 97.5 % quantile of the standard normal: the limit of t as df → ∞. */
const Z975 = 1.959963984540054;

/**
 * The two-sided 95 % critical value of Student's t with `df` degrees of freedom: exact (to 6
 * decimals) from the table for df ≤ 30; beyond, the Cornish-Fisher expansion in 1/df (Abramowitz &
 * Stegun 26.7.5), whose error is below 3e-8 at df = 31 and shrinks from there. df = Infinity gives z.
 */
export function studentT975(df: number): number {
  if (df === Infinity) return Z975;
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be a whole number ≥ 1, got ${df}`);
  if (df <= T975.length) return T975[df - 1]!;
  const z = Z975;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

/**
 * Mean, 95 % half-width t(n−1)·s/√n with the sample standard deviation s (n − 1 in the
 * denominator), min and max. A value that is NaN (or not a number at all: NaN becomes null in JSON,
 * so a merged shard file brings nulls) is missing: it is left out, and `n` counts only the values
 * present, so missing = values.length − n. With n = 1 there is no interval and ci95 is 0; with
 * n = 0 every figure is NaN.
 */
export function summarize(values: readonly (number | null)[]): MetricStats {
  const xs = values.filter((v): v is number => typeof v === "number" && !Number.isNaN(v));
  const n = xs.length;
  if (n === 0) return { mean: NaN, ci95: NaN, n: 0, min: NaN, max: NaN };
  const mean = xs.reduce((a, v) => a + v, 0) / n;
  let ci95 = 0;
  if (n > 1) {
    // Two passes (deviations from the mean) rather than Σx² − n·mean², which cancels badly.
    const variance = xs.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
    ci95 = (studentT975(n - 1) * Math.sqrt(variance)) / Math.sqrt(n);
  }
  const min = xs.reduce((a, v) => (v < a ? v : a), Infinity);
  const max = xs.reduce((a, v) => (v > a ? v : a), -Infinity);
  return { mean, ci95, n, min, max };
}

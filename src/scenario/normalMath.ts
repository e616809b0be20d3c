// The standard normal distribution's density, CDF and inverse CDF, for the normal (truncated at 0)
// and lognormal distributions of distKinds.ts. Pure functions of one number; no state, no allocation.

/** Standard normal density. */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / 2.5066282746310002;
}

/** Standard normal CDF, Hart's algorithm 5666 as given by West (2005): double precision accuracy. */
export function normalCdf(x: number): number {
  const z = Math.abs(x);
  let tail: number;
  if (z > 37) {
    tail = 0;
  } else {
    const e = Math.exp(-0.5 * z * z);
    if (z < 7.07106781186547) {
      let num = 3.52624965998911e-2 * z + 0.700383064443688;
      num = num * z + 6.37396220353165;
      num = num * z + 33.912866078383;
      num = num * z + 112.079291497871;
      num = num * z + 221.213596169931;
      num = num * z + 220.206867912376;
      let den = 8.83883476483184e-2 * z + 1.75566716318264;
      den = den * z + 16.064177579207;
      den = den * z + 86.7807322029461;
      den = den * z + 296.564248779674;
      den = den * z + 637.333633378831;
      den = den * z + 793.826512519948;
      den = den * z + 440.413735824752;
      tail = (e * num) / den;
    } else {
      const b = z + 1 / (z + 2 / (z + 3 / (z + 4 / (z + 0.65))));
      tail = e / b / 2.506628274631;
    }
  }
  return x > 0 ? 1 - tail : tail;
}

/**
 * Inverse standard normal CDF, Acklam's rational approximation (relative error < 1.15e-9). Every path
 * yields a plain double (the infinities as literals, the tails computed inline rather than by a call):
 * a call's result or a global's value merged in would make V8 box each result on the heap.
 */
export function normalQuantile(p: number): number {
  if (p <= 0) return -1 / 0;
  if (p >= 1) return 1 / 0;
  if (p < 0.02425 || p > 0.97575) {
    const low = p < 0.02425;
    const q = Math.sqrt(-2 * (low ? Math.log(p) : Math.log1p(-p)));
    const x =
      (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q +
        4.374664141464968) *
        q +
        2.938163982698783) /
      ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1);
    return low ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r + 1.38357751867269e2) * r -
      3.066479806614716e1) *
      r +
      2.506628277459239) *
      q) /
    (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r + 6.680131188771972e1) * r -
      1.328068155288572e1) *
      r +
      1)
  );
}

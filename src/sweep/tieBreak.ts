// The default objective's tie-breakers, and the check that an objective varies at all.
//
// Why: in a burst-then-drain workload every point consumes what was produced before the run ends, so
// mean throughput is the same everywhere and "the smallest value within 1 % of the best throughput"
// picks a threshold that starves the consumers during the burst (issue 17: 16 had a p99 latency
// 9 s above the best and three times the peak lag). The default therefore keeps, among the points
// meeting the requirements, only those as good as the best on p99 end-to-end latency and then on peak
// committed lag, and only then takes the smallest (cheapest) value. "As good" allows 5 % of the best
// plus both points' 95 % intervals, so seed noise alone never decides.
import { sweepMetric } from "./metrics.ts";
import type { MetricStats, SweepPoint, TieBreaker } from "./types.ts";

/** The default objective's tie-breakers, in the order they apply. */
export const DEFAULT_TIE_BREAKERS: readonly TieBreaker[] = [
  { metric: "latency.endToEnd.p99Ms", tolerance: 0.05 },
  { metric: "lag.committed.max", tolerance: 0.05 },
];

/**
 * A metric "does not vary" when its means across the grid differ by no more than this fraction of the
 * largest magnitude (the default requirement's 1 %), or by no more than the widest 95 % interval.
 */
export const FLAT_TOLERANCE = 0.01;

/** Why a feasible point left the shortlist: its mean of `metric` against the best candidate's. */
export interface TieBreakDrop {
  /** Position of the tie-breaker that dropped it: a later one means the point came closer. */
  stage: number;
  metric: string;
  tolerance: number;
  mean: number;
  best: number;
}

function finiteStats(point: SweepPoint, metric: string): MetricStats | null {
  const s = point.stats[metric];
  return s !== undefined && Number.isFinite(s.mean) ? s : null;
}

/**
 * `s` is as good as `best` when it is no worse than tolerance × |best| plus both 95 % half-widths
 * (a NaN half-width counts as 0).
 */
export function asGoodAs(s: MetricStats, best: MetricStats, tolerance: number, higherIsBetter: boolean): boolean {
  const slack = tolerance * Math.abs(best.mean) + (Number.isFinite(s.ci95) ? s.ci95 : 0) + (Number.isFinite(best.ci95) ? best.ci95 : 0);
  return higherIsBetter ? s.mean >= best.mean - slack : s.mean <= best.mean + slack;
}

/**
 * Applies the tie-breakers in order to `points` (the feasible points, best-ranked first): at each, the
 * best mean among the remaining points is found and the points not as good as it leave. Points missing
 * the metric leave too, unless no point has it (then the tie-breaker is skipped). Order is kept.
 */
export function shortlist(points: readonly SweepPoint[], tieBreakers: readonly TieBreaker[]): { kept: SweepPoint[]; dropped: Map<number, TieBreakDrop> } {
  let kept = [...points];
  const dropped = new Map<number, TieBreakDrop>();
  for (const [stage, tb] of tieBreakers.entries()) {
    const higher = sweepMetric(tb.metric)?.better === "higher";
    let best: MetricStats | null = null;
    for (const p of kept) {
      const s = finiteStats(p, tb.metric);
      if (s !== null && (best === null || (higher ? s.mean > best.mean : s.mean < best.mean))) best = s;
    }
    if (best === null) continue;
    const bestStats = best;
    kept = kept.filter((p) => {
      const s = finiteStats(p, tb.metric);
      if (s !== null && asGoodAs(s, bestStats, tb.tolerance, higher)) return true;
      dropped.set(p.index, { stage, metric: tb.metric, tolerance: tb.tolerance, mean: s?.mean ?? NaN, best: bestStats.mean });
      return false;
    });
  }
  return { kept, dropped };
}

/**
 * The runner-up: the second point of the shortlist, or else the feasible point that came closest —
 * dropped by the latest tie-breaker, and nearest to that tie-breaker's best (relative to it), the
 * best-ranked among equals. `ranked` is the feasible points, best-ranked first.
 */
export function runnerUpOf(ranked: readonly SweepPoint[], kept: readonly SweepPoint[], dropped: ReadonlyMap<number, TieBreakDrop>): SweepPoint | undefined {
  if (kept[1] !== undefined) return kept[1];
  const distance = (d: TieBreakDrop) => (Number.isNaN(d.mean) ? Infinity : Math.abs(d.mean - d.best) / Math.max(Math.abs(d.best), Number.MIN_VALUE));
  let best: { point: SweepPoint; drop: TieBreakDrop } | undefined;
  for (const point of ranked) {
    const drop = dropped.get(point.index);
    if (drop === undefined) continue;
    if (best === undefined || drop.stage > best.drop.stage || (drop.stage === best.drop.stage && distance(drop) < distance(best.drop))) best = { point, drop };
  }
  return best?.point;
}

/** The spread of a metric's means across the points: null when fewer than two points have it. */
export interface Spread {
  min: number;
  max: number;
  /** True when the metric does not vary (FLAT_TOLERANCE). */
  flat: boolean;
}

export function spreadOf(points: readonly SweepPoint[], metric: string): Spread | null {
  const stats = points.map((p) => finiteStats(p, metric)).filter((s): s is MetricStats => s !== null);
  if (stats.length < 2) return null;
  const means = stats.map((s) => s.mean);
  const min = Math.min(...means);
  const max = Math.max(...means);
  const widest = Math.max(...stats.map((s) => (Number.isFinite(s.ci95) ? s.ci95 : 0)));
  const flat = max - min <= Math.max(FLAT_TOLERANCE * Math.max(Math.abs(min), Math.abs(max)), widest);
  return { min, max, flat };
}

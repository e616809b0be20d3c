// Warnings a recommendation carries: what it rests on when the objective cannot tell the points apart.
import { sweepMetric } from "./metrics.ts";
import { fmt, hasData, pct, shortNames } from "./text.ts";
import { FLAT_TOLERANCE, spreadOf } from "./tieBreak.ts";
import type { SweepObjective as Objective, SweepParam, SweepPoint } from "./types.ts";

/**
 * Warnings about what the recommendation rests on. An objective metric (not a parameter) that does
 * not vary across the grid cannot choose: every point ties and the smallest parameter values win.
 * Under the default objective the primary figure is throughput: when it does not vary, the tie-
 * breakers decide; when they do not vary either, the smallest value wins only because it is cheapest.
 */
export function objectiveWarnings(points: readonly SweepPoint[], objective: Objective, params: readonly SweepParam[]): string[] {
  const withData = points.filter(hasData);
  if (withData.length < 2) return [];
  const warnings: string[] = [];
  const flatText = (metric: string) => {
    const s = spreadOf(withData, metric);
    if (s === null || !s.flat) return null;
    const unit = sweepMetric(metric)?.unit ?? "";
    const range = s.min === s.max ? fmt(s.min) : `${fmt(s.min)}–${fmt(s.max)}`;
    return `${metric} does not vary across the grid (${range}${unit === "" ? "" : ` ${unit}`}: within ${pct(FLAT_TOLERANCE)} or the 95 % CI)`;
  };
  const isParam = params.some((p) => p.path === objective.metric);
  const tieBreakers = objective.tieBreakers ?? [];
  if (!isParam) {
    const flat = flatText(objective.metric);
    if (flat !== null) warnings.push(`${flat}: the points differ on it by noise at most, so it cannot choose between them and the recommendation is as good as any other point; choose another objective (--minimize/--maximize) or add --require`);
    return warnings;
  }
  if (tieBreakers.length === 0) return warnings;
  const primary = flatText(PRIMARY_METRIC);
  if (primary === null) return warnings;
  const names = tieBreakers.map((t) => t.metric);
  const varying = names.filter((m) => flatText(m) === null);
  const subject = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  if (varying.length > 0) {
    warnings.push(`${primary}: the recommendation rests on the tie-breakers (${subject}) — typical of a burst that drains before the run ends; check their charts`);
  } else {
    const first = shortNames(params)[objective.metric] ?? objective.metric;
    warnings.push(`${primary}, nor do ${subject}: nothing the default objective looks at tells the points apart, so the smallest ${first} is recommended as the cheapest, not because it performs better`);
  }
  return warnings;
}

/** The figure DEFAULT_REQUIREMENT ranks on: the default objective's primary. */
const PRIMARY_METRIC = "throughput.consumedPerSec.mean";

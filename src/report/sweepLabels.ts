// What the sweep report says about a SweepResult besides its numbers: each metric's label and unit,
// the order metrics are listed in, the memory estimate per point, the thresholds requirements draw on
// the charts, and which requirement kept every point out. Pure functions of the result.
import { SWEEP_METRIC_KEYS, sweepMetric } from "../sweep/metrics.ts";
import { bestMean } from "../sweep/recommend.ts";
import { shortNames } from "../sweep/text.ts";
import type { MetricStats, SweepObjective, SweepParam, SweepPoint, SweepResult } from "../sweep/types.ts";
import { sweepChartRuntime } from "./sweepChartRuntime.ts";

export interface SweepMetricLabel {
  /** Short lower-case noun phrase for titles, axes and table headings. */
  label: string;
  /** Unit printed after values; "" for none. */
  unit: string;
  /** What exactly is measured (SWEEP_METRICS' description); "" for a metric it does not know. */
  description: string;
}

export const MEMORY_METRIC = "memoryPerConsumerMiB";
/** Bodies plus RocketMQ's objects around each cached message (src/metrics/heapEstimate.ts). */
export const HEAP_METRIC = "heapEstimateMiB";
const BYTES_PER_CONSUMER_METRIC = "cache.bytesPerConsumerMax";
const MIB = 1024 * 1024;

// Short names for charts and tables; units, descriptions and order come from SWEEP_METRICS.
const SHORT_LABELS: Readonly<Record<string, string>> = {
  "throughput.consumedPerSec.mean": "consumed throughput",
  "throughput.consumedPerSec.min": "lowest sampled throughput",
  "lag.committed.mean": "mean committed lag",
  "lag.committed.max": "peak committed lag",
  "lag.unpulled.max": "peak unpulled lag",
  "cache.countPerQueueMax": "peak cached messages per queue",
  "cache.bytesPerQueueMax": "peak cached bytes per queue",
  "cache.bytesPerConsumerMax": "peak cached bytes per consumer",
  [MEMORY_METRIC]: "memory per consumer",
  [HEAP_METRIC]: "estimated heap per consumer",
  "latency.endToEnd.p99Ms": "end-to-end p99 latency",
  "latency.endToEnd.p50Ms": "end-to-end median latency",
  "flowControl.perSec": "flow-control events",
  "messages.lost": "messages lost",
  "messages.duplicates": "duplicate deliveries",
};

/** Metrics that get a chart (PNG and HTML) of their own, in this order, when the result has them. */
export const SWEEP_CHART_METRICS: readonly string[] = [
  "throughput.consumedPerSec.mean",
  MEMORY_METRIC,
  HEAP_METRIC,
  "lag.committed.max",
  "latency.endToEnd.p99Ms",
  "flowControl.perSec",
];

export function metricLabel(key: string): SweepMetricLabel {
  const known = sweepMetric(key);
  return { label: SHORT_LABELS[key] ?? key, unit: known?.unit ?? "", description: known?.description ?? "" };
}

/**
 * Metrics present in any point: SWEEP_METRICS order first, then any others in order of first
 * appearance (a sweep.json from a newer rmqsim may carry metrics this one does not know).
 */
export function sweepMetricKeys(result: SweepResult): string[] {
  const seen = new Set<string>();
  for (const p of result.points) for (const k of Object.keys(p.stats)) seen.add(k);
  return [...SWEEP_METRIC_KEYS.filter((k) => seen.has(k)), ...[...seen].filter((k) => !SWEEP_METRIC_KEYS.includes(k))];
}

/** Stats worth showing: a metric with no value at a point (n = 0, NaN or null mean) is missing. */
function present(s: MetricStats | undefined): MetricStats | null {
  if (s === undefined || typeof s.mean !== "number" || !Number.isFinite(s.mean)) return null;
  return Number.isFinite(s.ci95) ? s : { ...s, ci95: 0 };
}

/** The point's memory estimate: measured memoryPerConsumerMiB, else derived from cached bytes. */
export function memoryStats(point: SweepPoint): MetricStats | null {
  if (MEMORY_METRIC in point.stats) return present(point.stats[MEMORY_METRIC]);
  const bytes = present(point.stats[BYTES_PER_CONSUMER_METRIC]);
  if (!bytes) return null;
  return { mean: bytes.mean / MIB, ci95: bytes.ci95 / MIB, n: bytes.n, min: bytes.min / MIB, max: bytes.max / MIB };
}

/** A metric's stats at a point; memoryPerConsumerMiB falls back to the derived estimate. */
export function statsOf(point: SweepPoint, metric: string): MetricStats | null {
  return metric === MEMORY_METRIC ? memoryStats(point) : present(point.stats[metric]);
}

/** The point with this grid index (not the array position: partial sweeps miss points). */
export function pointByIndex(result: SweepResult, index: number | null | undefined): SweepPoint | null {
  if (index === null || index === undefined) return null;
  return result.points.find((p) => p.index === index) ?? null;
}

/**
 * A parameter's short name: the last segment of its path ("groups.0.config.pullThresholdForQueue" →
 * "pullThresholdForQueue"), unless another swept path ends the same way or it is a list index; then
 * the whole path. A tied parameter joins its paths' names ("consumeThreadMin,consumeThreadMax"). The
 * rule of the recommendation's reason text (src/sweep/text.ts).
 */
export function paramName(params: readonly SweepParam[], path: string): string {
  return shortNames(params)[path] ?? path;
}

/** A parameter value as written in a scenario: numbers without exponent or rounding where possible. */
export function formatParamValue(v: number | string | boolean): string {
  if (typeof v !== "number") return String(v);
  // String() is exact and exponent-free in [1e-6, 1e21); outside it, spell the digits out.
  if (v === 0 || (Math.abs(v) >= 1e-6 && Math.abs(v) < 1e21)) return String(v);
  return Math.abs(v) >= 1e21 ? BigInt(Math.round(v)).toString() : v.toFixed(20).replace(/0+$/, "");
}

/** "pullThresholdForQueue = 200, consumeThreadMin = 8" */
export function pointParamsText(params: readonly SweepParam[], point: SweepPoint): string {
  return params.map((p) => `${paramName(params, p.path)} = ${formatParamValue(point.params[p.path] ?? "")}`).join(", ");
}

/** Swept values are a geometric range (50 … 2000): drawn on a log axis. */
export function isGeometricRange(values: readonly (number | string | boolean)[]): boolean {
  if (values.length < 3 || !values.every((v) => typeof v === "number" && v > 0)) return false;
  const nums = values as number[];
  return Math.max(...nums) / Math.min(...nums) > 20;
}

/**
 * The default objective's tie-breakers in words, "" when the objective has none: ", then keeps the
 * points as good as the best on latency.endToEnd.p99Ms, then lag.committed.max (within 5 % of the best plus the 95 % CIs)".
 */
export function tieBreakersText(objective: SweepObjective, code: (s: string) => string): string {
  const tb = objective.tieBreakers ?? [];
  if (tb.length === 0) return "";
  const tolerances = [...new Set(tb.map((t) => `${Number((t.tolerance * 100).toPrecision(6))} %`))].join("/");
  return `, keeping only those as good as the best on ${tb.map((t) => code(t.metric)).join(", then ")} (within ${tolerances} of the best plus the 95 % CIs)`;
}

/** The recommendation's warnings; none for a sweep.json written before they existed. */
export function recommendationWarnings(result: SweepResult): string[] {
  return result.recommendation?.warnings ?? [];
}

// ------------------------------------------------------------------------------ requirements

/**
 * A requirement of the form `<metric> <cmp> <number>[unit]` or `<metric> <cmp> [<number> *] best`,
 * drawable as a line on its chart.
 */
export interface RequirementThreshold {
  requirement: string;
  metric: string;
  op: "<" | "<=" | ">" | ">=" | "==" | "!=";
  value: number;
}

// Copied from src/scenario/expect.ts (not exported there): durations compare in ms, sizes in bytes.
const UNITS: Readonly<Record<string, number>> = {
  us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
  B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4,
};
const NUMBER = String.raw`(-?(?:\d+(?:\.\d+)?|\.\d+))`;
const SIMPLE = new RegExp(String.raw`^\s*([A-Za-z_][\w.]*)\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$`);
const WITH_UNIT = new RegExp(String.raw`^${NUMBER}\s*([A-Za-z]+)?$`);
const TIMES_BEST = new RegExp(String.raw`^(?:${NUMBER}\s*\*\s*)?best$|^best\s*\*\s*${NUMBER}$`);

/**
 * The threshold a requirement sets, or null when it is not one of the simple forms. `best` is
 * recommend.ts's: the best mean of the requirement's metric over all points.
 */
export function requirementThreshold(requirement: string, points: readonly SweepPoint[] = []): RequirementThreshold | null {
  const m = SIMPLE.exec(requirement);
  if (!m) return null;
  const metric = m[1]!;
  const op = m[2] as RequirementThreshold["op"];
  const rhs = m[3]!;
  const plain = WITH_UNIT.exec(rhs);
  if (plain) {
    const unit = plain[2] ?? "";
    if (unit !== "" && !(unit in UNITS)) return null;
    return { requirement, metric, op, value: Number(plain[1]) * (unit === "" ? 1 : UNITS[unit]!) };
  }
  const relative = TIMES_BEST.exec(rhs);
  if (!relative) return null;
  const best = bestMean(points, metric);
  if (!Number.isFinite(best)) return null;
  return { requirement, metric, op, value: Number(relative[1] ?? relative[2] ?? 1) * best };
}

/** The requirements a point's means miss, in the order given. */
export function failedRequirements(result: SweepResult, point: SweepPoint): string[] {
  return result.requires.filter((r) => point.requirements[r] !== true);
}

export interface RequirementTally {
  requirement: string;
  /** Points whose means meet it. */
  met: number;
  points: number;
  /** For a simple threshold nothing met: the point that came closest, with the metric's stats there. */
  closest: { point: SweepPoint; metric: string; stats: MetricStats } | null;
}

/** How many points meet each requirement (a point missing the verdict counts as not meeting it). */
export function requirementTallies(result: SweepResult): RequirementTally[] {
  return result.requires.map((requirement) => {
    const met = result.points.filter((p) => p.requirements[requirement] === true).length;
    return { requirement, met, points: result.points.length, closest: met === 0 ? closestPoint(result, requirement) : null };
  });
}

function closestPoint(result: SweepResult, requirement: string): RequirementTally["closest"] {
  const t = requirementThreshold(requirement, result.points);
  if (!t) return null;
  let best: RequirementTally["closest"] = null;
  for (const point of result.points) {
    const s = statsOf(point, t.metric);
    if (!s) continue;
    if (best === null || Math.abs(s.mean - t.value) < Math.abs(best.stats.mean - t.value)) best = { point, metric: t.metric, stats: s };
  }
  return best;
}

/**
 * Why nothing is recommended, as sentences for Markdown and HTML alike: `code` marks a requirement up
 * and `text` escapes the rest for the target format.
 */
export function noRecommendationSentences(result: SweepResult, code: (s: string) => string, text: (s: string) => string): string[] {
  const tallies = requirementTallies(result);
  const unmet = tallies.filter((t) => t.met === 0);
  if (result.points.length === 0) return [text("The sweep has no finished points.")];
  if (unmet.length > 0) {
    return unmet.map((t) => {
      const c = t.closest;
      const closest = c
        ? text(` The closest is ${sweepChartRuntime().rmqSweepMeanCi(c.stats, metricLabel(c.metric).unit)} at ${pointParamsText(result.params, c.point)}.`)
        : "";
      return `${text("No point meets ")}${code(t.requirement)}.${closest}`;
    });
  }
  if (tallies.length > 0) return [text("Each requirement is met by some point, but no point meets all of them together.")];
  if (result.shard !== null) return [text("A shard does not recommend: merge the shards first.")];
  return [];
}


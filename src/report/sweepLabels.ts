// What the sweep report says about a SweepResult besides its numbers: each metric's label and unit,
// the order metrics are listed in, the memory estimate per point, the thresholds requirements draw on
// the charts, and which requirement kept every point out. Pure functions of the result.
import type { MetricStats, SweepParam, SweepPoint, SweepResult } from "../sweep/types.ts";

export interface SweepMetricLabel {
  /** Lower-case noun phrase used in titles, axes and tables. */
  label: string;
  /** Unit printed after values; "" for a pure count. */
  unit: string;
}

export const MEMORY_METRIC = "memoryPerConsumerMiB";
const BYTES_PER_CONSUMER_METRIC = "cache.bytesPerConsumerMax";
const MIB = 1024 * 1024;

// Our own table: src/sweep/metrics.ts (SWEEP_METRICS) did not exist when this was written. Keys are the
// metric names of sweep.json; the order is the order of the CSV columns and the HTML selector.
export const SWEEP_METRIC_LABELS: Readonly<Record<string, SweepMetricLabel>> = {
  "throughput.consumedPerSec.mean": { label: "consumed throughput", unit: "msg/s" },
  "cache.bytesPerConsumerMax": { label: "peak cached bytes per consumer", unit: "B" },
  memoryPerConsumerMiB: { label: "memory per consumer", unit: "MiB" },
  "cache.countPerQueueMax": { label: "peak cached messages per queue", unit: "msg" },
  "lag.committed.max": { label: "peak committed lag", unit: "msg" },
  "lag.committed.mean": { label: "mean committed lag", unit: "msg" },
  "latency.endToEnd.p99Ms": { label: "end-to-end latency p99", unit: "ms" },
  "latency.endToEnd.p50Ms": { label: "end-to-end latency p50", unit: "ms" },
  "flowControl.perSec": { label: "flow-control events", unit: "1/s" },
  "messages.lost": { label: "messages lost", unit: "msg" },
  "messages.duplicates": { label: "duplicate deliveries", unit: "msg" },
};

/** Metrics that get a chart (PNG and HTML) of their own, in this order, when the result has them. */
export const SWEEP_CHART_METRICS: readonly string[] = [
  "throughput.consumedPerSec.mean",
  MEMORY_METRIC,
  "lag.committed.max",
  "latency.endToEnd.p99Ms",
  "flowControl.perSec",
];

export function metricLabel(key: string): SweepMetricLabel {
  return SWEEP_METRIC_LABELS[key] ?? { label: key, unit: "" };
}

/**
 * Metrics present in any point: the label table's order first, then unknown ones in order of first
 * appearance (sweep.json keeps SWEEP_METRICS order, so new metrics keep theirs).
 */
export function sweepMetricKeys(result: SweepResult): string[] {
  const seen = new Set<string>();
  for (const p of result.points) for (const k of Object.keys(p.stats)) seen.add(k);
  const known = Object.keys(SWEEP_METRIC_LABELS).filter((k) => seen.has(k));
  return [...known, ...[...seen].filter((k) => !(k in SWEEP_METRIC_LABELS))];
}

/** The point's memory estimate: measured memoryPerConsumerMiB, else derived from cached bytes. */
export function memoryStats(point: SweepPoint): MetricStats | null {
  const measured = point.stats[MEMORY_METRIC];
  if (measured) return measured;
  const bytes = point.stats[BYTES_PER_CONSUMER_METRIC];
  if (!bytes) return null;
  return { mean: bytes.mean / MIB, ci95: bytes.ci95 / MIB, n: bytes.n, min: bytes.min / MIB, max: bytes.max / MIB };
}

/** A metric's stats at a point; memoryPerConsumerMiB falls back to the derived estimate. */
export function statsOf(point: SweepPoint, metric: string): MetricStats | null {
  return metric === MEMORY_METRIC ? memoryStats(point) : (point.stats[metric] ?? null);
}

/** The point with this grid index (not the array position: partial sweeps miss points). */
export function pointByIndex(result: SweepResult, index: number | null | undefined): SweepPoint | null {
  if (index === null || index === undefined) return null;
  return result.points.find((p) => p.index === index) ?? null;
}

/** The last segment of a parameter path: "groups.0.config.pullThresholdForQueue" → "pullThresholdForQueue". */
export function paramName(path: string): string {
  const parts = path.split(/[.[\]]+/).filter((s) => s !== "");
  return parts[parts.length - 1] ?? path;
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
  return params.map((p) => `${paramName(p.path)} = ${formatParamValue(point.params[p.path] ?? "")}`).join(", ");
}

/** Swept values are a geometric range (50 … 2000): drawn on a log axis. */
export function isGeometricRange(values: readonly (number | string | boolean)[]): boolean {
  if (values.length < 3 || !values.every((v) => typeof v === "number" && v > 0)) return false;
  const nums = values as number[];
  return Math.max(...nums) / Math.min(...nums) > 20;
}

// ------------------------------------------------------------------------------ requirements

/** A requirement of the simple form `<metric> <cmp> <number>[unit]`, drawable as a line on its chart. */
export interface RequirementThreshold {
  requirement: string;
  metric: string;
  op: "<" | "<=" | ">" | ">=" | "==" | "!=";
  value: number;
}

// Copied from src/checks/expect.ts (not exported there): durations compare in ms, sizes in bytes.
const UNITS: Readonly<Record<string, number>> = {
  us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
  B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4,
};

/** The threshold a simple requirement sets, or null for anything else (e.g. `>= 0.95 * best`). */
export function requirementThreshold(requirement: string): RequirementThreshold | null {
  const m = /^\s*([A-Za-z_][\w.]*)\s*(<=|>=|==|!=|<|>)\s*(-?(?:\d+(?:\.\d+)?|\.\d+))\s*([A-Za-z]+)?\s*$/.exec(requirement);
  if (!m) return null;
  const unit = m[4] ?? "";
  if (unit !== "" && !(unit in UNITS)) return null;
  const value = Number(m[3]) * (unit === "" ? 1 : UNITS[unit]!);
  return { requirement, metric: m[1]!, op: m[2] as RequirementThreshold["op"], value };
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
  const t = requirementThreshold(requirement);
  if (!t) return null;
  let best: RequirementTally["closest"] = null;
  for (const point of result.points) {
    const s = statsOf(point, t.metric);
    if (!s) continue;
    if (best === null || Math.abs(s.mean - t.value) < Math.abs(best.stats.mean - t.value)) best = { point, metric: t.metric, stats: s };
  }
  return best;
}

// SweepResult → what the sweep charts show, as plain JSON-able data. The PNG renderer and sweep.html
// turn it into chart.js configurations with the same runtime (sweepChartRuntime.ts), so they agree.
import { paramPaths } from "../sweep/grid.ts";
import { spreadOf } from "../sweep/tieBreak.ts";
import type { MetricStats, SweepParam, SweepResult } from "../sweep/types.ts";
import { sweepChartRuntime } from "./sweepChartRuntime.ts";
import {
  failedRequirements,
  formatParamValue,
  isGeometricRange,
  MEMORY_METRIC,
  memoryStats,
  metricLabel,
  paramName,
  pointParamsText,
  requirementThreshold,
  statsOf,
  SWEEP_CHART_METRICS,
  sweepMetricKeys,
} from "./sweepLabels.ts";

export interface SweepAxis {
  path: string;
  /** The axis title: the path, or a tied parameter's paths joined by ", ". */
  title: string;
  /** Last segment of the path, used in labels. */
  name: string;
  /** Every swept value, formatted, in sweep order. */
  labels: string[];
  /** Where each value sits on the axis: the value itself when numeric, else its position. */
  positions: number[];
  /** Numeric values are placed by value (log when geometric); others by their position. */
  numeric: boolean;
  log: boolean;
}

export interface SweepChartPoint {
  /** Grid index (SweepPoint.index). */
  index: number;
  /** x on the chart: the value for a numeric parameter, else the value's position. */
  x: number;
  /** Positions of the point's values in the first and second parameter's value lists. */
  xi: number;
  yi: number;
  /** "pullThresholdForQueue = 200, consumeThreadMin = 8" */
  paramsText: string;
  feasible: boolean;
  /** Requirements its means miss. */
  failed: string[];
  memoryMiB: MetricStats | null;
}

export interface SweepChartMetric {
  key: string;
  label: string;
  unit: string;
  description: string;
  /** Aligned with `points`; null where a point lacks the metric. */
  stats: (MetricStats | null)[];
  /** Simple requirements on this metric, drawn as dashed lines on its line chart. */
  thresholds: { value: number; text: string }[];
  /**
   * The metric does not vary across the points (within 1 % or the widest 95 % interval, tieBreak.ts's
   * spreadOf): a heatmap paints it one colour and says "constant" instead of stretching noise over
   * the whole colour scale.
   */
  constant: boolean;
}

/** Latency figures whose largest mean reaches this many ms are shown in seconds ("48.1 s", not "48,120 ms"). */
export const SECONDS_FROM_MS = 10_000;

export interface SweepChartData {
  /** "line": one parameter; "heatmap": two; "none": no charts (no parameter, or three and more). */
  kind: "line" | "heatmap" | "none";
  subtitle: string;
  seeds: number;
  x: SweepAxis | null;
  y: SweepAxis | null;
  points: SweepChartPoint[];
  /** Positions in `points`, or null. */
  recommended: number | null;
  runnerUp: number | null;
  /** Every metric the result has (the HTML selector), memoryPerConsumerMiB included when derivable. */
  metrics: SweepChartMetric[];
  /** Keys of the metrics charted as files, in file order. */
  chartMetrics: string[];
}

export function buildSweepChartData(result: SweepResult): SweepChartData {
  const kind = result.params.length === 1 ? "line" : result.params.length === 2 ? "heatmap" : "none";
  const x = result.params[0] ? sweepAxis(result.params, result.params[0], kind === "line") : null;
  const y = kind === "heatmap" && result.params[1] ? sweepAxis(result.params, result.params[1], false) : null;
  const points = result.points.map((p): SweepChartPoint => {
    const xi = x ? valuePosition(result.params[0]!, p.params[x.path]) : 0;
    const yi = y ? valuePosition(result.params[1]!, p.params[y.path]) : 0;
    const value = x ? p.params[x.path] : undefined;
    return {
      index: p.index,
      x: x?.numeric && typeof value === "number" ? value : xi,
      xi,
      yi,
      paramsText: pointParamsText(result.params, p),
      feasible: p.feasible,
      failed: failedRequirements(result, p),
      memoryMiB: memoryStats(p),
    };
  });
  const position = (index: number | null | undefined) => {
    const i = index === null || index === undefined ? -1 : result.points.findIndex((p) => p.index === index);
    return i < 0 ? null : i;
  };
  const keys = sweepMetricKeys(result);
  // Derived from cached bytes when the sweep did not record it, and listed right after them.
  if (!keys.includes(MEMORY_METRIC) && points.some((p) => p.memoryMiB !== null)) {
    const bytesAt = keys.indexOf("cache.bytesPerConsumerMax");
    keys.splice(bytesAt + 1, 0, MEMORY_METRIC);
  }
  const thresholds = result.requires.map((r) => requirementThreshold(r, result.points)).filter((t) => t !== null);
  const metrics = keys.map((key): SweepChartMetric => {
    const stats = result.points.map((p) => statsOf(p, key));
    const label = metricLabel(key);
    const scale = label.unit === "ms" && stats.some((st) => st !== null && Math.abs(st.mean) >= SECONDS_FROM_MS) ? 1000 : 1;
    const spread = spreadOf(result.points.map((p, i) => ({ ...p, stats: stats[i] ? { [key]: stats[i] } : {} })), key);
    return {
      key,
      ...label,
      unit: scale === 1000 ? "s" : label.unit,
      stats: stats.map((st) => (st === null || scale === 1 ? st : { ...st, mean: st.mean / scale, ci95: st.ci95 / scale, min: st.min / scale, max: st.max / scale })),
      thresholds: thresholds
        .filter((t) => t.metric === key)
        .map((t) => ({ value: t.value / scale, text: `requirement: ${t.requirement}${/best/.test(t.requirement) ? ` (${sweepChartRuntime().rmqSweepFormat(t.value / scale)}${scale === 1000 ? " s" : ""})` : ""}` })),
      constant: spread !== null && spread.flat,
    };
  });
  const objective = result.recommendation?.objective.metric ?? result.objective.metric;
  const chartMetrics = [...SWEEP_CHART_METRICS, objective].filter((k, i, all) => keys.includes(k) && all.indexOf(k) === i);
  return {
    kind,
    subtitle: subtitleOf(result),
    seeds: result.seeds,
    x,
    y,
    points,
    recommended: position(result.recommendation?.point),
    runnerUp: position(result.recommendation?.runnerUp),
    metrics,
    chartMetrics: kind === "none" ? [] : chartMetrics,
  };
}

function sweepAxis(params: readonly SweepParam[], param: SweepParam, placeByValue: boolean): SweepAxis {
  const numeric = placeByValue && param.values.length > 0 && param.values.every((v) => typeof v === "number");
  return {
    path: param.path,
    title: paramPaths(param).join(", "),
    name: paramName(params, param.path),
    labels: param.values.map(formatParamValue),
    positions: param.values.map((v, i) => (numeric ? (v as number) : i)),
    numeric,
    log: numeric && isGeometricRange(param.values),
  };
}

function valuePosition(param: SweepParam, value: number | string | boolean | undefined): number {
  return param.values.findIndex((v) => v === value);
}

function subtitleOf(result: SweepResult): string {
  const feasible = result.points.filter((p) => p.feasible).length;
  const parts = [
    result.scenario,
    `${result.seeds} seed${result.seeds === 1 ? "" : "s"} per point: mean${result.seeds > 1 ? " with 95 % CI" : ""}`,
    `first ${formatParamValue(result.warmupMs / 1000)} s excluded`,
    `${feasible} of ${result.points.length} points meet every requirement`,
  ];
  if (result.shard !== null) parts.push(`shard ${result.shard} (partial)`);
  if (!result.complete) parts.push("stopped early");
  return parts.join(" · ");
}

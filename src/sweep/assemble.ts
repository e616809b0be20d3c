// Runs → SweepResult: groups the runs by point, computes the statistics, evaluates the requirements
// and recommends a point. The output depends only on the SET of runs, never on the order they
// arrive in: runs are sorted by (point, seed), points by index, metrics by SWEEP_METRICS order. That
// is what makes a sweep's result the same whatever the worker count, and shards + merge the same as
// one run.
//
// Only points with at least one run appear in `points` (an interrupted sweep or a shard has
// gaps; a point's `index` says where it sits in the grid). Statistics use the complete runs only:
// a run cut short (Ctrl-C, event limit) measured a different, shorter run. Its metrics stay in
// `runs` for the record.
import { gridPoint, gridSize } from "./grid.ts";
import { SWEEP_METRIC_KEYS } from "./metrics.ts";
import { evaluatePoints, recommend, type Objective } from "./recommend.ts";
import { summarize } from "./stats.ts";
import type { MetricStats, RunMetrics, SweepParam, SweepPoint, SweepResult, SweepRun } from "./types.ts";

/** One finished simulation: grid point `point`, seed baseSeed + seedIndex. */
export interface AssembleRun {
  point: number;
  seedIndex: number;
  metrics: RunMetrics;
  complete: boolean;
}

export interface AssembleInput {
  scenario: string;
  baseSeed: number;
  seeds: number;
  warmupMs: number;
  params: readonly SweepParam[];
  requires: readonly string[];
  objective: Objective;
  runs: readonly AssembleRun[];
  /** "i/n" for one shard's partial result (then no recommendation is made); null otherwise. */
  shard: string | null;
  complete: boolean;
}

export function assemble(input: AssembleInput): SweepResult {
  if (!Number.isInteger(input.seeds) || input.seeds < 1) throw new RangeError(`seeds must be a whole number ≥ 1, got ${input.seeds}`);
  const total = gridSize(input.params);
  const runs = [...input.runs].sort((a, b) => a.point - b.point || a.seedIndex - b.seedIndex);
  runs.forEach((r, i) => {
    if (!Number.isInteger(r.point) || r.point < 0 || r.point >= total) throw new RangeError(`run for point ${r.point}: the grid has points 0 to ${total - 1}`);
    if (!Number.isInteger(r.seedIndex) || r.seedIndex < 0 || r.seedIndex >= input.seeds) {
      throw new RangeError(`run for point ${r.point}: seed index ${r.seedIndex} is outside 0 to ${input.seeds - 1}`);
    }
    const prev = runs[i - 1];
    if (prev && prev.point === r.point && prev.seedIndex === r.seedIndex) throw new RangeError(`two runs for point ${r.point}, seed index ${r.seedIndex}`);
  });
  const keys = metricKeys(runs);
  const points: SweepPoint[] = [];
  for (let i = 0; i < runs.length; ) {
    const index = runs[i]!.point;
    const own: SweepRun[] = [];
    for (; i < runs.length && runs[i]!.point === index; i++) {
      const r = runs[i]!;
      own.push({ seed: input.baseSeed + r.seedIndex, metrics: canonicalMetrics(r.metrics, keys), complete: r.complete });
    }
    points.push({ index, params: gridPoint(input.params, index), runs: own, stats: pointStats(own, keys), requirements: {}, feasible: false });
  }
  const objective: Objective = { metric: input.objective.metric, direction: input.objective.direction };
  if (input.objective.tieBreakers !== undefined) objective.tieBreakers = input.objective.tieBreakers.map((t) => ({ metric: t.metric, tolerance: t.tolerance }));
  const evaluated = evaluatePoints(points, input.requires, objective);
  return {
    scenario: input.scenario,
    baseSeed: input.baseSeed,
    seeds: input.seeds,
    warmupMs: input.warmupMs,
    params: input.params.map((p) => (p.tied === undefined ? { path: p.path, spec: p.spec, values: [...p.values] } : { path: p.path, tied: [...p.tied], spec: p.spec, values: [...p.values] })),
    requires: [...input.requires],
    objective,
    points: evaluated,
    recommendation: input.shard === null ? recommend(evaluated, objective, input.params) : null,
    shard: input.shard,
    complete: input.complete,
  };
}

/** SWEEP_METRICS keys first, in their order, then any other key a run has, in code-unit order. */
function metricKeys(runs: readonly AssembleRun[]): string[] {
  const extra = new Set<string>();
  for (const r of runs) for (const k of Object.keys(r.metrics)) if (!SWEEP_METRIC_KEYS.includes(k)) extra.add(k);
  return [...SWEEP_METRIC_KEYS, ...[...extra].sort()];
}

/**
 * The run's metrics in canonical key order. A missing metric, or a null (a NaN that went through
 * JSON in a shard file), becomes NaN, so a merged result equals a direct one in memory too.
 */
function canonicalMetrics(metrics: RunMetrics, keys: readonly string[]): RunMetrics {
  const out: RunMetrics = {};
  for (const k of keys) {
    const v: unknown = metrics[k];
    if (v !== undefined || SWEEP_METRIC_KEYS.includes(k)) out[k] = typeof v === "number" ? v : NaN;
  }
  return out;
}

function pointStats(runs: readonly SweepRun[], keys: readonly string[]): Record<string, MetricStats> {
  const complete = runs.filter((r) => r.complete);
  const stats: Record<string, MetricStats> = {};
  for (const k of keys) stats[k] = summarize(complete.map((r) => r.metrics[k] ?? NaN));
  return stats;
}

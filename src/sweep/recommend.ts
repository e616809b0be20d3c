// Which point to recommend: requirements (`--require`) decide which points are feasible, the
// objective (`--minimize` / `--maximize`) ranks the feasible ones.
//
// A requirement is an expectation (src/scenario/expect.ts) over a point's metric MEANS: its names are
// the SWEEP_METRICS keys (`throughput.consumedPerSec.mean >= 0.99 * best`, `memoryPerConsumerMiB <
// 64`). Series functions (max(…), never(…), first(…)…) have no series to read here and are rejected.
// The variable `best` is the best mean, across ALL points of the sweep, of the FIRST metric the
// requirement names: the largest for metrics where higher is better (throughput), the smallest for
// the others (lag, cache, memory, latency, flow control, lost, duplicates) — see SweepMetric.better.
// Points with no value (NaN mean) are ignored when finding `best`.
//
// The objective's metric is a SWEEP_METRICS key or the path of a numeric swept parameter. Without
// --minimize / --maximize the default is "the smallest value of the FIRST swept parameter that is as
// good as the best on throughput, p99 end-to-end latency and peak committed lag": DEFAULT_REQUIREMENT
// (throughput within 1 % of the best) makes points feasible, the tie-breakers (tieBreak.ts: p99
// latency, then peak lag, each within 5 % of the best feasible point's plus the 95 % intervals) keep
// the feasible points that do not pay for a smaller value with latency or backlog, and the smallest
// value among them wins. When the first parameter is not numeric (or nothing is swept) it minimizes
// memoryPerConsumerMiB the same way instead.
//
// The recommendation carries warnings: the objective's metric does not vary across the grid (so it
// cannot choose, and the smallest parameter values win ties), or nothing the default looks at varies.
import { describeValue } from "../scenario/errors.ts";
import { evaluateExpectation, type ExpectResult } from "../scenario/expect.ts";
import { ExpectError, parseExpectation, type Expectation } from "../scenario/expectParser.ts";
import type { TimeSeries } from "../metrics/Sampler.ts";
import { SERIES_COLUMNS, type SeriesColumn } from "../scenario/vocabulary.ts";
import { SweepInputError } from "./errors.ts";
import { SWEEP_METRIC_KEYS, sweepMetric } from "./metrics.ts";
import { DEFAULT_TIE_BREAKERS, runnerUpOf, shortlist, type TieBreakDrop } from "./tieBreak.ts";
import { fmt, hasData, label, metricName, pct, shortNames } from "./text.ts";
import type { Recommendation, SweepParam, SweepPoint, SweepResult } from "./types.ts";
import { objectiveWarnings } from "./warnings.ts";

export type Objective = SweepResult["objective"];

/** The requirement the default objective adds: throughput within 1 % of the best point's. */
export const DEFAULT_REQUIREMENT = "throughput.consumedPerSec.mean >= 0.99 * best";

/** What the user chose on the command line; at most one of the two. */
export interface ObjectiveChoice {
  minimize?: string;
  maximize?: string;
}

/**
 * The objective and the requirements to apply. With no choice this is the default objective, and
 * DEFAULT_REQUIREMENT is appended to the requirements (unless already given), so sweep.json shows
 * every requirement the recommendation rests on.
 */
export function resolveObjective(params: readonly SweepParam[], choice: ObjectiveChoice, requires: readonly string[]): { objective: Objective; requires: string[] } {
  if (choice.minimize !== undefined && choice.maximize !== undefined) {
    throw new SweepInputError("--minimize", "give --minimize or --maximize, not both");
  }
  if (choice.minimize !== undefined || choice.maximize !== undefined) {
    const objective: Objective =
      choice.minimize !== undefined ? { metric: choice.minimize, direction: "minimize" } : { metric: choice.maximize!, direction: "maximize" };
    checkObjective(objective, params);
    return { objective, requires: [...requires] };
  }
  const first = params[0];
  const metric = first !== undefined && isNumericParam(first) ? first.path : "memoryPerConsumerMiB";
  return {
    objective: { metric, direction: "minimize", tieBreakers: DEFAULT_TIE_BREAKERS.map((t) => ({ ...t })) },
    requires: requires.includes(DEFAULT_REQUIREMENT) ? [...requires] : [...requires, DEFAULT_REQUIREMENT],
  };
}

function isNumericParam(p: SweepParam): boolean {
  return p.values.every((v) => typeof v === "number");
}

function checkObjective(objective: Objective, params: readonly SweepParam[]): void {
  const m = objective.metric;
  if (SWEEP_METRIC_KEYS.includes(m)) return;
  const param = params.find((p) => p.path === m);
  if (param && isNumericParam(param)) return;
  const where = `--${objective.direction} ${m}`;
  if (param) throw new SweepInputError(where, `${m} takes values that are not numbers, so it cannot be ranked; choose a metric: ${SWEEP_METRIC_KEYS.join(", ")}`);
  throw new SweepInputError(where, `unknown metric; metrics are ${SWEEP_METRIC_KEYS.join(", ")}, or the path of a numeric --param`);
}

// ---------------------------------------------------------------- requirements

interface Requirement {
  source: string;
  expectation: Expectation;
  /** The first metric the requirement names: the one `best` refers to. */
  bestMetric: string | null;
}

const SERIES_FUNCTION = /(?<![\w.])(max|min|mean|sum|last|at|first|never)\s*\(/;
/** Numbers (with their units) first, so the "s" of "2s" is not taken for a name. */
const TOKEN = /(?:\d+(?:\.\d+)?|\.\d+)[A-Za-z]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/g;

/** Parses a --require; throws a SweepInputError naming it. */
export function parseRequirement(source: string): Requirement {
  const where = `--require ${describeValue(source)}`;
  const fn = SERIES_FUNCTION.exec(source);
  if (fn) {
    throw new SweepInputError(where, `${fn[1]}(…) reads a time series, but requirements compare each point's metric means; use the metric names: ${SWEEP_METRIC_KEYS.join(", ")}`);
  }
  let expectation: Expectation;
  try {
    expectation = parseExpectation(source, { summaryPaths: SWEEP_METRIC_KEYS, variables: ["best"] });
  } catch (error) {
    if (error instanceof ExpectError) throw new SweepInputError(where, error.message);
    throw error;
  }
  const names = [...source.matchAll(TOKEN)].map((m) => m[0]);
  const bestMetric = names.find((n) => SWEEP_METRIC_KEYS.includes(n)) ?? null;
  if (names.includes("best") && bestMetric === null) {
    throw new SweepInputError(where, `"best" is the best mean of the first metric the requirement names, and it names none`);
  }
  return { source, expectation, bestMetric };
}

const EMPTY_SERIES: TimeSeries = {
  columns: Object.fromEntries(SERIES_COLUMNS.map((c) => [c, [] as number[]])) as Record<SeriesColumn, number[]>,
  perQueue: [],
  perConsumer: [],
};

/** The best finite mean of `metric` over the points; NaN when no point has one. */
export function bestMean(points: readonly SweepPoint[], metric: string): number {
  const higher = sweepMetric(metric)?.better !== "lower";
  let best = NaN;
  for (const p of points) {
    const v = p.stats[metric]?.mean;
    if (v === undefined || Number.isNaN(v)) continue;
    if (Number.isNaN(best) || (higher ? v > best : v < best)) best = v;
  }
  return best;
}

/** The point's means nested by their dotted keys, the shape the expectation grammar looks names up in. */
function meansSummary(point: SweepPoint): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(point.stats)) {
    const parts = key.split(".");
    let node = root;
    parts.slice(0, -1).forEach((part) => {
      if (typeof node[part] !== "object" || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    });
    node[parts[parts.length - 1]!] = s.mean;
  }
  return root;
}

function evaluate(r: Requirement, point: SweepPoint, best: number): ExpectResult {
  return evaluateExpectation(r.expectation, { summary: meansSummary(point), series: EMPTY_SERIES, variables: { best } });
}


/**
 * Evaluates every requirement on every point's means; returns the points (new objects) with
 * `requirements` (expression → held, in the order given) and `feasible` = every requirement held and
 * the point has at least one complete run. The objective is checked to name a metric or a parameter
 * that is a number at every point, so a bad --minimize fails before any ranking.
 */
export function evaluatePoints(points: readonly SweepPoint[], requires: readonly string[], objective: Objective): SweepPoint[] {
  const m = objective.metric;
  if (!SWEEP_METRIC_KEYS.includes(m) && !points.every((p) => typeof p.params[m] === "number")) {
    throw new SweepInputError(`--${objective.direction} ${m}`, `not a metric nor a numeric --param; metrics are ${SWEEP_METRIC_KEYS.join(", ")}`);
  }
  const parsed = requires.map(parseRequirement);
  const bests = parsed.map((r) => (r.bestMetric === null ? NaN : bestMean(points, r.bestMetric)));
  return points.map((point) => {
    const requirements: Record<string, boolean> = {};
    parsed.forEach((r, i) => {
      requirements[r.source] = evaluate(r, point, bests[i]!).ok;
    });
    return { ...point, requirements, feasible: hasData(point) && Object.values(requirements).every(Boolean) };
  });
}

// ---------------------------------------------------------------- ranking

/** The point's objective value: the parameter's value, or the metric's mean; NaN when it has none. */
export function objectiveValue(point: SweepPoint, objective: Objective): number {
  const param = point.params[objective.metric];
  if (typeof param === "number") return param;
  return point.stats[objective.metric]?.mean ?? NaN;
}

/**
 * Ranking order, best first: the objective, then smaller parameter values in --param order (so the
 * smallest threshold wins a tie; non-numeric values by their position in the --param list), then
 * the grid index. Objective values tie only when exactly equal.
 */
function compareRank(a: SweepPoint, b: SweepPoint, objective: Objective, params: readonly SweepParam[]): number {
  const va = objectiveValue(a, objective);
  const vb = objectiveValue(b, objective);
  if (va !== vb) return objective.direction === "minimize" ? va - vb : vb - va;
  for (const p of params) {
    const x = a.params[p.path];
    const y = b.params[p.path];
    if (x === y || x === undefined || y === undefined) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return p.values.indexOf(x) - p.values.indexOf(y);
  }
  return a.index - b.index;
}

/**
 * The best feasible point by the objective and the runner-up (second best), with the reason in words:
 * what was chosen and why, and the nearest point with a better objective that a requirement or a
 * tie-breaker ruled out. With tie-breakers only the feasible points that survive them (tieBreak.ts)
 * are ranked. With no feasible point, `point` is null and the reason names the requirement that rules
 * out the most points. Expects points from evaluatePoints.
 */
export function recommend(points: readonly SweepPoint[], objective: Objective, params: readonly SweepParam[]): Recommendation {
  const ranked = points.filter((p) => !Number.isNaN(objectiveValue(p, objective))).sort((a, b) => compareRank(a, b, objective, params));
  const feasible = ranked.filter((p) => p.feasible);
  const tieBreakers = objective.tieBreakers ?? [];
  const { kept, dropped } = shortlist(feasible, tieBreakers);
  const chosen = kept[0];
  const runnerUp = runnerUpOf(feasible, kept, dropped);
  const base = { objective: copyObjective(objective), warnings: objectiveWarnings(points, objective, params) };
  if (chosen === undefined) return { point: null, runnerUp: null, ...base, reason: infeasibleReason(points, ranked, objective, params) };
  const names = shortNames(params);
  const requires = Object.keys(chosen.requirements);
  const among = requires.length > 0 ? "points meeting all requirements" : "all points";
  const tolerances = [...new Set(tieBreakers.map((t) => pct(t.tolerance)))].join("/");
  const ties = tieBreakers.length > 0 ? ` and as good as the best on ${tieBreakers.map((t) => metricName(t.metric)).join(" and ")} (within ${tolerances} plus the 95 % CIs)` : "";
  const parts = [
    `${label(chosen, params, names)}: the ${objective.direction === "minimize" ? "smallest" : "largest"} ${objectiveText(chosen, objective, names)} among ${among}${ties}`,
  ];
  const better = ranked.slice(0, ranked.indexOf(chosen));
  // The nearest point with a strictly better objective answers "why not a smaller threshold?"; a
  // point ranked ahead only by a tie (same objective, smaller other parameters) is shown when no
  // point is strictly better.
  const tied = (p: SweepPoint) => objectiveValue(p, objective) === objectiveValue(chosen, objective);
  const nearest = better.filter((p) => !tied(p)).pop() ?? better[better.length - 1];
  if (nearest !== undefined) {
    const why = tied(nearest) ? "same objective, smaller parameters" : "better objective";
    const others = better.length > 1 ? `, nearest of ${better.length} that rank ahead` : "";
    const drop = dropped.get(nearest.index);
    const what = nearest.feasible && drop !== undefined ? dropText(drop) : failureText(nearest, points);
    parts.push(`${label(nearest, params, names)} (${why}${others}) ${what}`);
  }
  if (runnerUp !== undefined) {
    const figure = objectiveFigure(runnerUp, objective);
    parts.push(`runner-up ${label(runnerUp, params, names)}${figure === null ? "" : ` (${objective.metric} ${figure})`}`);
  }
  return { point: chosen.index, runnerUp: runnerUp?.index ?? null, ...base, reason: parts.join("; ") };
}

function copyObjective(objective: Objective): Objective {
  const out: Objective = { metric: objective.metric, direction: objective.direction };
  if (objective.tieBreakers !== undefined) out.tieBreakers = objective.tieBreakers.map((t) => ({ metric: t.metric, tolerance: t.tolerance }));
  return out;
}

/** "has p99 end-to-end latency 48,120 ms, more than 5 % above the best 39,020 ms (of the points meeting the requirements)". */
function dropText(d: TieBreakDrop): string {
  const unit = sweepMetric(d.metric)?.unit ?? "";
  const higher = sweepMetric(d.metric)?.better === "higher";
  const u = unit === "" ? "" : ` ${unit}`;
  if (Number.isNaN(d.mean)) return `has no ${metricName(d.metric)}`;
  return `has ${metricName(d.metric)} ${fmt(d.mean)}${u}, more than ${pct(d.tolerance)} plus the 95 % CIs ${higher ? "below" : "above"} the best ${fmt(d.best)}${u} of the points meeting the requirements`;
}

function infeasibleReason(points: readonly SweepPoint[], ranked: readonly SweepPoint[], objective: Objective, params: readonly SweepParam[]): string {
  if (points.length === 0) return "no point has finished a run";
  const requires = Object.keys(points[0]!.requirements);
  let worst: { source: string; count: number } | null = null;
  for (const source of requires) {
    const count = points.filter((p) => p.requirements[source] === false).length;
    if (count > 0 && (worst === null || count > worst.count)) worst = { source, count };
  }
  if (worst === null) {
    if (!points.some(hasData)) return "no point has a complete run";
    return `no point meeting all requirements has a value of ${objective.metric}`;
  }
  const names = shortNames(params);
  // The example is the best-ranked point the requirement rules out: the one the user would want.
  const example = [...ranked, ...points].find((p) => p.requirements[worst.source] === false)!;
  const detail = evaluate(parseRequirement(worst.source), example, bestFor(worst.source, points)).actual;
  return `no point meets every requirement; ${worst.source} rules out the most (${worst.count} of ${points.length} points), e.g. ${label(example, params, names)}: ${detail}`;
}

function bestFor(source: string, points: readonly SweepPoint[]): number {
  const r = parseRequirement(source);
  return r.bestMetric === null ? NaN : bestMean(points, r.bestMetric);
}

/** "fails A (figures) and B (figures)", or "has no complete run". */
function failureText(point: SweepPoint, points: readonly SweepPoint[]): string {
  const failed = Object.entries(point.requirements).filter(([, ok]) => !ok);
  if (failed.length === 0) return "has no complete run";
  return `fails ${failed.map(([source]) => `${source} (${evaluate(parseRequirement(source), point, bestFor(source, points)).actual})`).join(" and ")}`;
}

/** "memoryPerConsumerMiB (mean 5 ± 1)", or the parameter's name when the objective is a parameter. */
function objectiveText(point: SweepPoint, objective: Objective, names: Record<string, string>): string {
  const figure = objectiveFigure(point, objective);
  return `${names[objective.metric] ?? objective.metric}${figure === null ? "" : ` (${figure})`}`;
}

/** "mean 5 ± 1" for a metric objective; null for a parameter (its value is in the label already). */
function objectiveFigure(point: SweepPoint, objective: Objective): string | null {
  const s = point.stats[objective.metric];
  if (point.params[objective.metric] !== undefined || s === undefined) return null;
  return `mean ${fmt(s.mean)}${s.n > 1 ? ` ± ${fmt(s.ci95)}` : ""}`;
}


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
// --minimize / --maximize the default is "the smallest value of the FIRST swept parameter whose
// throughput is within 1 % of the best": minimize that parameter subject to DEFAULT_REQUIREMENT.
// When the first parameter is not numeric (or nothing is swept) it minimizes memoryPerConsumerMiB
// under the same requirement instead.
import { describeValue } from "../scenario/errors.ts";
import { evaluateExpectation, type ExpectResult } from "../scenario/expect.ts";
import { ExpectError, parseExpectation, type Expectation } from "../scenario/expectParser.ts";
import type { TimeSeries } from "../metrics/Sampler.ts";
import { SERIES_COLUMNS, type SeriesColumn } from "../scenario/vocabulary.ts";
import { SweepInputError } from "./errors.ts";
import { SWEEP_METRIC_KEYS, sweepMetric } from "./metrics.ts";
import type { Recommendation, SweepParam, SweepPoint, SweepResult } from "./types.ts";

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
  return { objective: { metric, direction: "minimize" }, requires: requires.includes(DEFAULT_REQUIREMENT) ? [...requires] : [...requires, DEFAULT_REQUIREMENT] };
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

/** A point has data when at least one complete run went into its statistics. */
function hasData(point: SweepPoint): boolean {
  return Object.values(point.stats).some((s) => s.n > 0);
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
 * The best feasible point by the objective and the runner-up (second best feasible), with the reason
 * in words: what was chosen and why, and the nearest point with a better objective that a requirement
 * ruled out. With no feasible point, `point` is null and the reason names the requirement that rules
 * out the most points. Expects points from evaluatePoints.
 */
export function recommend(points: readonly SweepPoint[], objective: Objective, params: readonly SweepParam[]): Recommendation {
  const ranked = points.filter((p) => !Number.isNaN(objectiveValue(p, objective))).sort((a, b) => compareRank(a, b, objective, params));
  const feasible = ranked.filter((p) => p.feasible);
  const chosen = feasible[0];
  const runnerUp = feasible[1];
  const base = { objective: { metric: objective.metric, direction: objective.direction } };
  if (chosen === undefined) return { point: null, runnerUp: null, ...base, reason: infeasibleReason(points, ranked, objective, params) };
  const names = shortNames(params);
  const requires = Object.keys(chosen.requirements);
  const parts = [
    `${label(chosen, params, names)}: the ${objective.direction === "minimize" ? "smallest" : "largest"} ${objectiveText(chosen, objective, names)} among ${requires.length > 0 ? "points meeting all requirements" : "all points"}`,
  ];
  const better = ranked.slice(0, ranked.indexOf(chosen)).filter((p) => !p.feasible);
  // The nearest point with a strictly better objective answers "why not a smaller threshold?"; a
  // point ranked ahead only by a tie (same objective, smaller other parameters) is shown when no
  // point is strictly better.
  const tied = (p: SweepPoint) => objectiveValue(p, objective) === objectiveValue(chosen, objective);
  const nearest = better.filter((p) => !tied(p)).pop() ?? better[better.length - 1];
  if (nearest !== undefined) {
    const why = tied(nearest) ? "same objective, smaller parameters" : "better objective";
    const others = better.length > 1 ? `, nearest of ${better.length} that rank ahead` : "";
    parts.push(`${label(nearest, params, names)} (${why}${others}) ${failureText(nearest, points)}`);
  }
  if (runnerUp !== undefined) {
    const figure = objectiveFigure(runnerUp, objective);
    parts.push(`runner-up ${label(runnerUp, params, names)}${figure === null ? "" : ` (${objective.metric} ${figure})`}`);
  }
  return { point: chosen.index, runnerUp: runnerUp?.index ?? null, ...base, reason: parts.join("; ") };
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

/** "pullThresholdForQueue=200, consumeThreadMax=20"; "the base scenario" when nothing is swept. */
function label(point: SweepPoint, params: readonly SweepParam[], names: Record<string, string>): string {
  if (params.length === 0) return "the base scenario";
  return params.map((p) => `${names[p.path]}=${String(point.params[p.path])}`).join(", ");
}

/** A parameter's last path segment when no other parameter shares it and it is not a list index. */
function shortNames(params: readonly SweepParam[]): Record<string, string> {
  const last = (path: string) => path.split(".").pop()!;
  const out: Record<string, string> = {};
  for (const p of params) {
    const short = last(p.path);
    const unique = params.filter((q) => last(q.path) === short).length === 1;
    out[p.path] = unique && !/^\d+$/.test(short) ? short : p.path;
  }
  return out;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1).replace(/\.0$/, "") : String(Number(v.toPrecision(4)));
}

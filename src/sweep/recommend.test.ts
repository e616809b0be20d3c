import { describe, expect, it } from "vitest";
import { SweepInputError } from "./errors.ts";
import { SWEEP_METRIC_KEYS } from "./metrics.ts";
import { DEFAULT_REQUIREMENT, evaluatePoints, parseRequirement, recommend, resolveObjective, type Objective } from "./recommend.ts";
import type { MetricStats, SweepParam, SweepPoint } from "./types.ts";

const P = "groups.0.config.pullThresholdForQueue";
const T = "throughput.consumedPerSec.mean";
const MEM = "memoryPerConsumerMiB";
const threshold: SweepParam = { path: P, spec: "100,200,500,1000", values: [100, 200, 500, 1000] };

/** A point whose every metric has n = 2 and the given means (others 0), ci95 1. */
function point(index: number, params: SweepPoint["params"], means: Record<string, number>): SweepPoint {
  const stats: Record<string, MetricStats> = {};
  for (const k of SWEEP_METRIC_KEYS) {
    const mean = means[k] ?? 0;
    stats[k] = { mean, ci95: 1, n: 2, min: mean, max: mean };
  }
  return { index, params, runs: [], stats, requirements: {}, feasible: false };
}

/** The threshold sweep of the reason example: 100 is 1 % too slow, 200 is the smallest fast enough. */
function thresholdPoints(): SweepPoint[] {
  return [
    point(0, { [P]: 100 }, { [T]: 8123, [MEM]: 1 }),
    point(1, { [P]: 200 }, { [T]: 9950, [MEM]: 2 }),
    point(2, { [P]: 500 }, { [T]: 10012, [MEM]: 5 }),
    point(3, { [P]: 1000 }, { [T]: 10000, [MEM]: 10 }),
  ];
}

const DEFAULT: Objective = { metric: P, direction: "minimize" };
/** The default objective as resolveObjective gives it: DEFAULT with the tie-breakers. */
const ROBUST: Objective = { ...DEFAULT, tieBreakers: [{ metric: "latency.endToEnd.p99Ms", tolerance: 0.05 }, { metric: "lag.committed.max", tolerance: 0.05 }] };

function sweepError(fn: () => unknown): SweepInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SweepInputError) return e;
    throw e;
  }
  throw new Error("expected a SweepInputError");
}

describe("resolveObjective", () => {
  it("defaults to minimizing the first numeric param with the tie-breakers, adding the throughput requirement once", () => {
    expect(resolveObjective([threshold], {}, ["messages.lost == 0"])).toEqual({ objective: ROBUST, requires: ["messages.lost == 0", DEFAULT_REQUIREMENT] });
    expect(resolveObjective([threshold], {}, [DEFAULT_REQUIREMENT]).requires).toEqual([DEFAULT_REQUIREMENT]);
  });

  it("defaults to minimizing memory when the first param is not numeric or nothing is swept", () => {
    const profile: SweepParam = { path: "profile", spec: "4.9,5.x", values: [4.9, "5.x"] };
    expect(resolveObjective([profile, threshold], {}, []).objective).toEqual({ ...ROBUST, metric: MEM });
    expect(resolveObjective([], {}, []).objective).toEqual({ ...ROBUST, metric: MEM });
  });

  it("takes --minimize / --maximize as given, with no implied requirement", () => {
    expect(resolveObjective([threshold], { maximize: T }, [])).toEqual({ objective: { metric: T, direction: "maximize" }, requires: [] });
    expect(resolveObjective([threshold], { minimize: P }, []).objective).toEqual(DEFAULT);
  });

  it("rejects both directions, unknown metrics and non-numeric params", () => {
    expect(sweepError(() => resolveObjective([], { minimize: MEM, maximize: T }, [])).message).toMatch(/not both/);
    expect(sweepError(() => resolveObjective([], { minimize: "memory" }, [])).message).toMatch(/^--minimize memory: unknown metric; metrics are throughput\.consumedPerSec\.mean/);
    const profile: SweepParam = { path: "profile", spec: "a,b", values: ["a", "b"] };
    expect(sweepError(() => resolveObjective([profile], { maximize: "profile" }, [])).message).toMatch(/not numbers, so it cannot be ranked/);
  });
});

describe("parseRequirement", () => {
  it("finds the first metric named, which `best` refers to", () => {
    expect(parseRequirement(DEFAULT_REQUIREMENT).bestMetric).toBe(T);
    expect(parseRequirement("lag.committed.max <= best + 2s and throughput.consumedPerSec.mean > 0").bestMetric).toBe("lag.committed.max");
    expect(parseRequirement("messages.lost == 0").bestMetric).toBe("messages.lost");
  });

  it("rejects unknown names, series functions and a `best` with no metric", () => {
    expect(sweepError(() => parseRequirement("throughput > 5")).message).toMatch(/^--require "throughput > 5": unknown name "throughput"/);
    expect(sweepError(() => parseRequirement("max(lag.committed) < 5")).message).toMatch(/max\(…\) reads a time series, but requirements compare each point's metric means/);
    expect(sweepError(() => parseRequirement("never(lag.committed > 5)")).message).toMatch(/never\(…\) reads a time series/);
    expect(sweepError(() => parseRequirement("best > 0")).message).toMatch(/names none/);
  });
});

describe("evaluatePoints", () => {
  it("`best` is the max across all points for throughput: 0.99 × 10012 = 9911.88 rules out 8123 only", () => {
    const out = evaluatePoints(thresholdPoints(), [DEFAULT_REQUIREMENT], DEFAULT);
    expect(out.map((p) => p.requirements)).toEqual([false, true, true, true].map((ok) => ({ [DEFAULT_REQUIREMENT]: ok })));
    expect(out.map((p) => p.feasible)).toEqual([false, true, true, true]);
  });

  it("`best` is the min for lower-is-better metrics: memory ≤ 2 × best (best 1) keeps 1 and 2", () => {
    const out = evaluatePoints(thresholdPoints(), [`${MEM} <= 2 * best`], DEFAULT);
    expect(out.map((p) => p.feasible)).toEqual([true, true, false, false]);
  });

  it("records each requirement in order and is feasible only when all hold; the input is not changed", () => {
    const input = thresholdPoints();
    const out = evaluatePoints(input, [`${MEM} < 6`, DEFAULT_REQUIREMENT], DEFAULT);
    expect(Object.entries(out[3]!.requirements)).toEqual([[`${MEM} < 6`, false], [DEFAULT_REQUIREMENT, true]]);
    expect(out.map((p) => p.feasible)).toEqual([false, true, true, false]);
    expect(input[1]!.feasible).toBe(false);
  });

  it("without requirements every point with a complete run is feasible; one without is not", () => {
    const empty = { ...point(4, { [P]: 2000 }, {}), stats: {} };
    expect(evaluatePoints([...thresholdPoints(), empty], [], DEFAULT).map((p) => p.feasible)).toEqual([true, true, true, true, false]);
  });

  it("a NaN mean fails every comparison and is ignored by `best`", () => {
    const pts = thresholdPoints();
    pts[2] = point(2, { [P]: 500 }, { [T]: NaN });
    const out = evaluatePoints(pts, [DEFAULT_REQUIREMENT], DEFAULT); // best is now 10000
    expect(out.map((p) => p.feasible)).toEqual([false, true, false, true]);
  });

  it("rejects an objective that is neither a metric nor a numeric param", () => {
    expect(() => evaluatePoints(thresholdPoints(), [], { metric: "nope", direction: "minimize" })).toThrow(SweepInputError);
  });
});

describe("recommend", () => {
  it("default objective: the smallest threshold within 1 % of the best throughput, saying which better point failed and why", () => {
    const pts = evaluatePoints(thresholdPoints(), [DEFAULT_REQUIREMENT], DEFAULT);
    const r = recommend(pts, DEFAULT, [threshold]);
    expect(r).toEqual({
      point: 1,
      runnerUp: 2,
      objective: DEFAULT,
      warnings: [],
      reason:
        "pullThresholdForQueue=200: the smallest pullThresholdForQueue among points meeting all requirements; " +
        "pullThresholdForQueue=100 (better objective) fails throughput.consumedPerSec.mean >= 0.99 * best (throughput.consumedPerSec.mean = 8123, best = 10012); " +
        "runner-up pullThresholdForQueue=500",
    });
  });

  it("a requirement that excludes the best point: minimize memory, the two smallest fail throughput", () => {
    const pts = thresholdPoints();
    pts[1] = point(1, { [P]: 200 }, { [T]: 9000, [MEM]: 2 });
    const objective: Objective = { metric: MEM, direction: "minimize" };
    const r = recommend(evaluatePoints(pts, [DEFAULT_REQUIREMENT], objective), objective, [threshold]);
    expect(r.point).toBe(2);
    expect(r.runnerUp).toBe(3);
    expect(r.reason).toBe(
      "pullThresholdForQueue=500: the smallest memoryPerConsumerMiB (mean 5 ± 1) among points meeting all requirements; " +
        "pullThresholdForQueue=200 (better objective, nearest of 2 that rank ahead) fails throughput.consumedPerSec.mean >= 0.99 * best (throughput.consumedPerSec.mean = 9000, best = 10012); " +
        "runner-up pullThresholdForQueue=1000 (memoryPerConsumerMiB mean 10 ± 1)",
    );
  });

  it("ties on the objective go to smaller parameter values in param order, then the grid index", () => {
    const a: SweepParam = { path: "a", spec: "2,1", values: [2, 1] };
    const b: SweepParam = { path: "b", spec: "y,x", values: ["y", "x"] };
    // Grid (a slowest): 0 (2,y) 1 (2,x) 2 (1,y) 3 (1,x); all have the same memory.
    const pts = [point(0, { a: 2, b: "y" }, { [MEM]: 4 }), point(1, { a: 2, b: "x" }, { [MEM]: 4 }), point(2, { a: 1, b: "y" }, { [MEM]: 4 }), point(3, { a: 1, b: "x" }, { [MEM]: 4 })];
    const objective: Objective = { metric: MEM, direction: "minimize" };
    const r = recommend(evaluatePoints(pts, [], objective), objective, [a, b]);
    // a = 1 beats a = 2 numerically; between b values (strings) the --param order wins: y before x.
    expect([r.point, r.runnerUp]).toEqual([2, 3]);
    expect(r.reason).toMatch(/^a=1, b=y: the smallest memoryPerConsumerMiB \(mean 4 ± 1\) among all points; runner-up a=1, b=x \(memoryPerConsumerMiB mean 4 ± 1\)$/);
  });

  it("a point ranked ahead only by a tie is named as such when no point has a better objective", () => {
    const a: SweepParam = { path: "a", spec: "1,2", values: [1, 2] };
    const pts = [point(0, { a: 1 }, { [MEM]: 4, [T]: 10 }), point(1, { a: 2 }, { [MEM]: 4, [T]: 100 })];
    const objective: Objective = { metric: MEM, direction: "minimize" };
    const r = recommend(evaluatePoints(pts, [DEFAULT_REQUIREMENT], objective), objective, [a]);
    expect(r.point).toBe(1);
    expect(r.runnerUp).toBeNull();
    expect(r.reason).toBe(
      "a=2: the smallest memoryPerConsumerMiB (mean 4 ± 1) among points meeting all requirements; " +
        "a=1 (same objective, smaller parameters) fails throughput.consumedPerSec.mean >= 0.99 * best (throughput.consumedPerSec.mean = 10, best = 100)",
    );
  });

  it("maximize picks the largest mean", () => {
    const objective: Objective = { metric: T, direction: "maximize" };
    const r = recommend(evaluatePoints(thresholdPoints(), [], objective), objective, [threshold]);
    expect([r.point, r.runnerUp]).toEqual([2, 3]);
    expect(r.reason).toMatch(/^pullThresholdForQueue=500: the largest throughput\.consumedPerSec\.mean \(mean 10012 ± 1\) among all points/);
  });

  it("no feasible point: null, naming the requirement that rules out the most points", () => {
    const requires = [`${MEM} < 3`, "throughput.consumedPerSec.mean > 20000"];
    const r = recommend(evaluatePoints(thresholdPoints(), requires, DEFAULT), DEFAULT, [threshold]);
    expect(r).toEqual({
      point: null,
      runnerUp: null,
      objective: DEFAULT,
      warnings: [],
      reason:
        "no point meets every requirement; throughput.consumedPerSec.mean > 20000 rules out the most (4 of 4 points), e.g. pullThresholdForQueue=100: throughput.consumedPerSec.mean = 8123",
    });
  });

  it("no points at all: null with a reason", () => {
    expect(recommend([], DEFAULT, [threshold])).toMatchObject({ point: null, runnerUp: null, reason: "no point has finished a run" });
  });

  it("long parameter paths are shortened to their last key only when that is unambiguous", () => {
    const p2: SweepParam = { path: "groups.1.config.pullThresholdForQueue", spec: "1", values: [1] };
    const pts = [point(0, { [P]: 100, [p2.path]: 1 }, {})];
    const r = recommend(evaluatePoints(pts, [], DEFAULT), DEFAULT, [threshold, p2]);
    expect(r.reason).toMatch(/^groups\.0\.config\.pullThresholdForQueue=100, groups\.1\.config\.pullThresholdForQueue=1: the smallest groups\.0\.config\.pullThresholdForQueue among all points$/);
  });
});

describe("recommend: the default objective's tie-breakers", () => {
  const P99 = "latency.endToEnd.p99Ms";
  const LAG = "lag.committed.max";
  const ROBUST_OBJECTIVE = resolveObjective([threshold], {}, []).objective;
  /** Burst-then-drain: throughput equal everywhere; small thresholds pay with latency and backlog. */
  function burstPoints(p99: number[], lag: number[], throughput = [10000, 10000, 10000, 10000]): SweepPoint[] {
    return [100, 200, 500, 1000].map((t, i) => point(i, { [P]: t }, { [T]: throughput[i]!, [P99]: p99[i]!, [LAG]: lag[i]!, [MEM]: t / 100 }));
  }

  it("keeps only points within 5 % (plus both CIs) of the best p99, then of the best peak lag, and takes the smallest of those", () => {
    // p99 best 1000 (ci 1): the bound is 1000 + 50 + 1 + 1 = 1052, so 1040 stays and 3000, 5000 leave.
    // Lag among 500 and 1000: best 400, bound 400 + 20 + 2 = 422; 410 stays.
    const pts = evaluatePoints(burstPoints([5000, 3000, 1000, 1040], [9000, 5000, 400, 410]), [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE);
    const r = recommend(pts, ROBUST_OBJECTIVE, [threshold]);
    expect([r.point, r.runnerUp]).toEqual([2, 3]);
    expect(r.reason).toBe(
      "pullThresholdForQueue=500: the smallest pullThresholdForQueue among points meeting all requirements and as good as the best on p99 end-to-end latency and peak committed lag (within 5 % plus the 95 % CIs); " +
        "pullThresholdForQueue=200 (better objective, nearest of 2 that rank ahead) has p99 end-to-end latency 3000 ms, more than 5 % plus the 95 % CIs above the best 1000 ms of the points meeting the requirements; " +
        "runner-up pullThresholdForQueue=1000",
    );
  });

  it("the second tie-breaker decides among the points the first keeps", () => {
    // p99 ties at 1000 for 500 and 1000; lag 800 vs 400: 800 > 422, so 1000 is recommended.
    const r = recommend(evaluatePoints(burstPoints([5000, 3000, 1000, 1000], [9000, 5000, 800, 400]), [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE), ROBUST_OBJECTIVE, [threshold]);
    expect(r.point).toBe(3);
    expect(r.reason).toContain("pullThresholdForQueue=500 (better objective, nearest of 3 that rank ahead) has peak committed lag 800 msg, more than 5 %");
    // The runner-up is the point that came closest: dropped last (by lag), not the smallest threshold.
    expect(r.runnerUp).toBe(2);
  });

  it("seed noise alone does not drop a point: a mean within both 95 % intervals of the best stays", () => {
    const pts = burstPoints([1000, 1100, 1000, 1000], [400, 400, 400, 400]);
    // 1100 > 1000 × 1.05 + 2, but with intervals of ± 60 it is within 1050 + 60 + 60.
    for (const p of pts) p.stats[P99] = { ...p.stats[P99]!, ci95: 60 };
    const r = recommend(evaluatePoints(pts, [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE), ROBUST_OBJECTIVE, [threshold]);
    expect([r.point, r.runnerUp]).toEqual([0, 1]);
  });

  it("warns when throughput does not vary, so the tie-breakers decided", () => {
    const r = recommend(evaluatePoints(burstPoints([5000, 3000, 1000, 1040], [9000, 5000, 400, 410], [10000, 9950, 10010, 10020]), [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE), ROBUST_OBJECTIVE, [threshold]);
    // Spread 70 ≤ 1 % of 10 020: flat. p99 and lag vary by far more than 1 %.
    expect(r.warnings).toEqual([
      "throughput.consumedPerSec.mean does not vary across the grid (9950–10020 msg/s: within 1 % or the 95 % CI): the recommendation rests on the tie-breakers (latency.endToEnd.p99Ms and lag.committed.max) — typical of a burst that drains before the run ends; check their charts",
    ]);
  });

  it("warns that the smallest value wins only on cost when nothing the default looks at varies", () => {
    const r = recommend(evaluatePoints(burstPoints([1000, 1000, 1001, 1000], [400, 401, 400, 400]), [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE), ROBUST_OBJECTIVE, [threshold]);
    expect(r.point).toBe(0);
    expect(r.warnings).toEqual([expect.stringMatching(/^throughput\.consumedPerSec\.mean does not vary across the grid \(10000 msg\/s: .*\), nor do latency\.endToEnd\.p99Ms and lag\.committed\.max: .*the smallest pullThresholdForQueue is recommended as the cheapest, not because it performs better$/)]);
  });

  it("no warning when throughput varies by more than 1 % and the widest interval", () => {
    const r = recommend(evaluatePoints(thresholdPoints(), [DEFAULT_REQUIREMENT], ROBUST_OBJECTIVE), ROBUST_OBJECTIVE, [threshold]);
    expect(r.warnings).toEqual([]);
  });

  it("an explicit objective metric that does not vary gets a warning", () => {
    const objective: Objective = { metric: T, direction: "maximize" };
    const r = recommend(evaluatePoints(burstPoints([1, 1, 1, 1], [1, 1, 1, 1], [10000, 10001, 10000, 10002]), [], objective), objective, [threshold]);
    expect(r.warnings).toEqual([expect.stringMatching(/^throughput\.consumedPerSec\.mean does not vary across the grid \(10000–10002 msg\/s: within 1 % or the 95 % CI\): the points differ on it by noise at most/)]);
    // Memory does vary (1 … 10 MiB): no warning.
    const mem: Objective = { metric: MEM, direction: "minimize" };
    expect(recommend(evaluatePoints(burstPoints([1, 1, 1, 1], [1, 1, 1, 1]), [], mem), mem, [threshold]).warnings).toEqual([]);
  });
});

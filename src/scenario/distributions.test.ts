import { describe, expect, it } from "vitest";
import type { Dist } from "./distKinds.ts";
import { compileDist, didYouMean } from "./distributions.ts";
import { normalCdf, normalQuantile } from "./normalMath.ts";
import { InputError } from "./errors.ts";
import { RandomStreams } from "../sim/streams.ts";

const DRAWS = 1_000_000;

function draws(dist: Dist, label: string, n = DRAWS): Float64Array {
  const rng = new RandomStreams(20240601).get(label);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = dist.sample(rng);
  return out;
}

function meanOf(values: Float64Array): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function errorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("normalCdf and normalQuantile", () => {
  it("match reference values", () => {
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 14);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 14);
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.3263478740408408, 8);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 7);
    expect(normalQuantile(0)).toBe(-Infinity);
  });

  it("normalQuantile returns exactly the doubles it always has, in both tails, the centre and at their borders", () => {
    // Values of the implementation before its tails were inlined: every draw, hence every run, depends on them.
    const pinned: [number, number][] = [
      [1e-300, -37.04709630294563], [1e-10, -6.36134089949508], [0.001, -3.090232304709404], [0.02, -2.0537489090030348],
      [0.0242499999, -1.9729610552862638], [0.02425, -1.9729610490848712], [0.1, -1.2815515641401563], [0.5, 0],
      [0.7, 0.5244005132792952], [0.97575, 1.9729610490848712], [0.9757500001, 1.9729610552862638], [0.99, 2.326347874388028],
      [0.999999, 4.753424313830874], [1 - 2 ** -53, 8.209536145151493],
    ];
    for (const [p, z] of pinned) expect(normalQuantile(p)).toBe(z);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(NaN)).toBeNaN();
  });

  it("are inverses of each other", () => {
    for (const p of [1e-6, 0.001, 0.02, 0.2, 0.5, 0.7, 0.98, 0.999999]) {
      expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 7);
    }
  });
});

describe("compileDist: bare values and const", () => {
  it("reads a bare value as a constant in the field's unit", () => {
    expect(compileDist("5ms", "duration", "d").quantile(0.3)).toBe(5_000);
    expect(compileDist(2, "duration", "d").quantile(0.3)).toBe(2_000);
    expect(compileDist("1KiB", "bytes", "b").quantile(0.9)).toBe(1024);
    expect(compileDist(3, "count", "c").quantile(0)).toBe(3);
  });

  it("reads the object form and reports its mean", () => {
    const dist = compileDist({ dist: "const", value: "1s" }, "duration", "d");
    expect(dist.kind).toBe("const");
    expect(dist.mean).toBe(1_000_000);
    expect(dist.quantile(0.99)).toBe(1_000_000);
  });

  it("consumes one draw per sample like every other kind", () => {
    const rng = new RandomStreams(1).get("a");
    compileDist("1ms", "duration", "d").sample(rng);
    const reference = new RandomStreams(1).get("a");
    reference();
    expect(rng()).toBe(reference());
  });
});

describe("compileDist: uniform", () => {
  it("has the analytic mean over a million draws", () => {
    const dist = compileDist({ dist: "uniform", min: "1ms", max: "9ms" }, "duration", "d");
    expect(dist.mean).toBe(5_000);
    expect(meanOf(draws(dist, "uniform")) / dist.mean).toBeCloseTo(1, 2);
  });

  it("makes every integer between integer ends equally likely, ends included", () => {
    const dist = compileDist({ dist: "uniform", min: 1, max: 3 }, "count", "c");
    const counts = [0, 0, 0, 0, 0];
    for (const v of draws(dist, "uniform-count", 300_000)) counts[v]!++;
    expect(counts[0]).toBe(0);
    expect(counts[4]).toBe(0);
    for (const k of [1, 2, 3]) expect(counts[k]! / 100_000).toBeCloseTo(1, 1);
    expect(dist.quantile(0)).toBe(1);
    expect(dist.quantile(1 - 2 ** -53)).toBe(3);
  });

  it("rejects min greater than max", () => {
    expect(errorOf(() => compileDist({ dist: "uniform", min: "5ms", max: "1ms" }, "duration", "x.y")).message).toBe(
      'x.y: min "5ms" must not exceed max "1ms"',
    );
  });
});

describe("compileDist: exponential", () => {
  it("has the analytic mean over a million draws", () => {
    const dist = compileDist({ dist: "exponential", mean: "10ms" }, "duration", "d");
    expect(dist.mean).toBe(10_000);
    expect(meanOf(draws(dist, "exponential")) / dist.mean).toBeCloseTo(1, 2);
  });

  it("is the inverse CDF: the median is mean·ln 2", () => {
    const dist = compileDist({ dist: "exponential", mean: "1s" }, "duration", "d");
    expect(dist.quantile(0.5)).toBe(Math.round(1_000_000 * Math.LN2));
    expect(dist.quantile(0)).toBe(0);
  });
});

describe("compileDist: normal", () => {
  it("has the analytic mean when the mean is far above zero", () => {
    const dist = compileDist({ dist: "normal", mean: "20ms", sd: "2ms" }, "duration", "d");
    expect(dist.mean).toBeCloseTo(20_000, 6);
    expect(meanOf(draws(dist, "normal")) / dist.mean).toBeCloseTo(1, 3);
  });

  it("truncates at zero by CDF, matching the truncated-normal mean formula", () => {
    // μ = 0, σ = 1 ms: the half-normal, whose mean is σ·sqrt(2/π).
    const dist = compileDist({ dist: "normal", mean: 0, sd: 1 }, "duration", "d");
    expect(dist.mean).toBeCloseTo(1_000 * Math.sqrt(2 / Math.PI), 6);
    const values = draws(dist, "half-normal");
    expect(meanOf(values) / dist.mean).toBeCloseTo(1, 2);
    // Clamping would put half of the mass at 0; the CDF truncation puts almost none there.
    expect(values.filter((v) => v === 0).length / values.length).toBeLessThan(0.001);
  });

  it("with sd 0 is the constant mean", () => {
    const dist = compileDist({ dist: "normal", mean: "3ms", sd: 0 }, "duration", "d");
    expect(dist.quantile(0.01)).toBe(3_000);
    expect(dist.mean).toBe(3_000);
  });

  it("rejects a negative sd", () => {
    expect(errorOf(() => compileDist({ dist: "normal", mean: "3ms", sd: "-1ms" }, "duration", "n")).path).toBe("n.sd");
  });
});

describe("compileDist: lognormal", () => {
  const dist = compileDist({ dist: "lognormal", median: "5ms", p99: "50ms" }, "duration", "d");
  const values = draws(dist, "lognormal");
  const sorted = values.slice().sort();

  it("has the analytic mean over a million draws", () => {
    expect(meanOf(values) / dist.mean).toBeCloseTo(1, 2);
  });

  it("puts the median and the 99th percentile where the spec says", () => {
    expect(sorted[DRAWS / 2 - 1]! / 5_000).toBeCloseTo(1, 2);
    expect(sorted[Math.ceil(0.99 * DRAWS) - 1]! / 50_000).toBeCloseTo(1, 1);
    expect(Math.abs(sorted[Math.ceil(0.99 * DRAWS) - 1]! / 50_000 - 1)).toBeLessThan(0.02);
    expect(dist.quantile(0.99)).toBe(50_000);
  });

  it("rejects a p99 below the median and a zero median", () => {
    expect(errorOf(() => compileDist({ dist: "lognormal", median: "5ms", p99: "1ms" }, "duration", "l")).message).toBe(
      'l: p99 "1ms" must be at least the median "5ms"',
    );
    expect(errorOf(() => compileDist({ dist: "lognormal", median: 0, p99: 1 }, "duration", "l")).path).toBe("l.median");
  });
});

describe("compileDist: pareto", () => {
  it("has the analytic mean over a million draws", () => {
    const dist = compileDist({ dist: "pareto", scale: "1ms", shape: 3 }, "duration", "d");
    expect(dist.mean).toBe(1_500);
    expect(meanOf(draws(dist, "pareto")) / dist.mean).toBeCloseTo(1, 1);
    expect(Math.abs(meanOf(draws(dist, "pareto")) / dist.mean - 1)).toBeLessThan(0.01);
    expect(dist.quantile(0)).toBe(1_000);
  });

  it("reports an infinite mean for shape ≤ 1 and clamps its tail to 2^52", () => {
    const dist = compileDist({ dist: "pareto", scale: "1s", shape: 0.1 }, "duration", "d");
    expect(dist.mean).toBe(Infinity);
    expect(dist.quantile(1 - 2 ** -32)).toBe(2 ** 52);
  });

  it("rejects a non-positive shape or scale", () => {
    expect(errorOf(() => compileDist({ dist: "pareto", scale: "1ms", shape: 0 }, "duration", "p")).path).toBe("p.shape");
    expect(errorOf(() => compileDist({ dist: "pareto", scale: "1ms", shape: "2" }, "duration", "p")).path).toBe("p.shape");
    expect(errorOf(() => compileDist({ dist: "pareto", scale: 0, shape: 2 }, "duration", "p")).path).toBe("p.scale");
  });
});

describe("compileDist: empirical", () => {
  it("respects the weights and has the weighted mean", () => {
    const dist = compileDist({ dist: "empirical", values: [["50ms", 1], ["1ms", 8], ["2ms", 0], ["10ms", 1]] }, "duration", "d");
    expect(dist.mean).toBeCloseTo((50_000 + 8_000 + 10_000) / 10, 6);
    const counts = new Map<number, number>();
    for (const v of draws(dist, "empirical")) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect(counts.get(2_000)).toBeUndefined();
    expect(counts.get(1_000)! / DRAWS).toBeCloseTo(0.8, 2);
    expect(counts.get(10_000)! / DRAWS).toBeCloseTo(0.1, 2);
    expect(counts.get(50_000)! / DRAWS).toBeCloseTo(0.1, 2);
  });

  it("is a monotone inverse CDF over the values sorted ascending", () => {
    const dist = compileDist({ dist: "empirical", values: [[30, 1], [10, 1], [20, 2]] }, "count", "c");
    expect([0, 0.24, 0.25, 0.74, 0.75, 0.99].map((u) => dist.quantile(u))).toEqual([10, 10, 20, 20, 30, 30]);
  });

  it("rejects empty lists, bad pairs, negative weights and all-zero weights", () => {
    expect(errorOf(() => compileDist({ dist: "empirical", values: [] }, "count", "e")).path).toBe("e.values");
    expect(errorOf(() => compileDist({ dist: "empirical", values: [[1]] }, "count", "e")).path).toBe("e.values.0");
    expect(errorOf(() => compileDist({ dist: "empirical", values: [[1, -1]] }, "count", "e")).path).toBe("e.values.0.1");
    expect(errorOf(() => compileDist({ dist: "empirical", values: [["5 sec", 1]] }, "duration", "e")).path).toBe("e.values.0.0");
    expect(errorOf(() => compileDist({ dist: "empirical", values: [[1, 0]] }, "count", "e")).message).toMatch(/add up to 0/);
  });
});

describe("compileDist: validation", () => {
  it("lists the accepted names and suggests a near miss for an unknown dist", () => {
    expect(errorOf(() => compileDist({ dist: "exponental", mean: 1 }, "duration", "g.consumeTime")).message).toBe(
      'g.consumeTime.dist: unknown distribution "exponental"; use one of const, uniform, exponential, normal, lognormal, pareto, empirical (did you mean "exponential"?)',
    );
    expect(errorOf(() => compileDist({ dist: "gamma", mean: 1 }, "duration", "d")).message).not.toMatch(/did you mean/);
    expect(errorOf(() => compileDist({ dist: 3 }, "duration", "d")).path).toBe("d.dist");
  });

  it("names an unknown key and says which keys the dist takes", () => {
    expect(errorOf(() => compileDist({ dist: "uniform", min: 1, max: 2, mean: 3 }, "count", "u")).message).toBe(
      'u.mean: unknown key for dist "uniform", which takes min, max',
    );
    expect(errorOf(() => compileDist({ dist: "lognormal", median: 1, p95: 3 }, "count", "l")).message).toMatch(/did you mean "p99"/);
  });

  it("names a missing key", () => {
    expect(errorOf(() => compileDist({ dist: "uniform", min: 1 }, "count", "u")).message).toBe(
      'u: dist "uniform" needs "max" (it takes min, max)',
    );
  });

  it("rejects a missing dist, arrays, null and booleans with the accepted forms", () => {
    expect(errorOf(() => compileDist({ mean: "1ms" }, "duration", "d")).message).toMatch(/missing "dist"; use a value \(e\.g\. "5ms"\)/);
    expect(errorOf(() => compileDist([1, 2], "count", "d")).message).toMatch(/\[1,2\] is not a distribution/);
    expect(errorOf(() => compileDist(null, "count", "d")).message).toMatch(/null is not a distribution/);
    expect(errorOf(() => compileDist(true, "bytes", "d")).message).toMatch(/"1KiB"/);
  });

  it("rejects counts that are not non-negative numbers", () => {
    expect(errorOf(() => compileDist(-1, "count", "c")).message).toMatch(/-1 is not a count/);
    expect(errorOf(() => compileDist("3", "count", "c")).message).toMatch(/"3" is not a count/);
  });

  it("suggests near misses only within a small edit distance", () => {
    expect(didYouMean("unifrom", ["uniform", "normal"])).toBe(' (did you mean "uniform"?)');
    expect(didYouMean("exp", ["exponential", "empirical"])).toBe(' (did you mean "exponential"?)');
    expect(didYouMean("zzz", ["uniform"])).toBe("");
  });
});

describe("compileDist: valueMax, the largest value a distribution can draw", () => {
  it("is the value, the upper end or the largest weighted value for the bounded kinds", () => {
    expect(compileDist("4MiB", "bytes", "b").valueMax).toBe(4 * 1024 ** 2);
    expect(compileDist({ dist: "uniform", min: 1, max: 3 }, "count", "c").valueMax).toBe(3);
    expect(compileDist({ dist: "empirical", values: [[30, 0], [10, 1], [20, 2]] }, "count", "c").valueMax).toBe(20);
  });

  it("is Infinity for an unbounded tail, and the constant for a degenerate one", () => {
    expect(compileDist({ dist: "exponential", mean: "1ms" }, "duration", "d").valueMax).toBe(Infinity);
    expect(compileDist({ dist: "normal", mean: "1ms", sd: "1ms" }, "duration", "d").valueMax).toBe(Infinity);
    expect(compileDist({ dist: "lognormal", median: "1ms", p99: "9ms" }, "duration", "d").valueMax).toBe(Infinity);
    expect(compileDist({ dist: "pareto", scale: "1ms", shape: 2 }, "duration", "d").valueMax).toBe(Infinity);
    expect(compileDist({ dist: "normal", mean: "3ms", sd: 0 }, "duration", "d").valueMax).toBe(3_000);
    expect(compileDist({ dist: "lognormal", median: "3ms", p99: "3ms" }, "duration", "d").valueMax).toBe(3_000);
    expect(compileDist({ dist: "exponential", mean: 0 }, "duration", "d").valueMax).toBe(0);
  });
});

describe("compileDist: an optional max truncates exponential, normal, lognormal and pareto", () => {
  const TOP = 1 - 2 ** -53;

  it("never draws above max, reaches it at the top, and reports it as valueMax", () => {
    const specs = [
      { dist: "exponential", mean: "1KiB", max: "4KiB" },
      { dist: "normal", mean: "2KiB", sd: "2KiB", max: "4KiB" },
      { dist: "lognormal", median: "1KiB", p99: "1MiB", max: "4KiB" },
      { dist: "pareto", scale: "1KiB", shape: 0.5, max: "4KiB" },
    ];
    for (const spec of specs) {
      const dist = compileDist(spec, "bytes", "b");
      expect(dist.valueMax, spec.dist).toBe(4096);
      expect(dist.quantile(TOP), spec.dist).toBe(4096);
      expect(Math.max(...draws(dist, `max-${spec.dist}`, 100_000)), spec.dist).toBeLessThanOrEqual(4096);
    }
  });

  it("truncates by CDF rather than clamping: a pareto cut at its median draws max almost never", () => {
    // scale 1 KiB, shape 1: the median is 2 KiB. A clamp would put half the draws on 2048 exactly.
    const values = draws(compileDist({ dist: "pareto", scale: "1KiB", shape: 1, max: "2KiB" }, "bytes", "b"), "pareto-cut", 100_000);
    expect(values.filter((v) => v === 2048).length / values.length).toBeLessThan(0.001);
  });

  it("keeps the relative likelihood below max: the truncated median is the quantile at F(max)/2", () => {
    // Exponential with mean 1000 cut at 1000: F(max) = 1 − e^−1, so the median is −1000·ln(1 − (1 − e^−1)/2).
    const dist = compileDist({ dist: "exponential", mean: 1000, max: 1000 }, "count", "c");
    expect(dist.quantile(0.5)).toBe(Math.round(-1000 * Math.log(1 - (1 - Math.exp(-1)) / 2)));
  });

  it("reports the mean of the truncated distribution, matching a million draws", () => {
    const cases: [unknown, number][] = [
      // E[X | X ≤ m] = μ − m·e^(−m/μ)/(1 − e^(−m/μ)) with μ = m = 1000: 1000 − 1000/(e − 1) = 418.0.
      [{ dist: "exponential", mean: 1000, max: 1000 }, 1000 - 1000 / (Math.E - 1)],
      // Bounded pareto on [1, 4], shape 2: 2·(1 − 1/4)/(1 − 1/16) = 1.6.
      [{ dist: "pareto", scale: 1000, shape: 2, max: 4000 }, 1600],
      // Shape 1 on [1, 4]: ln 4 / (1 − 1/4) = 1.848.
      [{ dist: "pareto", scale: 1000, shape: 1, max: 4000 }, (1000 * Math.log(4)) / 0.75],
      // Symmetric truncation of a normal around its mean keeps the mean.
      [{ dist: "normal", mean: 5000, sd: 1000, max: 10_000 }, 5000],
    ];
    for (const [spec, mean] of cases) {
      const dist = compileDist(spec, "count", "c");
      expect(dist.mean / mean, JSON.stringify(spec)).toBeCloseTo(1, 6);
      expect(meanOf(draws(dist, `mean-${JSON.stringify(spec)}`)) / mean, JSON.stringify(spec)).toBeCloseTo(1, 2);
    }
    const lognormal = compileDist({ dist: "lognormal", median: 1000, p99: 10_000, max: 5000 }, "count", "c");
    expect(meanOf(draws(lognormal, "mean-lognormal")) / lognormal.mean).toBeCloseTo(1, 2);
    expect(lognormal.mean).toBeLessThan(compileDist({ dist: "lognormal", median: 1000, p99: 10_000 }, "count", "c").mean);
  });

  it("changes no draw when max lies beyond double precision's reach of the tail", () => {
    // 4 MiB is 8.5 σ above a 2 KiB median with a 16 KiB p99: F(max) rounds to 1, so every value is
    // the untruncated one (scenarios/tune-pull-threshold.json got this max and kept its trace).
    const free = compileDist({ dist: "lognormal", median: "2KiB", p99: "16KiB" }, "bytes", "b");
    const cut = compileDist({ dist: "lognormal", median: "2KiB", p99: "16KiB", max: "4MiB" }, "bytes", "b");
    for (let i = 0; i < 10_000; i++) expect(cut.quantile((i + 0.5) / 10_000)).toBe(free.quantile((i + 0.5) / 10_000));
  });

  it("rejects a max that leaves nothing to draw, naming the max", () => {
    expect(errorOf(() => compileDist({ dist: "pareto", scale: "1KiB", shape: 2, max: "1KiB" }, "bytes", "p")).message).toBe(
      'p.max: "1KiB" leaves nothing to draw; it must be greater than scale "1KiB"',
    );
    expect(errorOf(() => compileDist({ dist: "exponential", mean: "1ms", max: 0 }, "duration", "e")).path).toBe("e.max");
    expect(errorOf(() => compileDist({ dist: "normal", mean: "5ms", sd: 0, max: "4ms" }, "duration", "n")).path).toBe("n.max");
    expect(errorOf(() => compileDist({ dist: "lognormal", median: "5ms", p99: "9ms", max: 0 }, "duration", "l")).path).toBe("l.max");
    expect(errorOf(() => compileDist({ dist: "exponential", mean: "1ms", max: "soon" }, "duration", "e")).path).toBe("e.max");
  });

  it("is not a key of the bounded kinds, and an unknown key lists it as optional", () => {
    expect(errorOf(() => compileDist({ dist: "const", value: 1, max: 2 }, "count", "c")).message).toBe(
      'c.max: unknown key for dist "const", which takes value',
    );
    expect(errorOf(() => compileDist({ dist: "exponential", mean: 1, maxx: 2 }, "count", "e")).message).toBe(
      'e.maxx: unknown key for dist "exponential", which takes mean; optionally max (did you mean "max"?)',
    );
  });
});

import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { assemble, type AssembleRun } from "./assemble.ts";
import { buildVariant, gridPoint, gridSize, parseParams } from "./grid.ts";
import { SWEEP_METRIC_KEYS, sweepMetrics } from "./metrics.ts";
import { DEFAULT_REQUIREMENT, resolveObjective } from "./recommend.ts";
import { shardJobs } from "./shard.ts";
import type { SweepPoint } from "./types.ts";
import { baseInput, shuffled, syntheticRuns, THRESHOLD } from "./testRuns.ts";

const T = "throughput.consumedPerSec.mean";

function run(point: number, seedIndex: number, throughput: number, complete = true): AssembleRun {
  return { point, seedIndex, metrics: { [T]: throughput }, complete };
}

describe("assemble: statistics", () => {
  it("computes each point's stats over its seeds: [1,2,3,4,5] → mean 3, ci95 2.776·√2.5/√5 = 1.963", () => {
    const runs = [1, 2, 3, 4, 5].map((v, i) => run(0, i, v));
    const r = assemble(baseInput(runs, 5));
    const s = r.points[0]!.stats[T]!;
    expect(s.mean).toBe(3);
    expect(s.ci95).toBeCloseTo(1.963, 3);
    expect(s).toMatchObject({ n: 5, min: 1, max: 5 });
  });

  it("has a stats entry for every metric, in SWEEP_METRICS order; metrics a run lacks are missing (n = 0)", () => {
    const r = assemble(baseInput([run(0, 0, 10)], 1));
    expect(Object.keys(r.points[0]!.stats)).toEqual(SWEEP_METRIC_KEYS);
    expect(r.points[0]!.stats["messages.lost"]!.n).toBe(0);
    expect(Object.keys(r.points[0]!.runs[0]!.metrics)).toEqual(SWEEP_METRIC_KEYS);
  });

  it("leaves incomplete runs out of the stats but keeps them in runs", () => {
    const r = assemble(baseInput([run(0, 0, 10), run(0, 1, 1000, false), run(0, 2, 20)], 3));
    expect(r.points[0]!.runs.map((x) => x.complete)).toEqual([true, false, true]);
    expect(r.points[0]!.stats[T]).toMatchObject({ mean: 15, n: 2 });
  });

  it("treats a null metric (a NaN that went through JSON) as missing", () => {
    const r = assemble(baseInput([run(0, 0, 10), { point: 0, seedIndex: 1, metrics: { [T]: null as unknown as number }, complete: true }], 2));
    expect(r.points[0]!.runs[1]!.metrics[T]).toBeNaN();
    expect(r.points[0]!.stats[T]).toMatchObject({ mean: 10, n: 1, ci95: 0 });
  });
});

describe("assemble: shape", () => {
  it("lists only the points with runs, by index, with their params and runs sorted by seed (baseSeed + index)", () => {
    const r = assemble(baseInput([run(5, 1, 1), run(2, 0, 1), run(5, 0, 1)], 2));
    expect(r.points.map((p) => p.index)).toEqual([2, 5]);
    expect(r.points[1]!.params).toEqual({ [THRESHOLD]: 500, "groups.0.config.consumeThreadMax": 20 });
    expect(r.points[1]!.runs.map((x) => x.seed)).toEqual([41, 42]);
  });

  it("copies the sweep's description and marks requirements and feasibility on each point", () => {
    const runs = syntheticRuns(3);
    const r = assemble(baseInput(runs, 3));
    expect(r).toMatchObject({ scenario: "synthetic", baseSeed: 41, seeds: 3, warmupMs: 2000, shard: null, complete: true });
    expect(r.points).toHaveLength(8);
    for (const p of r.points) expect(Object.keys(p.requirements)).toEqual(r.requires);
    // Synthetic throughput: 10000·min(1, t/400)·(threads/20); best ≈ 10000 at t ≥ 500 with 20 threads.
    expect(r.recommendation).toMatchObject({ point: 5, runnerUp: 7, objective: { metric: THRESHOLD, direction: "minimize" } });
    expect(r.recommendation!.reason).toMatch(/^pullThresholdForQueue=500, consumeThreadMax=20: the smallest pullThresholdForQueue among points meeting all requirements; pullThresholdForQueue=200, consumeThreadMax=20 \(better objective, nearest of 5 that rank ahead\) fails throughput\.consumedPerSec\.mean >= 0\.99 \* best \(throughput\.consumedPerSec\.mean = (?:49|50)\d\d\.\d+, best = (?:99\d\d|10\d\d\d)\.\d+\); runner-up pullThresholdForQueue=1000, consumeThreadMax=20$/);
  });

  it("a shard's result has no recommendation", () => {
    const r = assemble({ ...baseInput(syntheticRuns(2), 2), shard: "1/2", complete: true });
    expect(r.recommendation).toBeNull();
    expect(r.shard).toBe("1/2");
  });

  it("rejects duplicate runs and runs outside the grid or the seeds", () => {
    expect(() => assemble(baseInput([run(0, 0, 1), run(0, 0, 2)], 2))).toThrow(/two runs for point 0, seed index 0/);
    expect(() => assemble(baseInput([run(8, 0, 1)], 2))).toThrow(/the grid has points 0 to 7/);
    expect(() => assemble(baseInput([run(0, 2, 1)], 2))).toThrow(/seed index 2 is outside 0 to 1/);
  });
});

describe("assemble: canonical output", () => {
  it("any order of the same runs gives a deep-equal result, byte-identical as JSON", () => {
    const runs = syntheticRuns(4);
    const reference = assemble(baseInput(runs, 4));
    for (const seed of [1, 2, 3, 4, 5]) {
      const other = assemble(baseInput(shuffled(runs, seed), 4));
      expect(other).toEqual(reference);
      expect(JSON.stringify(other)).toBe(JSON.stringify(reference));
    }
  });

  it("does not depend on the key order of a run's metrics", () => {
    const runs = syntheticRuns(2);
    const reversed = runs.map((r) => ({ ...r, metrics: Object.fromEntries(Object.entries(r.metrics).reverse()) }));
    expect(JSON.stringify(assemble(baseInput(reversed, 2)))).toBe(JSON.stringify(assemble(baseInput(runs, 2))));
  });
});

describe("assemble: end to end on a real scenario", () => {
  /**
   * Ten seconds, one broker, four queues, two consumers of 2 threads × 10 ms (400 msg/s) behind a
   * 500-message backlog and 200 msg/s: the consumers are the bottleneck, so the cache fills up to
   * whatever pullThresholdForQueue allows. Each run takes well under a second.
   */
  const TINY = {
    name: "tiny-sweep",
    duration: "10s",
    sampleEvery: "1s",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 200, backlog: 500 } }],
    groups: [
      {
        name: "G1",
        instances: 2,
        subscribe: { TopicTest: "*" },
        config: { consumeThreadMin: 2, consumeThreadMax: 2 },
        listener: { consumeTime: { dist: "const", value: "10ms" } },
      },
    ],
  };

  it("simulates 2 thresholds × 2 seeds, measures after a 2 s warm-up and recommends a point", () => {
    const params = parseParams([`${THRESHOLD}=20,1000`]);
    const seeds = 2;
    const baseSeed = 7;
    const { objective, requires } = resolveObjective(params, {}, ["messages.lost == 0"]);
    const runs: AssembleRun[] = shardJobs(gridSize(params), seeds, null).map(({ point, seedIndex }) => {
      const variant = buildVariant(TINY, gridPoint(params, point));
      const { summary, series } = simulate(variant, { seed: baseSeed + seedIndex });
      return { point, seedIndex, metrics: sweepMetrics(summary, series, 2_000_000), complete: summary.complete };
    });
    const r = assemble({ scenario: "tiny-sweep", baseSeed, seeds, warmupMs: 2000, params, requires, objective, runs, shard: null, complete: true });

    expect(r.points.map((p) => p.params)).toEqual([{ [THRESHOLD]: 20 }, { [THRESHOLD]: 1000 }]);
    for (const p of r.points) {
      expect(p.runs.map((x) => [x.seed, x.complete])).toEqual([[7, true], [8, true]]);
      expect(Object.keys(p.stats)).toEqual(SWEEP_METRIC_KEYS);
      for (const s of Object.values(p.stats)) expect(s.n).toBe(2);
      expect(p.stats["messages.lost"]!.mean).toBe(0);
      expect(p.stats["throughput.consumedPerSec.mean"]!.mean).toBeGreaterThan(0);
      // The cache never holds more than pullThresholdForQueue + one pull batch (32) per queue.
      expect(p.stats["cache.countPerQueueMax"]!.max).toBeLessThanOrEqual((p.params[THRESHOLD] as number) + 32);
      expect(p.stats.memoryPerConsumerMiB!.mean).toBeCloseTo(p.stats["cache.bytesPerConsumerMax"]!.mean / 2 ** 20, 12);
    }
    const [small, large] = r.points as [SweepPoint, SweepPoint];
    // The small threshold holds the cache down by flow control; the large one lets it grow.
    expect(small.stats["flowControl.perSec"]!.mean).toBeGreaterThan(0);
    expect(large.stats["flowControl.perSec"]!.mean).toBe(0);
    expect(large.stats["cache.countPerQueueMax"]!.mean).toBeGreaterThan(small.stats["cache.countPerQueueMax"]!.mean);
    // The consumers set the pace either way, so throughput is the same and the smaller threshold wins.
    expect(small.stats["throughput.consumedPerSec.mean"]!.mean).toBeGreaterThanOrEqual(0.99 * large.stats["throughput.consumedPerSec.mean"]!.mean);
    expect(r.requires).toEqual(["messages.lost == 0", DEFAULT_REQUIREMENT]);
    expect(r.recommendation).toMatchObject({
      point: 0,
      runnerUp: 1,
      objective: { metric: THRESHOLD, direction: "minimize", tieBreakers: [{ metric: "latency.endToEnd.p99Ms", tolerance: 0.05 }, { metric: "lag.committed.max", tolerance: 0.05 }] },
      reason:
        "pullThresholdForQueue=20: the smallest pullThresholdForQueue among points meeting all requirements and as good as the best on " +
        "p99 end-to-end latency and peak committed lag (within 5 % plus the 95 % CIs); runner-up pullThresholdForQueue=1000",
    });
    // The consumers are the bottleneck at both points, so nothing the default looks at differs: it says so.
    expect(r.recommendation!.warnings).toEqual([expect.stringMatching(/^throughput\.consumedPerSec\.mean does not vary across the grid \(.*\), nor do latency\.endToEnd\.p99Ms and lag\.committed\.max: .* as the cheapest, not because it performs better$/)]);
    // The runs are deterministic: the same seeds give the same metrics again.
    const again = simulate(buildVariant(TINY, gridPoint(params, 0)), { seed: baseSeed });
    expect(sweepMetrics(again.summary, again.series, 2_000_000)).toEqual(r.points[0]!.runs[0]!.metrics);
  });
});

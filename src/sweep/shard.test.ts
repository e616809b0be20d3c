import { describe, expect, it } from "vitest";
import { assemble, type AssembleRun } from "./assemble.ts";
import { SweepInputError } from "./errors.ts";
import { formatShard, mergeResults, parseShard, shardJobs, type Shard } from "./shard.ts";
import { baseInput, shuffled, syntheticRuns } from "./testRuns.ts";
import type { SweepResult } from "./types.ts";

const SEEDS = 3;
const POINTS = 8;

function sweepError(fn: () => unknown): SweepInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SweepInputError) return e;
    throw e;
  }
  throw new Error("expected a SweepInputError");
}

/** What `--shard i/n` would write: the shard's runs (in an arbitrary order, as workers finish). */
function shardResult(all: AssembleRun[], shard: Shard): SweepResult {
  const mine = new Set(shardJobs(POINTS, SEEDS, shard).map((j) => j.point * SEEDS + j.seedIndex));
  const runs = shuffled(all.filter((r) => mine.has(r.point * SEEDS + r.seedIndex)), shard.index);
  return assemble({ ...baseInput(runs, SEEDS), shard: formatShard(shard), complete: true });
}

/** Through a file and back, as `rmqsim merge` reads them (NaN becomes null). */
function viaJson(r: SweepResult): SweepResult {
  return JSON.parse(JSON.stringify(r)) as SweepResult;
}

describe("parseShard", () => {
  it("parses i/n with 1 ≤ i ≤ n", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, count: 1 });
    expect(formatShard(parseShard("3/3"))).toBe("3/3");
  });

  it("rejects other forms and out-of-range numbers", () => {
    expect(sweepError(() => parseShard("2")).message).toBe("--shard 2: expected i/n, e.g. 2/4 for the second of four shards");
    expect(sweepError(() => parseShard("0/3")).message).toBe("--shard 0/3: shards are numbered from 1 to 3, got 0");
    expect(sweepError(() => parseShard("4/3")).message).toMatch(/numbered from 1 to 3, got 4/);
    expect(sweepError(() => parseShard("1/0")).message).toMatch(/count must be from 1 to 10000/);
    expect(sweepError(() => parseShard("-1/3")).message).toMatch(/expected i\/n/);
    expect(sweepError(() => parseShard("1.5/3")).message).toMatch(/expected i\/n/);
  });
});

describe("shardJobs", () => {
  it("gives pair k = point·seeds + seedIndex to shard (k mod n) + 1", () => {
    // 2 points × 3 seeds: k = 0…5; shard 2/4 gets k = 1 and 5.
    expect(shardJobs(2, 3, { index: 2, count: 4 })).toEqual([{ point: 0, seedIndex: 1 }, { point: 1, seedIndex: 2 }]);
    expect(shardJobs(2, 3, { index: 4, count: 4 })).toEqual([{ point: 1, seedIndex: 0 }]);
  });

  it("without a shard is every pair in k order", () => {
    expect(shardJobs(2, 2, null)).toEqual([{ point: 0, seedIndex: 0 }, { point: 0, seedIndex: 1 }, { point: 1, seedIndex: 0 }, { point: 1, seedIndex: 1 }]);
  });

  it("the shards of any count partition the pairs", () => {
    for (const count of [1, 2, 3, 7, 30]) {
      const keys = Array.from({ length: count }, (_, i) => shardJobs(POINTS, SEEDS, { index: i + 1, count })).flat().map((j) => j.point * SEEDS + j.seedIndex);
      expect(keys.sort((a, b) => a - b)).toEqual(Array.from({ length: POINTS * SEEDS }, (_, k) => k));
    }
  });
});

describe("mergeResults", () => {
  const all = syntheticRuns(SEEDS);
  const whole = assemble(baseInput(all, SEEDS));

  it("shards 1/3, 2/3, 3/3 merged equal the single run, in any order, also read back from JSON", () => {
    const parts = [1, 2, 3].map((index) => shardResult(all, { index, count: 3 }));
    for (const p of parts) expect(p.recommendation).toBeNull();
    expect(mergeResults(parts)).toEqual(whole);
    expect(mergeResults([parts[2]!, parts[0]!, parts[1]!])).toEqual(whole);
    const fromFiles = mergeResults(parts.map(viaJson));
    expect(fromFiles).toEqual(whole);
    expect(JSON.stringify(fromFiles)).toBe(JSON.stringify(whole));
    expect(whole.points[3]!.stats["latency.endToEnd.p50Ms"]!.n).toBe(SEEDS - 1);
  });

  it("a missing shard gives an incomplete result, still with a recommendation over the points it has", () => {
    const merged = mergeResults([1, 3].map((index) => shardResult(all, { index, count: 3 })));
    expect(merged.complete).toBe(false);
    expect(merged.shard).toBeNull();
    expect(merged.recommendation).not.toBeNull();
    expect(merged.points.flatMap((p) => p.runs)).toHaveLength((POINTS * SEEDS * 2) / 3);
  });

  it("a single whole result merges to itself", () => {
    expect(mergeResults([whole])).toEqual(whole);
  });

  it("rejects parts of different sweeps, naming the field", () => {
    const a = shardResult(all, { index: 1, count: 2 });
    const b = shardResult(all, { index: 2, count: 2 });
    expect(sweepError(() => mergeResults([a, { ...b, seeds: 5 }])).message).toBe("merge: shard 2/2 has seeds 5 but shard 1/2 has 3; merge only the shards of one sweep");
    expect(sweepError(() => mergeResults([a, { ...b, warmupMs: 0 }])).message).toMatch(/has warmupMs 0/);
    expect(sweepError(() => mergeResults([a, { ...b, requires: [] }])).message).toMatch(/has requires \[\]/);
    expect(sweepError(() => mergeResults([a, { ...b, objective: { metric: "memoryPerConsumerMiB", direction: "minimize" } }])).message).toMatch(/has objective/);
    expect(sweepError(() => mergeResults([a, { ...b, params: b.params.slice(1) }])).message).toMatch(/has params/);
    expect(sweepError(() => mergeResults([a, { ...b, scenario: "other" }])).message).toMatch(/has scenario "other"/);
    expect(sweepError(() => mergeResults([])).message).toBe("merge: no results to merge");
  });

  it("accepts the same description with object keys in another order", () => {
    const a = shardResult(all, { index: 1, count: 2 });
    const b = shardResult(all, { index: 2, count: 2 });
    const reordered = { ...b, objective: { direction: b.objective.direction, metric: b.objective.metric } };
    expect(mergeResults([a, reordered])).toEqual(whole);
  });

  it("rejects overlapping shards", () => {
    const a = shardResult(all, { index: 1, count: 2 });
    const b = shardResult(all, { index: 1, count: 3 }); // shares k = 0, 6, 12, … with 1/2
    expect(sweepError(() => mergeResults([a, b])).message).toBe("merge: point 0 seed 41 is in both shard 1/2 and shard 1/3: the shards overlap (give each shard once)");
    expect(sweepError(() => mergeResults([a, a])).message).toMatch(/the shards overlap/);
  });

  it("rejects a run outside the sweep", () => {
    const a = viaJson(shardResult(all, { index: 1, count: 2 }));
    a.points[0]!.runs[0]!.seed = 99;
    expect(sweepError(() => mergeResults([a])).message).toMatch(/has a run \(point 0, seed 99\) outside the sweep's 8 points × seeds 41…43/);
  });
});

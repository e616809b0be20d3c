// Fake but plausible SweepResults for the sweep report's tests: a backlog scenario where consumers fall
// behind a 4,000 msg/s producer until pullThresholdForQueue lets them pull far enough ahead. Numbers
// come from a closed-form model plus deterministic noise per seed, then go through the same statistics
// the sweep uses (mean, Student-t 95 % half-width), so the CIs are honest about the fake runs.
import type { MetricStats, Recommendation, RunMetrics, SweepParam, SweepPoint, SweepResult } from "../sweep/types.ts";

const MIB = 1024 * 1024;
const PRODUCED_PER_SEC = 4000;
/** Two-sided 95 % Student t quantiles for 1…5 degrees of freedom. */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571];

export const REQUIRE_THROUGHPUT = "throughput.consumedPerSec.mean >= 0.95 * best";
export const REQUIRE_P99 = "latency.endToEnd.p99Ms < 2s";
export const REQUIRE_MEMORY_TINY = "memoryPerConsumerMiB <= 1";

type Requirement = (means: Record<string, number>, best: number) => boolean;

const REQUIREMENTS: Readonly<Record<string, Requirement>> = {
  [REQUIRE_THROUGHPUT]: (m, best) => m["throughput.consumedPerSec.mean"]! >= 0.95 * best,
  [REQUIRE_P99]: (m) => m["latency.endToEnd.p99Ms"]! < 2000,
  [REQUIRE_MEMORY_TINY]: (m) => m.memoryPerConsumerMiB! <= 1,
};

/** Deterministic noise in [-1, 1] for (point, seed, metric): a small integer hash, no Math.random. */
function noise(point: number, seed: number, salt: number): number {
  let h = (point * 73856093) ^ (seed * 19349663) ^ (salt * 83492791);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h ^= h >>> 16;
  return ((h >>> 0) / 0xffffffff) * 2 - 1;
}

/** One run's metrics for a threshold and a consume capacity (msg/s over the group). */
function runMetrics(threshold: number, capacityPerSec: number, point: number, seed: number): RunMetrics {
  const jitter = (salt: number, relative: number) => 1 + relative * noise(point, seed, salt);
  const reach = 1 - Math.exp(-threshold / 120);
  const consumed = Math.min(PRODUCED_PER_SEC, capacityPerSec * reach) * jitter(1, 0.012);
  const starved = Math.max(0, PRODUCED_PER_SEC - consumed);
  const cachedPerQueue = Math.round((threshold + 32) * (capacityPerSec > PRODUCED_PER_SEC ? 0.8 : 1) * jitter(2, 0.02));
  // Four queues per consumer, 4 KiB bodies.
  const bytes = cachedPerQueue * 4 * 4096;
  const lagMax = Math.round(starved * 60 + 8 * cachedPerQueue * jitter(3, 0.05));
  const p99 = (40 + 1.1 * threshold + (25000 * starved) / PRODUCED_PER_SEC) * jitter(4, 0.04);
  return {
    "throughput.consumedPerSec.mean": consumed,
    "cache.bytesPerConsumerMax": bytes,
    memoryPerConsumerMiB: bytes / MIB,
    "cache.countPerQueueMax": cachedPerQueue,
    "lag.committed.max": lagMax,
    "lag.committed.mean": Math.round(lagMax * 0.52),
    "latency.endToEnd.p99Ms": p99,
    "latency.endToEnd.p50Ms": p99 * 0.38,
    "flowControl.perSec": 160 * Math.exp(-threshold / 300) * jitter(5, 0.05),
    "messages.lost": 0,
    "messages.duplicates": seed % 3 === 0 && threshold >= 1000 ? 1 : 0,
  };
}

export function sampleStats(values: readonly number[]): MetricStats {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  const ci95 = n > 1 ? T95[Math.min(n - 2, T95.length - 1)]! * Math.sqrt(variance / n) : 0;
  return { mean, ci95, n, min: Math.min(...values), max: Math.max(...values) };
}

interface FakeOptions {
  params: SweepParam[];
  seeds: number;
  requires: string[];
  /** Consume capacity of the group for a point's params. */
  capacity: (params: SweepPoint["params"]) => number;
  threshold: (params: SweepPoint["params"]) => number;
}

function fakeSweep(o: FakeOptions): SweepResult {
  const grid = o.params.reduce<SweepPoint["params"][]>(
    (acc, p) => acc.flatMap((prefix) => p.values.map((v) => ({ ...prefix, [p.path]: v }))),
    [{}],
  );
  const baseSeed = 42;
  const points: SweepPoint[] = grid.map((params, index) => {
    const runs = Array.from({ length: o.seeds }, (_, k) => ({
      seed: baseSeed + k,
      metrics: runMetrics(o.threshold(params), o.capacity(params), index, baseSeed + k),
      complete: true,
    }));
    const stats: Record<string, MetricStats> = {};
    for (const key of Object.keys(runs[0]!.metrics)) stats[key] = sampleStats(runs.map((r) => r.metrics[key]!));
    return { index, params, runs, stats, requirements: {}, feasible: false };
  });
  const mean = (p: SweepPoint, key: string) => p.stats[key]!.mean;
  const best = Math.max(...points.map((p) => mean(p, "throughput.consumedPerSec.mean")));
  for (const p of points) {
    const means = Object.fromEntries(Object.entries(p.stats).map(([k, s]) => [k, s.mean]));
    for (const r of o.requires) p.requirements[r] = REQUIREMENTS[r]!(means, best);
    p.feasible = o.requires.every((r) => p.requirements[r]);
  }
  const objective = { metric: "memoryPerConsumerMiB", direction: "minimize" as const };
  const ranked = points.filter((p) => p.feasible).sort((a, b) => mean(a, objective.metric) - mean(b, objective.metric));
  const recommendation: Recommendation = {
    point: ranked[0]?.index ?? null,
    runnerUp: ranked[1]?.index ?? null,
    objective,
    reason: ranked[0]
      ? `it uses the least memory per consumer (${mean(ranked[0], objective.metric).toFixed(1)} MiB) of the points that meet every requirement; every point with less memory misses ${REQUIRE_THROUGHPUT}`
      : `no point meets every requirement: ${o.requires.filter((r) => points.every((p) => !p.requirements[r])).join(", ")} holds nowhere`,
  };
  return {
    scenario: "backlog-drain",
    baseSeed,
    seeds: o.seeds,
    warmupMs: 10_000,
    params: o.params,
    requires: o.requires,
    objective,
    points,
    recommendation,
    shard: null,
    complete: true,
  };
}

const THRESHOLD_PATH = "groups.G1.config.pullThresholdForQueue";
const THREADS_PATH = "groups.G1.config.consumeThreadMin";
const thresholdParam: SweepParam = { path: THRESHOLD_PATH, spec: "50,100,200,500,1000,2000", values: [50, 100, 200, 500, 1000, 2000] };

/** pullThresholdForQueue over 50 … 2000, three seeds: throughput rises then flattens, memory grows linearly. */
export function fakeSweep1d(requires: string[] = [REQUIRE_THROUGHPUT, REQUIRE_P99]): SweepResult {
  return fakeSweep({
    params: [thresholdParam],
    seeds: 3,
    requires,
    capacity: () => 4200,
    threshold: (p) => p[THRESHOLD_PATH] as number,
  });
}

/** pullThresholdForQueue × consumeThreadMin (two consumers, 5 ms per message: 400 msg/s per thread pair). */
export function fakeSweep2d(): SweepResult {
  return fakeSweep({
    params: [
      { path: THRESHOLD_PATH, spec: "100,200,500,1000", values: [100, 200, 500, 1000] },
      { path: THREADS_PATH, spec: "4,8,16,20", values: [4, 8, 16, 20] },
    ],
    seeds: 3,
    requires: [REQUIRE_THROUGHPUT, REQUIRE_P99],
    capacity: (p) => 400 * (p[THREADS_PATH] as number),
    threshold: (p) => p[THRESHOLD_PATH] as number,
  });
}

/** The 1-D sweep asked for at most 1 MiB per consumer: nothing qualifies. */
export function fakeSweepInfeasible(): SweepResult {
  return fakeSweep1d([REQUIRE_THROUGHPUT, REQUIRE_MEMORY_TINY]);
}

/** A sweep over a string parameter with a single seed (no intervals). */
export function fakeSweepCategorical(): SweepResult {
  const path = "groups.G1.allocateMessageQueueStrategy";
  return fakeSweep({
    params: [{ path, spec: "AVG,AVG_BY_CIRCLE,CONSISTENT_HASH", values: ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"] }],
    seeds: 1,
    requires: [REQUIRE_P99],
    capacity: (p) => (p[path] === "CONSISTENT_HASH" ? 3600 : 4200),
    threshold: () => 500,
  });
}

// Fake but plausible SweepResults for the sweep report's tests: a backlog scenario where consumers fall
// behind a 4,000 msg/s producer until pullThresholdForQueue lets them pull far enough ahead. Numbers
// come from a closed-form model plus deterministic noise per seed, then go through the sweep's own
// assemble (Student-t intervals, requirements, recommendation), so everything but the runs is real.
import { HEAP_BYTES_PER_MESSAGE } from "../metrics/heapEstimate.ts";
import { assemble, type AssembleRun } from "../sweep/assemble.ts";
import { gridPoint, gridSize, type GridPoint } from "../sweep/grid.ts";
import type { RunMetrics, SweepParam, SweepResult } from "../sweep/types.ts";

const MIB = 1024 * 1024;
const PRODUCED_PER_SEC = 4000;

export const REQUIRE_THROUGHPUT = "throughput.consumedPerSec.mean >= 0.95 * best";
export const REQUIRE_P99 = "latency.endToEnd.p99Ms < 2s";
export const REQUIRE_MEMORY_TINY = "memoryPerConsumerMiB <= 1";

const BASE_SEED = 42;

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
  // Keys in SWEEP_METRICS order, as sweepMetrics writes them.
  return {
    "throughput.consumedPerSec.mean": consumed,
    "throughput.consumedPerSec.min": consumed * 0.93 * jitter(6, 0.02),
    "lag.committed.mean": Math.round(lagMax * 0.52),
    "lag.committed.max": lagMax,
    "lag.unpulled.max": Math.max(0, lagMax - 8 * cachedPerQueue),
    "cache.countPerQueueMax": cachedPerQueue,
    "cache.bytesPerQueueMax": cachedPerQueue * 4096,
    "cache.bytesPerConsumerMax": bytes,
    memoryPerConsumerMiB: bytes / MIB,
    heapEstimateMiB: (cachedPerQueue * 4 * HEAP_BYTES_PER_MESSAGE + bytes) / MIB,
    "latency.endToEnd.p99Ms": p99,
    "latency.endToEnd.p50Ms": p99 * 0.38,
    "flowControl.perSec": 160 * Math.exp(-threshold / 300) * jitter(5, 0.05),
    "messages.lost": 0,
    "messages.duplicates": seed % 3 === 0 && threshold >= 1000 ? 1 : 0,
  };
}

interface FakeOptions {
  params: SweepParam[];
  seeds: number;
  requires: string[];
  /** Consume capacity of the group for a point's params. */
  capacity: (params: GridPoint) => number;
  threshold: (params: GridPoint) => number;
}

/** Fake runs for every (point, seed), assembled by the sweep itself: real requirements and reason. */
function fakeSweep(o: FakeOptions): SweepResult {
  const runs: AssembleRun[] = [];
  for (let point = 0; point < gridSize(o.params); point++) {
    const params = gridPoint(o.params, point);
    for (let seedIndex = 0; seedIndex < o.seeds; seedIndex++) {
      runs.push({ point, seedIndex, metrics: runMetrics(o.threshold(params), o.capacity(params), point, BASE_SEED + seedIndex), complete: true });
    }
  }
  return assemble({
    scenario: "backlog-drain",
    baseSeed: BASE_SEED,
    seeds: o.seeds,
    warmupMs: 10_000,
    params: o.params,
    requires: o.requires,
    objective: { metric: "memoryPerConsumerMiB", direction: "minimize" },
    runs,
    shard: null,
    complete: true,
  });
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

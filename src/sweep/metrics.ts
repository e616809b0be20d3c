// The figures a sweep compares across points, taken from one run's summary and time series.
//
// Steady-state figures skip the warm-up: only samples taken strictly after it count (a sample at
// tSec covers the interval ending at tSec, so one at exactly the warm-up's end still covers warm-up
// time). Message counts are for the whole run: a message lost during warm-up is still lost.
import { heapEstimateBytes } from "../metrics/heapEstimate.ts";
import type { TimeSeries } from "../metrics/Sampler.ts";
import type { RunMetrics } from "./types.ts";
import { SweepInputError } from "./errors.ts";

export interface SweepMetric {
  key: string;
  unit: string;
  /**
   * Which way is better, for `best` in requirements: throughput is better higher; lag, cache,
   * memory, latency, flow control, losses and duplicates are better lower.
   */
  better: "higher" | "lower";
  description: string;
}

/** Every metric, in the order of RunMetrics keys, reports and tables. */
export const SWEEP_METRICS: readonly SweepMetric[] = [
  { key: "throughput.consumedPerSec.mean", unit: "msg/s", better: "higher", description: "mean consume rate after warm-up (duplicates included)" },
  { key: "throughput.consumedPerSec.min", unit: "msg/s", better: "higher", description: "lowest one-sample consume rate after warm-up" },
  { key: "lag.committed.mean", unit: "msg", better: "lower", description: "mean committed lag (broker max offset − committed offset, Σ over queues) after warm-up" },
  { key: "lag.committed.max", unit: "msg", better: "lower", description: "highest sampled committed lag after warm-up" },
  { key: "lag.unpulled.max", unit: "msg", better: "lower", description: "highest sampled lag not yet pulled after warm-up" },
  { key: "cache.countPerQueueMax", unit: "msg", better: "lower", description: "largest single ProcessQueue sampled after warm-up, messages" },
  { key: "cache.bytesPerQueueMax", unit: "B", better: "lower", description: "largest single ProcessQueue sampled after warm-up, body bytes" },
  { key: "cache.bytesPerConsumerMax", unit: "B", better: "lower", description: "largest consumer instance's cached body bytes sampled after warm-up" },
  { key: "memoryPerConsumerMiB", unit: "MiB", better: "lower", description: "cache.bytesPerConsumerMax in MiB: the message cache users size heaps with" },
  { key: "heapEstimateMiB", unit: "MiB", better: "lower", description: "largest consumer instance's estimated cache heap sampled after warm-up: cached messages × 2 360 B of RocketMQ objects + their bodies (src/metrics/heapEstimate.ts)" },
  { key: "latency.endToEnd.p99Ms", unit: "ms", better: "lower", description: "worst per-sample p99 of born-to-consumed latency after warm-up (the worst sample's p99, not a whole-run p99)" },
  { key: "latency.endToEnd.p50Ms", unit: "ms", better: "lower", description: "mean of the per-sample median born-to-consumed latency after warm-up" },
  { key: "flowControl.perSec", unit: "1/s", better: "lower", description: "mean pull flow-control events per second (count + size + span + paused) after warm-up" },
  { key: "messages.lost", unit: "msg", better: "lower", description: "messages never consumed and not in flight, whole run" },
  { key: "messages.duplicates", unit: "msg", better: "lower", description: "repeat consumptions of a message, whole run" },
];

export const SWEEP_METRIC_KEYS: readonly string[] = SWEEP_METRICS.map((m) => m.key);

export function sweepMetric(key: string): SweepMetric | undefined {
  return SWEEP_METRICS.find((m) => m.key === key);
}

/** What sweepMetrics reads from a run's summary (a Summary has it). */
export interface SweepSummaryInput {
  messages: { lost: number; duplicates: number };
}

const MIB = 2 ** 20;

/**
 * The metrics of one run, keys in SWEEP_METRICS order. Latency figures use only samples in which
 * something was consumed (a sample with none has no latency; the Sampler writes 0 there), and are
 * NaN — counted as missing by summarize — when nothing was consumed after the warm-up.
 * Throws a SweepInputError when no sample falls after the warm-up.
 */
export function sweepMetrics(summary: SweepSummaryInput, series: TimeSeries, warmupUs: number): RunMetrics {
  if (!(warmupUs >= 0)) throw new SweepInputError("--warmup", `must be 0 or more, got ${warmupUs / 1000} ms`);
  const c = series.columns;
  const after: number[] = [];
  // tSec is µs / 1e6; go back to whole µs so a sample at exactly the warm-up's end is excluded.
  c.tSec.forEach((t, i) => {
    if (Math.round(t * 1e6) > warmupUs) after.push(i);
  });
  if (after.length === 0) {
    const lastSec = c.tSec.length > 0 ? c.tSec[c.tSec.length - 1]! : 0;
    throw new SweepInputError("--warmup", `${warmupUs / 1e6}s leaves no sample to measure: the run's last sample is at ${lastSec}s; make the warm-up shorter than the run`);
  }
  const pick = (col: readonly number[], rows: readonly number[] = after) => rows.map((i) => col[i]!);
  const consumed = pick(c.consumedPerSec);
  const withConsumption = after.filter((i) => c.consumedPerSec[i]! > 0);
  const flow = after.map((i) => c.flowControlCountPerSec[i]! + c.flowControlSizePerSec[i]! + c.flowControlSpanPerSec[i]! + c.flowControlPausedPerSec[i]!);
  const bytesPerConsumerMax = max(pick(c.cachedBytesPerConsumerMax));
  return {
    "throughput.consumedPerSec.mean": mean(consumed),
    "throughput.consumedPerSec.min": min(consumed),
    "lag.committed.mean": mean(pick(c.lagCommitted)),
    "lag.committed.max": max(pick(c.lagCommitted)),
    "lag.unpulled.max": max(pick(c.lagUnpulled)),
    "cache.countPerQueueMax": max(pick(c.cachedPerQueueMax)),
    "cache.bytesPerQueueMax": max(pick(c.cachedBytesPerQueueMax)),
    "cache.bytesPerConsumerMax": bytesPerConsumerMax,
    memoryPerConsumerMiB: bytesPerConsumerMax / MIB,
    heapEstimateMiB: heapPerConsumerMax(series, after) / MIB,
    "latency.endToEnd.p99Ms": max(pick(c.endToEndP99Ms, withConsumption)),
    "latency.endToEnd.p50Ms": mean(pick(c.endToEndP50Ms, withConsumption)),
    "flowControl.perSec": mean(flow),
    "messages.lost": summary.messages.lost,
    "messages.duplicates": summary.messages.duplicates,
  };
}

/**
 * The largest estimated cache heap of one consumer instance over the given samples, bytes: per sample
 * and instance, cached messages × HEAP_BYTES_PER_MESSAGE + cached body bytes. A series without the
 * per-instance message counts (none recorded) gives NaN.
 */
function heapPerConsumerMax(series: TimeSeries, rows: readonly number[]): number {
  let out = NaN;
  for (const c of series.perConsumer) {
    for (const i of rows) {
      const count = c.cached[i];
      const bytes = c.cachedBytes[i];
      if (count === undefined || bytes === undefined) continue;
      const heap = heapEstimateBytes(count, bytes);
      if (!(heap <= out)) out = heap;
    }
  }
  return out;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, v) => a + v, 0) / xs.length;
}

function max(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, v) => (v > a ? v : a), -Infinity);
}

function min(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, v) => (v < a ? v : a), Infinity);
}

import { describe, expect, it } from "vitest";
import type { TimeSeries } from "../metrics/Sampler.ts";
import { SERIES_COLUMNS, type SeriesColumn } from "../scenario/vocabulary.ts";
import { emptySummary } from "../metrics/summary.ts";
import { SweepInputError } from "./errors.ts";
import { SWEEP_METRIC_KEYS, SWEEP_METRICS, sweepMetrics } from "./metrics.ts";

/** A series with the given columns; every other column is 0. */
function series(tSec: number[], cols: Partial<Record<SeriesColumn, number[]>>): TimeSeries {
  const columns = {} as Record<SeriesColumn, number[]>;
  for (const c of SERIES_COLUMNS) columns[c] = cols[c] ?? tSec.map(() => 0);
  columns.tSec = tSec;
  return { columns, perQueue: [], perConsumer: [] };
}

const summary = { ...emptySummary(), messages: { ...emptySummary().messages, lost: 3, duplicates: 7 } };

// Four samples; the first two (warm-up, 2 s) must not count. The warm-up values are extreme so any
// leak shows.
const S = series([1, 2, 3, 4], {
  consumedPerSec: [0, 99_999, 100, 300],
  lagCommitted: [1e9, 1e9, 40, 20],
  lagUnpulled: [1e9, 1e9, 5, 9],
  cachedPerQueueMax: [1e9, 1e9, 12, 10],
  cachedBytesPerQueueMax: [1e9, 1e9, 4096, 8192],
  cachedBytesPerConsumerMax: [1e12, 1e12, 2 * 2 ** 20, 3 * 2 ** 20],
  endToEndP50Ms: [1e9, 1e9, 4, 6],
  endToEndP99Ms: [1e9, 1e9, 30, 20],
  flowControlCountPerSec: [1e9, 1e9, 1, 2],
  flowControlSizePerSec: [1e9, 1e9, 0, 1],
  flowControlSpanPerSec: [1e9, 1e9, 0, 0],
  flowControlPausedPerSec: [1e9, 1e9, 3, 1],
});
// Two instances: after warm-up, c1 holds 100 messages of 1 MiB bodies then 10 of 3 MiB; c2 400 of 0.5 MiB.
S.perConsumer.push(
  { clientId: "c1", cachedBytes: [1e12, 1e12, 2 ** 20, 3 * 2 ** 20], cached: [1e9, 1e9, 100, 10], queues: [], poolBusy: [] },
  { clientId: "c2", cachedBytes: [0, 0, 2 ** 19, 0], cached: [0, 0, 400, 0], queues: [], poolBusy: [] },
);

describe("SWEEP_METRICS", () => {
  it("lists every metric once, each with a unit, a direction and a description", () => {
    expect(new Set(SWEEP_METRIC_KEYS).size).toBe(SWEEP_METRICS.length);
    for (const m of SWEEP_METRICS) {
      expect(m.unit).not.toBe("");
      expect(m.description).not.toBe("");
    }
    expect(SWEEP_METRICS.filter((m) => m.better === "higher").map((m) => m.key)).toEqual(["throughput.consumedPerSec.mean", "throughput.consumedPerSec.min"]);
  });

  it("no key is a prefix of another, so the means nest into one summary-like object", () => {
    for (const a of SWEEP_METRIC_KEYS) for (const b of SWEEP_METRIC_KEYS) expect(b.startsWith(`${a}.`)).toBe(false);
  });
});

describe("sweepMetrics", () => {
  it("takes steady-state figures from the samples strictly after the warm-up, counts from the summary", () => {
    const m = sweepMetrics(summary, S, 2_000_000);
    expect(m).toEqual({
      "throughput.consumedPerSec.mean": 200,
      "throughput.consumedPerSec.min": 100,
      "lag.committed.mean": 30,
      "lag.committed.max": 40,
      "lag.unpulled.max": 9,
      "cache.countPerQueueMax": 12,
      "cache.bytesPerQueueMax": 8192,
      "cache.bytesPerConsumerMax": 3 * 2 ** 20,
      memoryPerConsumerMiB: 3,
      // The largest instance-sample of cached × 2 360 B + bodies after warm-up: c1 at 4 s,
      // 10 × 2 360 + 3·2^20 = 3 169 328 B (c1 at 3 s: 100 × 2 360 + 2^20 = 1 284 576; c2 at 3 s:
      // 400 × 2 360 + 2^19 = 1 468 288 — more messages, yet less heap than c1's larger bodies).
      heapEstimateMiB: (10 * 2360 + 3 * 2 ** 20) / 2 ** 20,
      "latency.endToEnd.p99Ms": 30, // the worst sample's p99
      "latency.endToEnd.p50Ms": 5,
      "flowControl.perSec": 4, // (1+0+0+3 + 2+1+0+1) / 2
      "messages.lost": 3,
      "messages.duplicates": 7,
    });
    expect(Object.keys(m)).toEqual(SWEEP_METRIC_KEYS);
  });

  it("a zero warm-up uses every sample", () => {
    expect(sweepMetrics(summary, S, 0)["throughput.consumedPerSec.mean"]).toBe((0 + 99_999 + 100 + 300) / 4);
  });

  it("compares sample times in whole µs (tSec 1.005 is 1 005 000 µs, not 1 004 999.99…)", () => {
    const s = series([1.005, 2.01], { consumedPerSec: [1, 3] });
    expect(sweepMetrics(summary, s, 1_005_000)["throughput.consumedPerSec.mean"]).toBe(3);
    expect(sweepMetrics(summary, s, 1_004_999)["throughput.consumedPerSec.mean"]).toBe(2);
  });

  it("latency uses only samples in which something was consumed, and is NaN when nothing was", () => {
    const s = series([1, 2, 3], { consumedPerSec: [5, 0, 5], endToEndP50Ms: [2, 0, 4], endToEndP99Ms: [9, 0, 7] });
    const m = sweepMetrics(summary, s, 0);
    expect(m["latency.endToEnd.p50Ms"]).toBe(3);
    expect(m["latency.endToEnd.p99Ms"]).toBe(9);
    const idle = sweepMetrics(summary, series([1, 2], {}), 0);
    expect(idle["latency.endToEnd.p50Ms"]).toBeNaN();
    expect(idle["latency.endToEnd.p99Ms"]).toBeNaN();
    expect(idle["throughput.consumedPerSec.mean"]).toBe(0);
  });

  it("a warm-up as long as the run or longer is an error that says so", () => {
    const e = (() => {
      try {
        sweepMetrics(summary, S, 4_000_000);
      } catch (error) {
        return error;
      }
    })();
    expect(e).toBeInstanceOf(SweepInputError);
    expect((e as Error).message).toBe("--warmup: 4s leaves no sample to measure: the run's last sample is at 4s; make the warm-up shorter than the run");
    expect(() => sweepMetrics(summary, S, 60_000_000)).toThrow(/no sample to measure/);
    expect(() => sweepMetrics(summary, S, -1)).toThrow(/must be 0 or more/);
  });
});

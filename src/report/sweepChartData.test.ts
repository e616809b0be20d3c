import { describe, expect, it } from "vitest";
import type { SweepResult } from "../sweep/types.ts";
import { buildSweepChartData } from "./sweepChartData.ts";
import { sweepChartRuntime } from "./sweepChartRuntime.ts";
import { isGeometricRange, requirementThreshold } from "./sweepLabels.ts";
import { fakeSweep1d, fakeSweep2d, fakeSweepCategorical } from "./sweepTestData.ts";

const view = { interactive: false, fontFamily: "DejaVu Sans" };

describe("buildSweepChartData", () => {
  it("places a geometric range on a log axis and an arithmetic one on a linear axis", () => {
    expect(buildSweepChartData(fakeSweep1d()).x).toMatchObject({ numeric: true, log: true, positions: [50, 100, 200, 500, 1000, 2000] });
    expect(isGeometricRange([100, 200, 300, 2000])).toBe(false);
    expect(isGeometricRange([1, 2, 3])).toBe(false);
    expect(isGeometricRange([0, 100, 2000])).toBe(false);
    expect(isGeometricRange([10, 50, 300])).toBe(true);
  });

  it("places text values by position", () => {
    const data = buildSweepChartData(fakeSweepCategorical());
    expect(data.x).toMatchObject({ numeric: false, log: false, labels: ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"], positions: [0, 1, 2] });
    expect(data.points.map((p) => p.x)).toEqual([0, 1, 2]);
  });

  it("finds the recommended point by grid index even when earlier points are missing", () => {
    const full = fakeSweep1d();
    const partial: SweepResult = { ...full, points: full.points.slice(2) };
    const data = buildSweepChartData(partial);
    expect(data.points[data.recommended!]!.paramsText).toBe("pullThresholdForQueue = 500");
    expect(data.points[data.runnerUp!]!.paramsText).toBe("pullThresholdForQueue = 1000");
  });

  it("derives memory per consumer from cached bytes when the sweep did not record it", () => {
    const full = fakeSweep1d();
    const points = full.points.map((p) => {
      const { memoryPerConsumerMiB: _, ...stats } = p.stats;
      return { ...p, stats };
    });
    const data = buildSweepChartData({ ...full, points });
    const memory = data.metrics.find((m) => m.key === "memoryPerConsumerMiB")!;
    expect(memory.stats[3]!.mean).toBeCloseTo(full.points[3]!.stats.memoryPerConsumerMiB!.mean, 9);
    const keys = data.metrics.map((m) => m.key);
    expect(keys.indexOf("memoryPerConsumerMiB")).toBe(keys.indexOf("cache.bytesPerConsumerMax") + 1);
    expect(data.chartMetrics).toContain("memoryPerConsumerMiB");
  });

  it("turns simple requirements into threshold lines in the metric's units", () => {
    expect(requirementThreshold("latency.endToEnd.p99Ms < 2s")).toMatchObject({ metric: "latency.endToEnd.p99Ms", op: "<", value: 2000 });
    expect(requirementThreshold("cache.bytesPerConsumerMax <= 64MiB")!.value).toBe(64 * 1024 * 1024);
    expect(requirementThreshold("messages.lost == 0 and messages.duplicates == 0")).toBeNull();
    const result = fakeSweep1d();
    const best = Math.max(...result.points.map((p) => p.stats["throughput.consumedPerSec.mean"]!.mean));
    expect(requirementThreshold("throughput.consumedPerSec.mean >= 0.95 * best", result.points)!.value).toBeCloseTo(0.95 * best, 9);
    // Lower is better for latency, so its best is the smallest mean.
    const fastest = Math.min(...result.points.map((p) => p.stats["latency.endToEnd.p99Ms"]!.mean));
    expect(requirementThreshold("latency.endToEnd.p99Ms <= best * 2", result.points)!.value).toBeCloseTo(2 * fastest, 9);
    // The fake sweep's starved points reach p99s past 10 s, so the chart is in seconds: 2s is 2.
    const p99 = buildSweepChartData(fakeSweep1d()).metrics.find((m) => m.key === "latency.endToEnd.p99Ms")!;
    expect(p99.unit).toBe("s");
    expect(p99.thresholds).toEqual([{ value: 2, text: "requirement: latency.endToEnd.p99Ms < 2s" }]);
  });

  it("shows a latency in seconds once its largest mean reaches 10 000 ms, in ms below", () => {
    const full = fakeSweep1d();
    const p99Of = (p: SweepResult["points"][number]) => p.stats["latency.endToEnd.p99Ms"]!;
    // The points that keep up (threshold ≥ 500) all stay below 10 s: milliseconds.
    const fast = full.points.filter((p) => p99Of(p).mean < 10_000);
    expect(fast.length).toBeGreaterThan(1);
    expect(buildSweepChartData({ ...full, points: fast }).metrics.find((m) => m.key === "latency.endToEnd.p99Ms")!.unit).toBe("ms");
    // All of them: the starved ones pass 10 s, so every figure is divided by 1 000.
    const slow = full.points.find((p) => p99Of(p).mean >= 10_000)!;
    const p99 = buildSweepChartData(full).metrics.find((m) => m.key === "latency.endToEnd.p99Ms")!;
    const at = full.points.indexOf(slow);
    expect(p99.unit).toBe("s");
    expect(p99.stats[at]!.mean).toBeCloseTo(p99Of(slow).mean / 1000, 9);
    expect(p99.stats[at]!.ci95).toBeCloseTo(p99Of(slow).ci95 / 1000, 9);
  });

  it("marks a metric constant when its means differ by no more than 1 % or the widest interval, and the heatmap says so", () => {
    const data = buildSweepChartData(fakeSweep2d());
    const lost = data.metrics.find((m) => m.key === "messages.lost")!; // 0 everywhere
    const memory = data.metrics.find((m) => m.key === "memoryPerConsumerMiB")!; // grows with the threshold
    expect(lost.constant).toBe(true);
    expect(memory.constant).toBe(false);
    const config = sweepChartRuntime().rmqSweepChartConfig(data, "messages.lost", view);
    const cells = config.data.datasets.find((d) => (d as { rmqKey?: string }).rmqKey === "cells") as unknown as { label: string; rmqHeat: { constant: boolean } };
    expect(cells.rmqHeat.constant).toBe(true);
    expect(cells.label).toMatch(/^constant: does not vary across the grid/);
    const varying = sweepChartRuntime().rmqSweepChartConfig(data, "memoryPerConsumerMiB", view);
    expect((varying.data.datasets.find((d) => (d as { rmqKey?: string }).rmqKey === "cells") as unknown as { label: string }).label).toMatch(/^colour: mean \(MiB\)/);
  });

  it("charts the heap estimate next to memory per consumer", () => {
    const data = buildSweepChartData(fakeSweep1d());
    expect(data.chartMetrics.slice(0, 3)).toEqual(["throughput.consumedPerSec.mean", "memoryPerConsumerMiB", "heapEstimateMiB"]);
    expect(data.metrics.find((m) => m.key === "heapEstimateMiB")).toMatchObject({ label: "estimated heap per consumer", unit: "MiB" });
  });
});

describe("sweep chart runtime", () => {
  it("formats a mean with its interval to the interval's first significant digit", () => {
    const rt = sweepChartRuntime();
    expect(rt.rmqSweepMeanCi({ mean: 3997.014, ci95: 86.3, n: 3, min: 0, max: 0 }, "msg/s")).toBe("3,997 ± 86 msg/s");
    expect(rt.rmqSweepMeanCi({ mean: 12.7, ci95: 0.04, n: 3, min: 0, max: 0 }, "MiB")).toBe("12.70 ± 0.04 MiB");
    expect(rt.rmqSweepMeanCi({ mean: 0, ci95: 0, n: 3, min: 0, max: 0 }, "")).toBe("0 ± 0");
    expect(rt.rmqSweepMeanCi({ mean: 6.625, ci95: 0, n: 1, min: 0, max: 0 }, "MiB")).toBe("6.63 MiB");
    expect(rt.rmqSweepMeanCi(null, "MiB")).toBe("–");
    expect(rt.rmqSweepFormat(-0.0001)).toBe("0");
  });

  it("marks the recommended point with a ring and the runner-up with a diamond, infeasible points hollow", () => {
    const config = sweepChartRuntime().rmqSweepChartConfig(buildSweepChartData(fakeSweep1d()), "throughput.consumedPerSec.mean", view);
    const byKey = new Map(config.data.datasets.map((d) => [(d as { rmqKey?: string }).rmqKey, d]));
    expect(byKey.get("recommended")).toMatchObject({ pointStyle: "circle", data: [{ x: 500 }] });
    expect(byKey.get("runner-up")).toMatchObject({ pointStyle: "rectRot", data: [{ x: 1000 }] });
    expect((byKey.get("mean") as { pointBackgroundColor: string[] }).pointBackgroundColor).toEqual(
      ["#ffffff", "#ffffff", "#ffffff", "#1f77b4", "#1f77b4", "#ffffff"],
    );
    expect(config.options!.scales!.x!.type).toBe("logarithmic");
  });

  it("lays a 2-D sweep out as a grid of cells, one per point", () => {
    const config = sweepChartRuntime().rmqSweepChartConfig(buildSweepChartData(fakeSweep2d()), "memoryPerConsumerMiB", view);
    const cells = config.data.datasets.find((d) => (d as { rmqKey?: string }).rmqKey === "cells")!;
    expect(cells.data).toHaveLength(16);
    expect(cells.data[5]).toMatchObject({ x: 1, y: 1 });
    expect(config.options!.scales!.x).toMatchObject({ min: -0.5, max: 3.5 });
  });
});

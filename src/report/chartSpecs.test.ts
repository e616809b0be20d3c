import { describe, expect, it } from "vitest";
import type { RunResult } from "../model/simulate.ts";
import { bucketMax, buildChartData, CHART_POINTS_MAX, queueColor } from "./chartSpecs.ts";
import { simulateBacklog } from "./testScenario.ts";

describe("buildChartData", () => {
  const result = simulateBacklog();

  it("builds the five charts with one series per queue and the first group's threshold", () => {
    const data = buildChartData(result);
    expect(data.charts.map((c) => c.id)).toEqual(["throughput", "lag", "cache", "flow-control", "latency"]);
    const cache = data.charts.find((c) => c.id === "cache")!;
    expect(cache.series.filter((s) => s.queue !== undefined).map((s) => s.queue)).toEqual(result.series.perQueue.map((q) => q.label));
    expect(cache.lines).toEqual([expect.objectContaining({ value: 200, axis: "y" })]);
    expect(data.markers.at(-1)).toEqual({ tSec: 30, kind: "fault", label: "broker-a </script> partitioned" });
  });

  it("latency zeros (nothing consumed in an interval) become gaps on the log axis", () => {
    const zeroed: RunResult = {
      ...result,
      series: { ...result.series, columns: { ...result.series.columns, endToEndP50Ms: result.series.columns.endToEndP50Ms.map(() => 0) } },
    };
    const latency = buildChartData(zeroed).charts.find((c) => c.id === "latency")!;
    expect(latency.series[0]!.values.every((v) => v === null)).toBe(true);
  });

  it("a run longer than CHART_POINTS_MAX samples is bucketed, keeping each bucket's peak", () => {
    const n = CHART_POINTS_MAX * 2 + 1;
    const columns = Object.fromEntries(Object.keys(result.series.columns).map((k) => [k, new Array<number>(n).fill(1)]));
    columns.tSec = Array.from({ length: n }, (_, i) => i + 1);
    columns.lagCommitted![777] = 99;
    const long = { ...result, series: { columns, perQueue: [], perConsumer: [] } } as unknown as RunResult;
    const data = buildChartData(long);
    expect(data.tSec.length).toBe(Math.ceil(n / 3));
    expect(data.tSec.at(-1)).toBe(n);
    const lag = data.charts.find((c) => c.id === "lag")!.series[0]!.values;
    expect(Math.max(...(lag as number[]))).toBe(99);
    expect(data.subtitle).toContain("max over 3 samples");
  });
});

describe("bucketMax / queueColor", () => {
  it("bucketMax keeps the largest value of each run", () => {
    expect(bucketMax([1, 5, 2, 0, 7], 2)).toEqual([5, 2, 7]);
    expect(bucketMax([1, 2], 1)).toEqual([1, 2]);
  });

  it("queueColor gives distinct hex colours for many queues", () => {
    const colours = Array.from({ length: 64 }, (_, i) => queueColor(i));
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
    expect(new Set(colours).size).toBe(64);
  });
});

import { describe, expect, it } from "vitest";
import type { RunResult } from "../run/simulate.ts";
import { chartRuntime, type ChartView } from "./chartRuntime.ts";
import { bucketMax, buildChartData, CHART_POINTS_MAX, consumerColor, queueColor } from "./chartSpecs.ts";
import { simulateBacklog } from "./testScenario.ts";

describe("buildChartData", () => {
  const result = simulateBacklog();

  it("builds the six charts with one series per queue and the first group's threshold", () => {
    const data = buildChartData(result);
    expect(data.charts.map((c) => c.id)).toEqual(["throughput", "lag", "cache", "flow-control", "latency", "consumers"]);
    const cache = data.charts.find((c) => c.id === "cache")!;
    expect(cache.series.filter((s) => s.queue !== undefined).map((s) => s.queue)).toEqual(result.series.perQueue.map((q) => q.label));
    expect(cache.lines).toEqual([expect.objectContaining({ value: 200, axis: "y" })]);
    expect(data.markers.at(-1)).toEqual({ tSec: 30, kind: "fault", label: "broker-a </script> partitioned" });
  });

  it("the consumers chart has three stacked panels with one series per consumer in each, in the consumer's colour", () => {
    const consumers = buildChartData(result).charts.find((c) => c.id === "consumers")!;
    expect(consumers.axes.map((a) => [a.id, a.title, a.panelWeight])).toEqual([
      ["y", "cached (MiB)", 2], ["y2", "queues held (retry incl.)", 1], ["y3", "pool busy (%)", 1],
    ]);
    const ids = result.series.perConsumer.map((c) => c.clientId);
    for (const axisId of ["y", "y2", "y3"] as const) {
      const series = consumers.series.filter((s) => s.axis === axisId);
      expect(series.map((s) => s.consumer)).toEqual(ids);
      expect(series.map((s) => s.color)).toEqual(ids.map((_, i) => consumerColor(i)));
    }
    const first = result.series.perConsumer[0]!;
    const threads = result.summary.perConsumer[0]!.consumeThreads;
    const at = first.poolBusy.findIndex((b) => b > 0);
    expect(at).toBeGreaterThanOrEqual(0);
    const pool = consumers.series.find((s) => s.axis === "y3" && s.consumer === first.clientId)!;
    expect(pool.values[at]).toBe(Math.round((first.poolBusy[at]! / threads) * 1000) / 10);
    const cached = consumers.series.find((s) => s.axis === "y" && s.consumer === first.clientId)!;
    expect(cached.values).toEqual(first.cachedBytes.map((b) => Math.round((b / 1048576) * 1000) / 1000));
    expect(consumers.series.find((s) => s.axis === "y2")!.stepped).toBe(true);
  });

  it("a consumer's panels share one legend entry; past the legend limit the rest become '… N more consumers'", () => {
    const data = buildChartData(result);
    const consumers = data.charts.find((c) => c.id === "consumers")!;
    const view: ChartView = { fromSec: 0, toSec: 40, queue: null, interactive: false, fontFamily: "sans-serif", legendQueuesMax: 8 };
    const legendLabels = (legendQueuesMax: number) => chartRuntime().rmqChartConfig(data, consumers, { ...view, legendQueuesMax }).data.datasets
      .filter((d) => (d as { rmqLegend?: boolean }).rmqLegend !== false && !(d as { rmqMarkerKind?: string }).rmqMarkerKind)
      .map((d) => d.label);
    const ids = result.series.perConsumer.map((c) => c.clientId);
    expect(legendLabels(8)).toEqual(ids);
    expect(legendLabels(1)).toEqual([ids[0], `… ${ids.length - 1} more consumers (see report.html)`]);
    const cache = data.charts.find((c) => c.id === "cache")!;
    const cacheLegend = chartRuntime().rmqChartConfig(data, cache, { ...view, legendQueuesMax: 2 }).data.datasets
      .filter((d) => (d as { rmqLegend?: boolean }).rmqLegend !== false && !(d as { rmqMarkerKind?: string }).rmqMarkerKind)
      .map((d) => d.label);
    expect(cacheLegend).toEqual(["TopicTest@broker-a#0", "TopicTest@broker-a#1", "… 2 more queues (see report.html)",
      "cached bytes, all queues (MiB, right axis)", "pullThresholdForQueue = 200"]);
    const config = chartRuntime().rmqChartConfig(data, consumers, view);
    const groups = config.data.datasets.map((d) => (d as { rmqGroup?: string }).rmqGroup).filter((g) => g !== undefined);
    expect(groups).toHaveLength(3 * ids.length);
    // The first panel's axis sits on top: chart.js stacks the heaviest left-hand box first.
    const scales = config.options!.scales as Record<string, { weight?: number; stack?: string }>;
    expect(scales.y!.weight).toBeGreaterThan(scales.y2!.weight!);
    expect(scales.y2!.weight).toBeGreaterThan(scales.y3!.weight!);
    expect(Object.keys(scales).filter((k) => scales[k]!.stack === "panels")).toEqual(["y", "rmqGap0", "y2", "rmqGap1", "y3"]);
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

// The report's broker-node parts, for a run with replicas: the "nodes" chart (state panel + pulls
// served), its runtime configuration (state names on the axis and in tooltips, one legend entry per
// node), the CSV's served columns and the HTML tables. A hand-made result: the 40 s backlog run with
// two nodes grafted on (testScenario.ts), so every expected value is read off the graft.
import { describe, expect, it } from "vitest";
import { chartRuntime, type ChartView } from "./chartRuntime.ts";
import { buildChartData, consumerColor } from "./chartSpecs.ts";
import { renderTimeSeriesCsv } from "./csv.ts";
import { renderSummaryTables } from "./htmlSummary.ts";
import { simulateBacklog, simulateBacklogWithNodes } from "./testScenario.ts";

const base = simulateBacklog();
const samples = base.series.columns.tSec.length; // 40: one a second

const result = simulateBacklogWithNodes(base);
const [servedA, servedS1] = result.series.perNode!.map((n) => n.servedPerSec);

describe("the nodes chart", () => {
  const data = buildChartData(result);
  const chart = data.charts.find((c) => c.id === "nodes")!;

  it("comes after the six charts only for a run with broker nodes", () => {
    expect(data.charts.map((c) => c.id)).toEqual(["throughput", "lag", "cache", "flow-control", "latency", "consumers", "nodes"]);
    expect(buildChartData(base).charts.map((c) => c.id)).not.toContain("nodes");
  });

  it("draws each node's state as a step line (down 0, slave 1, master 2; the two nodes 0.03 either side) over its pulls served", () => {
    expect(chart.axes.map((a) => [a.id, a.panelWeight, a.categories])).toEqual([["y", 1, ["down", "slave", "master"]], ["y2", 2, undefined]]);
    const state = chart.series.filter((s) => s.axis === "y");
    expect(state.map((s) => [s.node, s.stepped, s.color])).toEqual([["broker-a", true, consumerColor(0)], ["broker-a-s1", true, consumerColor(1)]]);
    // Points at 1 … 40 s: master up to 19 s, down from 20 s (its change at 20 000 ms) to 29 s, master from 30 s.
    const a = state[0]!.values;
    expect([a[18], a[19], a[28], a[29], a[39]]).toEqual([1.97, -0.03, -0.03, 1.97, 1.97]);
    expect(state[1]!.values.every((v) => v === 1.03)).toBe(true);
    const served = chart.series.filter((s) => s.axis === "y2");
    expect(served.map((s) => s.values)).toEqual([servedA, servedS1]);
    expect(served.map((s) => s.node)).toEqual(["broker-a", "broker-a-s1"]);
  });

  it("the runtime names the states on the axis and in tooltips, and gives a node's two lines one legend entry", () => {
    const view: ChartView = { fromSec: 0, toSec: samples, queue: null, interactive: true, fontFamily: "sans-serif", legendQueuesMax: 8 };
    const config = chartRuntime().rmqChartConfig(data, chart, view);
    const y = (config.options!.scales as Record<string, { min: number; max: number; ticks: { callback: (v: number) => string } }>).y!;
    expect([y.min, y.max]).toEqual([-0.5, 2.5]);
    expect([0, 1, 2, 0.5].map((v) => y.ticks.callback(v))).toEqual(["down", "slave", "master", "slave"]);
    const label = config.options!.plugins!.tooltip!.callbacks!.label as unknown as (item: object) => string;
    const [stateA, , servedA2] = config.data.datasets;
    expect(label({ dataset: stateA, parsed: { y: -0.03 }, formattedValue: "-0.03" })).toBe("broker-a: down");
    expect(label({ dataset: servedA2, parsed: { y: 10 }, formattedValue: "10" })).toBe("broker-a: 10");
    const legend = config.data.datasets.filter((d) => (d as { rmqLegend?: boolean }).rmqLegend !== false && !(d as { rmqMarkerKind?: string }).rmqMarkerKind);
    expect(legend.map((d) => d.label)).toEqual(["broker-a", "broker-a-s1"]);
    expect(config.data.datasets.map((d) => (d as { rmqGroup?: string }).rmqGroup).filter((g) => g !== undefined)).toEqual([
      "node:broker-a", "node:broker-a-s1", "node:broker-a", "node:broker-a-s1",
    ]);
  });

  it("a chart without state axes keeps chart.js's own tooltip label", () => {
    const view: ChartView = { fromSec: 0, toSec: samples, queue: null, interactive: true, fontFamily: "sans-serif", legendQueuesMax: 8 };
    const lag = chartRuntime().rmqChartConfig(data, data.charts.find((c) => c.id === "lag")!, view);
    expect(lag.options!.plugins!.tooltip!.callbacks!.label).toBeUndefined();
  });
});

describe("timeseries.csv and report.html tables with broker nodes", () => {
  it("the CSV ends with one servedPerSec column per node", () => {
    const [header, first] = renderTimeSeriesCsv(result.series).split("\n");
    expect(header!.split(",").slice(-2)).toEqual(["servedPerSec:broker-a", "servedPerSec:broker-a-s1"]);
    expect(first!.split(",").slice(-2)).toEqual(["10", "0"]);
    expect(renderTimeSeriesCsv(base.series)).not.toContain("servedPerSec");
  });

  it("report.html lists each node's roles over time and counts, and the duplicates by cause per group", () => {
    const html = renderSummaryTables(result);
    expect(html).toContain("<caption>Broker nodes (groups with replicas)</caption>");
    expect(html).toContain('<tr><td>broker-a</td><td>broker-a</td><td>master→down@20s→master@30s</td><td class="num">300</td><td class="num">5</td><td class="num">3</td><td class="num">0</td></tr>');
    expect(html).toContain('<tr><td>broker-a-s1</td><td>broker-a</td><td>slave</td><td class="num">100</td><td class="num">5</td><td class="num">3</td><td class="num">7</td></tr>');
    expect(html).toContain('<tr><td>G1</td><td class="num">5</td><td class="num">4</td><td class="num">0</td><td class="num">1</td><td class="num">0</td></tr>');
    const plain = renderSummaryTables(base);
    expect(plain).not.toContain("Broker nodes");
    expect(plain).not.toContain("Duplicates by cause");
  });
});

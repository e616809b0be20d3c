// The parts of issue 17's "report that opens with the verdict" that are plain markup or data: the
// banner, thresholds placed on charts, fault labels with client ids, the effective configuration, and
// the throughput chart without the initial backlog spike.
import { describe, expect, it } from "vitest";
import type { Summary } from "../metrics/summary.ts";
import { simulate } from "../run/simulate.ts";
import type { ExpectResult } from "../scenario/expect.ts";
import type { ClauseDetail } from "../scenario/expectDetail.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { EXPECT_FAILED_COLOR, EXPECT_OK_COLOR, expectationLines } from "./chartExpectations.ts";
import { buildChartData } from "./chartSpecs.ts";
import { faultLabelsWithClients, withClients } from "./faultClients.ts";
import { renderConfig } from "./htmlConfig.ts";
import { renderVerdict } from "./htmlVerdict.ts";

const MIB = 1024 * 1024;

function clause(text: string, series: string | null, threshold: number, ok: boolean, extra: Partial<ClauseDetail> = {}): ClauseDetail {
  return { text, ok, op: "<", threshold, actual: threshold * 2, unit: null, series, atUs: null, windowUs: null, where: null, ...extra };
}

function result(expression: string, clauses: ClauseDetail[]): ExpectResult {
  return { expression, ok: clauses.every((c) => c.ok), actual: "", clauses };
}

describe("expectationLines", () => {
  it("puts each clause's threshold on the chart and axis of its series, in the axis's unit; summary figures get none", () => {
    const lines = expectationLines([
      result("max(lag.committed) < 1000", [clause("max(lag.committed) < 1000", "lag.committed", 1000, false)]),
      result("max(cache.bytes) < 64MiB", [clause("max(cache.bytes) < 64MiB", "cache.bytes", 64 * MIB, true)]),
      result("first(flowControl.count > 0) > 10s", [clause("first(flowControl.count > 0) > 10s", "flowControl.count", 10_000, false, { unit: "ms" })]),
      result("messages.lost == 0", [clause("messages.lost == 0", null, 0, true)]),
    ]);
    expect([...lines.keys()].sort()).toEqual(["cache", "flow-control", "lag"]);
    expect(lines.get("lag")).toEqual([{ key: "expect:0:0", label: "FAILED: max(lag.committed) < 1000", axis: "y", value: 1000, color: EXPECT_FAILED_COLOR }]);
    // cachedBytes is drawn in MiB on the cache chart's right axis.
    expect(lines.get("cache")).toEqual([{ key: "expect:1:0", label: "expect: max(cache.bytes) < 64MiB", axis: "y2", value: 64, color: EXPECT_OK_COLOR }]);
    // A time threshold (ms) is a vertical line at that second.
    expect(lines.get("flow-control")![0]).toMatchObject({ vertical: true, value: 10 });
  });
});

describe("renderVerdict", () => {
  const base = { complete: true, stopReason: "", stopDetail: "", simulatedMs: 60_000 } as unknown as Summary;

  it("says PASS with the count when every expectation held, and that there is no verdict without any", () => {
    const ok = result("messages.lost == 0", [clause("messages.lost == 0", null, 0, true)]);
    expect(renderVerdict({ ...base, expectations: [ok, ok] }, 60)).toContain("<strong>PASS</strong> — all 2 expectation(s) held.");
    expect(renderVerdict({ ...base, expectations: [] }, 60)).toContain("<strong>No expectations</strong>");
  });

  it("says FAIL and lists only the failed ones with actual, threshold, time and where, linked to the chart's window around the deciding sample", () => {
    const failed = result("max(lag.committed, 10s..) < 1000", [clause("max(lag.committed, 10s..) < 1000", "lag.committed", 1000, false,
      { atUs: 42_000_000, windowUs: [10_000_000, 60_000_000], where: "queue T@b#1, 3 cached" })]);
    const held = result("messages.lost == 0", [clause("messages.lost == 0", null, 0, true)]);
    const html = renderVerdict({ ...base, expectations: [held, failed] }, 60);
    expect(html).toContain("<strong>FAIL</strong> — 1 of 2 expectation(s) failed");
    expect(html).not.toContain("messages.lost");
    expect(html).toContain("actual 2,000 (needs &lt; 1,000), at 42 s, queue T@b#1, 3 cached, window 10 – 60 s");
    // The window ± a tenth of it (5 s), the sample ± 1 s highlighted.
    expect(html).toContain('data-target="chart-lag" data-from="5" data-to="60" data-hl-from="41" data-hl-to="43"');
  });
});

describe("fault labels with client ids", () => {
  it("names the instances a consumer fault targets by the client ids the Ownership table shows", () => {
    const model = normalizeScenario({
      name: "f", duration: "30s",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 10 } }],
      groups: [{ name: "G1", instances: 3, subscribe: { T: "*" } }],
      faults: [{ kind: "consumerCrash", at: "10s", target: "G1/1", mode: "vanished" }, { kind: "brokerCrash", at: "20s", target: "broker-a" }],
    });
    const labels = faultLabelsWithClients(model);
    const crash = model.faults[0]!.label;
    expect(labels.get(crash)).toBe(`${crash} (${model.groups[0]!.clientIds[1]})`);
    expect(withClients(`end ${crash}`, labels)).toBe(`end ${crash} (${model.groups[0]!.clientIds[1]})`);
    expect(labels.has(model.faults[1]!.label)).toBe(false);
  });
});

describe("report charts and configuration", () => {
  const scenario = {
    name: "backlog", duration: "5s", seed: 2,
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 2, produce: { rate: 100, backlog: 500 } }],
    groups: [{ name: "G1", instances: 1, subscribe: { T: "*" }, config: { pullThresholdForQueue: 300 } }],
  };
  const run = simulate(scenario);

  it("the throughput chart leaves the initial backlog (500 × 4 queues) out of the first sample and names it in the note", () => {
    const data = buildChartData(run);
    const chart = data.charts.find((c) => c.id === "throughput")!;
    const produced = chart.series.find((s) => s.key === "produced")!.values;
    const sampleSec = run.model.sampleEveryUs / 1e6;
    expect(produced[0]).toBeCloseTo(run.series.columns.producedPerSec[0]! - 2000 / sampleSec, 3);
    expect(produced.slice(1)).toEqual(run.series.columns.producedPerSec.slice(1));
    expect(chart.note).toBe("backlog of 2,000 messages already stored at 0 s, not drawn as production");
  });

  it("the effective configuration marks the setting the scenario changed and greys the defaults", () => {
    const html = renderConfig(run);
    expect(html).toContain('<tr><td><code>pullThresholdForQueue</code></td><td class="changed">300</td><td class="default">1,000</td></tr>');
    expect(html).toContain('<tr><td><code>pullBatchSize</code></td><td class="default" title="RocketMQ\'s default">32</td><td class="default">32</td></tr>');
    expect(html).toContain("<th>broker-a</th><th>broker-b</th>");
  });
});

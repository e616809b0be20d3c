// computeRun explains the run it simulates (issue 16): the report gets why.json and a "Why" section
// from the same simulation, and that changes nothing else — summary.json (trace hash included) is the
// one a run without the report gives, and --trace does not change the account.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { renderReport } from "../report/renderReport.ts";
import { computeRun, type RunRequest } from "./computeRun.ts";

const SCENARIO = {
  name: "slow-consumer", duration: "12s", seed: 5,
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 2000 } }],
  // 4 workers at 10 ms: 400 msg/s against 2 000 produced, so count flow control sets in within seconds.
  groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, config: { consumeThreadMin: 4, consumeThreadMax: 4 }, listener: { consumeTime: "10ms" } }],
};

async function compute(extra: Partial<RunRequest>): Promise<Map<string, Uint8Array | string>> {
  let clock = 0;
  const out = await computeRun(
    { scenario: SCENARIO, trace: false, charts: false, startedAt: "2025-01-01T00:00:00.000Z", ...extra },
    { simulate, render: renderReport, nowMs: () => (clock += 10), nodeVersion: "v20.0.0-test" },
    { shouldStop: () => false, onProgress: () => {} },
  );
  return out.files;
}

describe("computeRun: the Why account rides along the run", () => {
  it("writes why.json with the report, and summary.json is byte-identical to a run without one (and with --trace)", async () => {
    const bare = await compute({ report: false });
    const report = await compute({});
    const traced = await compute({ trace: true });
    expect(bare.has("why.json")).toBe(false);
    expect(report.get("summary.json")).toBe(bare.get("summary.json"));
    expect(traced.get("summary.json")).toBe(bare.get("summary.json"));
    const why = JSON.parse(report.get("why.json") as string) as { traceHash: string; queues: { intervals: { reason: string }[] }[] };
    expect(why.traceHash).toBe(JSON.parse(bare.get("summary.json") as string).traceHash);
    expect(why.queues.flatMap((q) => q.intervals.map((i) => i.reason))).toContain("flowControl.count");
    expect(traced.get("why.json")).toBe(report.get("why.json"));
    expect(report.get("report.html")).toContain('<h2 id="why">Why</h2>');
  });
});

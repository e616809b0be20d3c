// An expectation whose window or at(…) time holds no sample of the run is a validation error (issue
// 17), judged on the effective scenario: its duration after --duration / --set. Samples fall at
// sampleEvery, 2 × sampleEvery, … ≤ duration (a 30 s run at the default 1 s: 1 s … 30 s).
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "./normalize.ts";
import { rejection } from "./testRejection.ts";

function scenario(expect: string[], duration = "30s", sampleEvery?: string): Record<string, unknown> {
  return {
    name: "w",
    duration,
    ...(sampleEvery ? { sampleEvery } : {}),
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 10 } }],
    groups: [{ name: "G1", instances: 1, subscribe: { T: "*" } }],
    expect,
  };
}


describe("expectation windows against the run", () => {
  it("a window that starts after the run ends names the expectation, its window and the duration", () => {
    const e = rejection(scenario(["messages.lost == 0", "mean(throughput.consumed, 90s..) > 100"]));
    expect(e.path).toBe("expect.1");
    expect(e.message).toBe(
      'expect.1: "mean(throughput.consumed, 90s..) > 100": the window 90s.. of mean(throughput.consumed, …) starts after the run ends; the run lasts 30s (duration), sampled every 1s (sampleEvery)',
    );
  });

  it("the same expectation is accepted once the run is long enough", () => {
    // 90 s ≤ 100 s: samples at 90 s … 100 s lie in the window.
    expect(() => normalizeScenario(scenario(["mean(throughput.consumed, 90s..) > 100"], "100s"))).not.toThrow();
  });

  it("a window between two samples holds none", () => {
    // Samples every 1 s: 5.2 s..5.5 s falls between the 5 s and 6 s samples.
    expect(rejection(scenario(["max(lag.committed, 5.2s..5.5s) < 3"])).message).toContain("the window 5.2s..5.5s of max(lag.committed, …) holds no sample: the nearest are at 5s and 6s");
    // With sampleEvery 100ms it holds 5.2, 5.3, 5.4 and 5.5 s.
    expect(() => normalizeScenario(scenario(["max(lag.committed, 5.2s..5.5s) < 3"], "30s", "100ms"))).not.toThrow();
  });

  it("a window inside the duration but past the last sample holds none", () => {
    // 30.5 s at 1 s: the last sample is at 30 s, so 30.2s.. is empty.
    expect(rejection(scenario(["last(lag.committed, 30.2s..) < 3"], "30.5s")).message).toContain("holds no sample: the last is at 30s");
  });

  it("at(…) past the end, or before the first sample, is an error; at the end is fine", () => {
    expect(rejection(scenario(["at(lag.committed, 45s) < 10"])).message).toContain("at(lag.committed, 45s) is after the run ends; the run lasts 30s (duration)");
    expect(rejection(scenario(["at(lag.committed, 500ms) < 10"])).message).toContain("at(lag.committed, 500ms) is before the first sample, at 1s");
    expect(() => normalizeScenario(scenario(["at(lag.committed, 30s) < 10"]))).not.toThrow();
  });

  it("first(…) and never(…) windows are checked too, and so is each side of an 'and'", () => {
    expect(rejection(scenario(["first(flowControl.count > 0, 40s..) < 50s"])).message).toContain("the window 40s.. of first(flowControl.count > 0, …) starts after the run ends");
    expect(rejection(scenario(["never(flowControl.span > 0, 31s..)"])).message).toContain("the window 31s.. of never(flowControl.span > 0, …)");
    expect(rejection(scenario(["messages.lost == 0 and 10 > max(lag.committed, 1m..2m)"])).path).toBe("expect.0");
  });

  it("whole-run aggregates and summary figures are never refused", () => {
    expect(() => normalizeScenario(scenario(["max(lag.committed) < 10", "lag.committed.max < 10", "mean(throughput.consumed, ..1m) > 0"], "2s"))).not.toThrow();
  });
});

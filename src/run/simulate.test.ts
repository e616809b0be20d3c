// simulate() with a scenario's expectations: parsed by normalizeScenario, evaluated over the run's
// summary and time series. The expectation language itself is tested in src/scenario/expect.test.ts.
import { describe, expect, it } from "vitest";
import type { ScenarioInput } from "../scenario/types.ts";
import { simulate } from "./simulate.ts";

describe("expectations through simulate", () => {
  function tiny(expectations: string[]): ScenarioInput {
    return {
      name: "tiny",
      seed: 1,
      duration: "10s",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100, arrival: "uniform" } }],
      groups: [{ name: "G", subscribe: { T: "*" } }],
      expect: expectations,
    };
  }

  it("simulate evaluates every expectation into summary.expectations, in order", () => {
    // 100 msg/s from t = 0 with the first sample at 1 s: something is produced by then, and nothing
    // reaches a million per second.
    const exprs = [
      "messages.lost == 0",
      "messages.produced == 0",
      "first(throughput.produced > 0) <= 1s and max(lag.committed) >= 0",
      "first(throughput.produced > 1000000) < 10s",
    ];
    const r = simulate(tiny(exprs));
    expect(r.series.columns.tSec).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const results = r.summary.expectations;
    expect(results.map((x) => x.expression)).toEqual(exprs);
    expect(results.map((x) => x.ok)).toEqual([true, false, true, false]);
    expect(results[0]!.actual).toBe("messages.lost = 0");
    expect(results[1]!.actual).toBe(`messages.produced = ${r.summary.messages.produced}`);
    expect(r.summary.messages.produced).toBeGreaterThan(0);
    expect(results[2]!.actual).toMatch(/^first\(throughput\.produced > 0\) = 1s, max\(lag\.committed\) = \d+/);
    expect(results[3]!.actual).toBe("first(throughput.produced > 1000000) = never");
  });
});

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

describe("simulate: stopping early", () => {
  const scenario: ScenarioInput = {
    name: "busy",
    seed: 3,
    duration: "20s",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 5000 } }],
    groups: [{ name: "G", instances: 2, subscribe: { T: "*" } }],
  };
  const full = simulate(scenario);

  it("onProgress returning a RunStop stops after that slice with its reason and detail, complete: false", () => {
    const r = simulate(scenario, {
      onProgress: (t) => (t >= 4_000_000 ? { reason: "maxMemory", detail: `over the limit at ${t / 1e6} s` } : true),
    });
    expect(r.summary).toMatchObject({ complete: false, stopReason: "maxMemory", stopDetail: "over the limit at 4 s", simulatedMs: 4000 });
    expect(r.summary.events).toBeLessThan(full.summary.events);
    // A complete run's summary has no stopDetail key at all (stored baselines keep their shape).
    expect(full.summary.complete).toBe(true);
    expect("stopDetail" in full.summary).toBe(false);
  });

  it("onProgress returning false is an interruption", () => {
    const r = simulate(scenario, { onProgress: (t) => t < 2_000_000 });
    expect(r.summary).toMatchObject({ complete: false, stopReason: "interrupted", stopDetail: "interrupted at 2 s of virtual time" });
  });

  it("slices end every progressEveryEvents events and every progressEveryMessages produced, and change nothing", () => {
    const calls: { t: number; events: number }[] = [];
    const r = simulate(scenario, {
      progressEveryEvents: 500,
      progressEveryMessages: 1_000, // 5000 msg/s: a slice of at most 200 ms
      onProgress: (t, _total, events) => void calls.push({ t, events }),
    });
    expect(r.traceHash).toBe(full.traceHash);
    expect(JSON.stringify(r.summary)).toBe(JSON.stringify(full.summary));
    let prev = { t: 0, events: 0 };
    let midInstant = 0;
    for (const c of calls) {
      expect(c.events - prev.events).toBeLessThanOrEqual(500);
      expect(c.t - prev.t).toBeLessThanOrEqual(200_000);
      if (c.t % 200_000 !== 0) midInstant++;
      prev = c;
    }
    expect(calls.at(-1)).toEqual({ t: 20_000_000, events: full.summary.events });
    // Some slices ended on the event budget, between two slice times.
    expect(midInstant).toBeGreaterThan(0);
  });

  it("maxEvents stops at exactly that many events with stopReason maxEvents and the limit in the detail", () => {
    const r = simulate(scenario, { maxEvents: 12_345 });
    expect(r.summary.events).toBe(12_345);
    expect(r.summary.complete).toBe(false);
    expect(r.summary.stopReason).toBe("maxEvents");
    expect(r.summary.stopDetail).toMatch(/^reached the limit of 12345 events \(maxEvents\) at [\d.]+ s of virtual time$/);
    expect(r.summary.simulatedMs).toBeLessThan(20_000);
  });

  it("more pending events than the scheduler holds stop the run cleanly with stopReason pendingEvents, naming the kind", () => {
    const r = simulate(scenario, {
      configure: (cl) => {
        const sched = cl.sched;
        const idle = sched.defineKind("idleWakeup", () => {});
        // A runaway component: every millisecond from 1 s on, 200 000 wake-ups an hour ahead.
        const storm = sched.defineKind("runawayTimer", () => {
          for (let i = 0; i < 200_000; i++) sched.scheduleIn(3_600_000_000, idle);
          sched.scheduleIn(1_000, storm);
        });
        sched.scheduleAt(1_000_000, storm);
      },
    });
    expect(r.summary.complete).toBe(false);
    expect(r.summary.stopReason).toBe("pendingEvents");
    expect(r.summary.stopDetail).toMatch(/^more than 3 932 160 pending events at 1\.019 s of virtual time: idleWakeup 4 000 000, /);
    expect(r.summary.simulatedMs).toBe(1019);
    // The partial report is consistent: the end-of-run invariant and conservation checks passed.
    expect(r.summary.messages.produced).toBeGreaterThan(0);
  });
});

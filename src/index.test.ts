// The programmatic API (src/index.ts), as a service's test suite uses it: load a shipped scenario,
// override a setting, run it briefly, assert on the summary. Runs are kept to seconds of virtual time.
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import { simulate as simulateModel } from "./run/simulate.ts";
import {
  check,
  explain,
  InputError,
  loadScenario,
  simulate,
  sweep,
  withOptions,
  type CheckResult,
  type Explanation,
  type Scenario,
  type Simulation,
  type Summary,
  type SweepResult,
} from "./index.ts";

const SCENARIOS = join(import.meta.dirname, "..", "scenarios");
// count-flow-control: 2 000 msg/s into 4 queues, one instance consuming 800 msg/s, pullBatchSize 32.
// Its expectations look at 10 s and later, so a shortened run lasts at least 12 s (or drops them).
const FLOW = join(SCENARIOS, "count-flow-control.json");

describe("the API's types", () => {
  it("exports typed functions a service's suite can call", () => {
    expectTypeOf(loadScenario).returns.toEqualTypeOf<Scenario>();
    expectTypeOf(simulate).returns.toEqualTypeOf<Simulation>();
    expectTypeOf(check).returns.toEqualTypeOf<CheckResult>();
    expectTypeOf(explain).returns.toEqualTypeOf<Explanation>();
    expectTypeOf(sweep).returns.toEqualTypeOf<SweepResult>();
    expectTypeOf<Simulation["summary"]>().toEqualTypeOf<Summary>();
    expectTypeOf<Summary["cache"]["countPerQueueMax"]>().toBeNumber();
  });
});

describe("simulate", () => {
  it("runs a shipped scenario with an overridden setting, for the duration asked", () => {
    const run = simulate(loadScenario(FLOW), { duration: "12s", set: { "groups.0.config.pullThresholdForQueue": 200 } });
    expect(run.summary.simulatedMs).toBe(12_000);
    expect(run.summary.complete).toBe(true);
    // Consumers take 800 of the 2 000 msg/s, so every queue's cache fills (500 msg/s each) within the
    // first second; a pull is still sent at exactly 200 cached (the check is strictly greater), so
    // the peak is 200 + one batch of 32.
    expect(run.summary.cache.countPerQueueMax).toBe(232);
    expect(run.series.columns.tSec.length).toBe(12);
  });

  it("gives the run the CLI's engine gives: the same scenario and overrides, the same trace hash", () => {
    const raw = loadScenario(FLOW);
    const api = simulate(raw, { duration: "12s", seed: 9 });
    const direct = simulateModel({ ...raw, duration: "12s", seed: 9 });
    expect(api.traceHash).toBe(direct.traceHash);
    expect(api.summary).toEqual(direct.summary);
    expect(simulate(raw, { duration: "12s", seed: 10 }).traceHash).not.toBe(api.traceHash);
  });

  it("never changes the scenario it is given", () => {
    const raw = loadScenario(FLOW);
    const before = JSON.stringify(raw);
    const changed = withOptions(raw, { seed: 3, duration: 5000, set: { "topics.0.produce.rate": 100 } });
    expect(JSON.stringify(raw)).toBe(before);
    expect(changed.seed).toBe(3);
    expect(changed.duration).toBe(5000);
    expect(changed.topics[0]!.produce!.rate).toBe(100);
  });

  it("rejects bad input with an InputError naming the field, the option or the file", () => {
    const raw = loadScenario(FLOW);
    const thrown = (f: () => unknown): InputError => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        return error as InputError;
      }
      throw new Error("nothing was thrown");
    };
    expect(thrown(() => simulate(raw, { set: { "groups.0.config.pullBatchSize": 0 } })).message).toMatch(/^groups\.0\.config\.pullBatchSize/);
    expect(thrown(() => simulate(raw, { seed: -1 })).message).toMatch(/^seed: .*0 to 4294967295/);
    expect(thrown(() => simulate(raw, { duration: "soon" })).message).toMatch(/^duration/);
    expect(thrown(() => simulate(raw, { set: { "groups.7.name": "x" } })).message).toMatch(/groups\.7/);
    expect(thrown(() => loadScenario(join(SCENARIOS, "no-such.json"))).message).toMatch(/no-such\.json: no such file/);
  });
});

describe("check", () => {
  it("returns failed expectations and their figures as data, not as an exception", () => {
    // 12 s at 2 000 msg/s: something is produced and, with no faults, nothing is lost.
    const verdict = check(loadScenario(FLOW), { duration: "12s", expect: ["messages.produced > 0", "messages.lost > 0"] });
    const added = verdict.expectations.slice(-2);
    expect(added.map((e) => [e.expression, e.ok])).toEqual([["messages.produced > 0", true], ["messages.lost > 0", false]]);
    expect(verdict.failures).toContain(`expect: messages.lost > 0  actual: ${added[1]!.actual}`);
    expect(verdict.passed).toBe(false);
    expect(verdict.seed).toBe(1);
  });

  it("passes a shipped scenario whose expectations hold, with the invariant checks on during the run", () => {
    const verdict = check(loadScenario(join(SCENARIOS, "hung-message.json")), { checkEvery: "1s" });
    expect(verdict.failures).toEqual([]);
    expect(verdict.passed).toBe(true);
    expect(verdict.summary?.complete).toBe(true);
  });
});

describe("explain and sweep", () => {
  it("explain names the queues held back, with the run's trace hash", () => {
    const raw = loadScenario(FLOW);
    const why = explain(raw, { duration: "12s", top: 2 });
    expect(why.queues.length).toBe(2);
    // Count flow control holds every queue from the first second on (see the simulate test above).
    expect(why.queues[0]!.intervals.map((i) => i.reason)).toContain("flowControl.count");
    expect(why.traceHash).toBe(simulate(raw, { duration: "12s" }).traceHash);
    expect(() => explain(raw, { duration: "12s", queue: "Nope@broker-a#0" })).toThrow(InputError);
  });

  it("sweep runs every point of the grid and recommends one", () => {
    // A 3 s run: the scenario's expectations, which look at 10 s and later, are dropped.
    const result = sweep(withOptions(loadScenario(FLOW), { duration: "3s", set: { expect: [] } }), { params: ["groups.0.config.pullThresholdForQueue=100,400"] });
    expect(result.points.map((p) => p.params)).toEqual([{ "groups.0.config.pullThresholdForQueue": 100 }, { "groups.0.config.pullThresholdForQueue": 400 }]);
    expect(result.complete).toBe(true);
    expect(result.recommendation?.point).not.toBeNull();
  });
});

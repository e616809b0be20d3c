import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvariantError } from "../checks/invariants.ts";
import { ConservationError } from "../metrics/accounting.ts";
import { InputError } from "../scenario/errors.ts";
import { classify, fuzzRun, judge, prepareBase, runScenario, runSeedOf, type FuzzConfig } from "./runner.ts";

const SCENARIO_DIR = join(import.meta.dirname, "..", "..", "scenarios");
const load = (name: string) => JSON.parse(readFileSync(join(SCENARIO_DIR, name), "utf8")) as Record<string, unknown>;
const CONFIG: FuzzConfig = { durationCapUs: 10_000_000, faultPhaseShare: 0.5, expects: [], scenarioExpectations: false, checkEveryUs: 1_000_000 };

describe("prepareBase", () => {
  it("caps the duration, drops the scenario's own faults that would start after it, and replaces its expect list", () => {
    const base = prepareBase(load("consumer-crash.json"), { ...CONFIG, expects: ["messages.lost == 0"] });
    expect(base.duration).toBe("10000ms");
    expect(base.faults).toEqual([]);
    expect(base.expect).toEqual(["messages.lost == 0"]);
    const own = prepareBase(load("consumer-crash.json"), { ...CONFIG, durationCapUs: 100_000_000, scenarioExpectations: true });
    expect((own.faults as unknown[]).length).toBe(1); // the crash at 60 s; the one at 120 s is past the end
    expect(own.expect).toEqual(load("consumer-crash.json").expect);
  });

  it("refuses an --expect naming nothing", () => {
    expect(() => prepareBase(load("default.json"), { ...CONFIG, expects: ["messages.nothing > 0"] })).toThrow(InputError);
  });
});

describe("runScenario", () => {
  it("run i of root seed S is run 0 of root seed S + i: the seed draws the faults and seeds the run", () => {
    expect(runSeedOf(1, 5)).toBe(6);
    expect(runSeedOf(2 ** 32 - 1, 1)).toBe(0);
    const base = prepareBase(load("default.json"), CONFIG);
    const { scenario, faults } = runScenario(base, 6, CONFIG);
    expect(scenario.seed).toBe(6);
    expect(scenario.faults).toEqual(faults);
    expect(runScenario(base, 6, CONFIG)).toEqual({ scenario, faults });
  });
});

describe("judge", () => {
  it("passes a healthy run and names the first failing expectation", () => {
    const base = prepareBase(load("default.json"), { ...CONFIG, expects: ["messages.lost == 0", "messages.consumed < 0"] });
    expect(judge(base, CONFIG.checkEveryUs).failure).toEqual({ key: "expect: messages.consumed < 0", message: expect.stringContaining("messages.consumed") });
    expect(judge(prepareBase(load("default.json"), CONFIG), CONFIG.checkEveryUs).failure).toBeNull();
  });

  it("classifies what a run throws: invariant class, conservation, or a crash", () => {
    expect(classify(new InvariantError("c1 ProcessQueue of T@b#0: msgCount 3")).key).toBe("invariant: cache counters");
    expect(classify(new InvariantError("group G1 committed offset 7 on T@b#0")).key).toBe("invariant: committed offsets");
    expect(classify(new ConservationError("message conservation violated")).key).toBe("conservation");
    expect(classify(new TypeError("x is undefined")).key).toBe("crash: TypeError");
  });

  it("turns an invariant thrown during the run into a failure, not an exception", () => {
    const base = prepareBase(load("default.json"), CONFIG);
    const throwing = () => {
      throw new InvariantError("at 3.000000 s: c1 ProcessQueue of T@b#0: msgCount 3 / msgSize 9 but it holds 2");
    };
    expect(judge(base, CONFIG.checkEveryUs, throwing).failure?.key).toBe("invariant: cache counters");
  });
});

describe("fuzzRun", () => {
  it("gives the same verdict for the same seed", () => {
    const base = prepareBase(load("broker-crash.json"), { ...CONFIG, durationCapUs: 5_000_000 });
    const a = fuzzRun(base, 3, { ...CONFIG, durationCapUs: 5_000_000 });
    const b = fuzzRun(base, 3, { ...CONFIG, durationCapUs: 5_000_000 });
    expect(b).toEqual(a);
    expect(a.faults.length).toBeGreaterThan(0);
  });
});

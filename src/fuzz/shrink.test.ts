import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDurationUs } from "../scenario/units.ts";
import { judge, prepareBase, runScenario, type Failure, type FuzzConfig } from "./runner.ts";
import { shrink, type FailureProbe } from "./shrink.ts";

const SCENARIO_DIR = join(import.meta.dirname, "..", "..", "scenarios");
const load = (name: string) => JSON.parse(readFileSync(join(SCENARIO_DIR, name), "utf8")) as Record<string, unknown>;

const FAILURE: Failure = { key: "expect: x", message: "" };

/** A stand-in for a simulation: fails while a crash of G1/1 lasting ≥ 2 s starts before 5 s with ≥ 2 instances. */
const probe: FailureProbe = (s) => {
  const faults = (s.faults as Record<string, unknown>[]) ?? [];
  const instances = ((s.groups as Record<string, unknown>[])[0]!.instances as number) ?? 1;
  const hit = faults.some((f) => f.kind === "consumerCrash" && f.target === "G1/1" && parseDurationUs(f.restartAfter, "") >= 2_000_000 && parseDurationUs(f.at, "") < 5_000_000);
  return hit && instances >= 2 ? FAILURE : null;
};

const failing = () => ({
  ...load("consumer-crash.json"),
  duration: "40s",
  faults: [
    { kind: "pause", at: "1s", target: "G1/0", for: "3s" },
    { kind: "consumerCrash", at: "12s", target: "G1/1", restartAfter: "9s" },
    { kind: "brokerCrash", at: "2s", target: "broker-a", restartAfter: "4s" },
    { kind: "consumerCrash", at: "3s", target: "G1/2", restartAfter: "1s" },
    { kind: "latency", at: "5s", clients: "*", brokers: "*", for: "1s", extra: "5ms" },
  ],
});

describe("shrink", () => {
  it("drops, shortens and moves faults, then cuts instances, queues and the run, keeping only failing steps", () => {
    const kept: Record<string, unknown>[] = [];
    const r = shrink(failing(), FAILURE, probe, 500, (s) => kept.push(s));
    expect(r.scenario.faults).toEqual([{ kind: "consumerCrash", at: "0ms", target: "G1/1", restartAfter: "2250ms" }]); // 9 s halved while it fails: 4.5 s, 2.25 s (1.125 s passes)
    expect((r.scenario.groups as Record<string, unknown>[])[0]!.instances).toBe(2);
    expect((r.scenario.topics as Record<string, unknown>[])[0]!.queuesPerBroker).toBe(1);
    expect(r.scenario.duration).toBe("1000ms");
    expect(r.steps.length).toBe(kept.length);
    // Every step kept fails the same way.
    for (const s of kept) expect(probe(s)).toEqual(FAILURE);
  });

  it("is deterministic: the same failure shrinks to the same scenario by the same steps", () => {
    const a = shrink(failing(), FAILURE, probe);
    const b = shrink(failing(), FAILURE, probe);
    expect(b).toEqual(a);
  });

  it("keeps a step only if the failure keeps its key: another failure is not progress", () => {
    const other: FailureProbe = (s) => (((s.faults as unknown[]) ?? []).length >= 5 ? FAILURE : { key: "invariant: cache counters", message: "" });
    const r = shrink(failing(), FAILURE, other, 100);
    expect((r.scenario.faults as unknown[]).length).toBe(5);
  });

  it("stops at the run budget", () => {
    let runs = 0;
    const r = shrink(failing(), FAILURE, (s) => (runs++, probe(s)), 3);
    expect(r.runs).toBe(3);
    expect(runs).toBe(3);
  });

  it("shrinks a real failure, each kept step failing again when re-simulated", () => {
    const config: FuzzConfig = { durationCapUs: 10_000_000, faultPhaseShare: 0.5, kinds: ["consumerCrash"], expects: ["messages.duplicates == 0"], scenarioExpectations: false, checkEveryUs: 1_000_000 };
    const base = prepareBase(load("consumer-crash.json"), config);
    let seed = 1;
    let found: { scenario: Record<string, unknown>; failure: Failure } | null = null;
    for (; seed < 10 && found === null; seed++) {
      const { scenario } = runScenario(base, seed, config);
      const { failure } = judge(scenario, config.checkEveryUs);
      if (failure !== null) found = { scenario, failure };
    }
    expect(found).not.toBeNull();
    const kept: Record<string, unknown>[] = [];
    const realProbe: FailureProbe = (s) => judge(s, config.checkEveryUs).failure;
    const r = shrink(found!.scenario, found!.failure, realProbe, 60, (s) => kept.push(s));
    expect((r.scenario.faults as unknown[]).length).toBeLessThanOrEqual(2);
    expect(r.failure.key).toBe("expect: messages.duplicates == 0");
    for (const s of [kept[0]!, kept[kept.length - 1]!]) expect(realProbe(s)?.key).toBe(r.failure.key);
  }, 20_000);
});

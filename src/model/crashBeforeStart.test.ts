// A consumerCrash that lands before its instance runs (found by `rmqsim fuzz`, issue 15): the crash
// finds nothing to crash, so its restart must not start a second incarnation beside the first — that
// consumed almost every message twice under one client id. The incarnation invariant catches the
// double life itself.
import { describe, expect, it } from "vitest";
import { InvariantError, checkIncarnations } from "../checks/invariants.ts";
import { simulate } from "../run/simulate.ts";

const scenario = (at: string) => ({
  name: "crash-before-start", seed: 2, duration: "1000ms", phase: "aligned",
  brokers: [{ name: "broker-a" }],
  topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 2000 } }],
  groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, listener: { consumeTime: { dist: "exponential", mean: "3ms" } } }],
  faults: [{ kind: "consumerCrash", at, target: "G1/0", mode: "vanished", restartAfter: "1ms" }],
});

describe("consumerCrash before the instance runs", () => {
  it("crashes nothing and restarts nothing: no duplicates, one incarnation", () => {
    const r = simulate(scenario("0ms"), { checkEveryUs: 100_000 });
    expect(r.summary.messages.duplicates).toBe(0);
    expect(r.cluster.incarnations).toHaveLength(1);
    expect(r.summary.messages.consumed).toBeGreaterThan(1500);
  });

  it("a crash of the running instance still restarts it (one more incarnation, the old one dead)", () => {
    const r = simulate(scenario("200ms"), { checkEveryUs: 100_000 });
    expect(r.cluster.incarnations).toHaveLength(2);
    expect(r.cluster.incarnations[0]!.alive).toBe(false);
    expect(r.cluster.consumers[0]!.state).toBe("RUNNING");
  });

  it("the incarnation invariant fails when a replaced incarnation still runs", () => {
    const r = simulate(scenario("200ms"));
    const cl = r.cluster;
    expect(() => checkIncarnations(cl)).not.toThrow();
    // The old bug, replayed: restart the slot while its incarnation is live.
    cl.reincarnate(0).start();
    expect(() => checkIncarnations(cl)).toThrow(InvariantError);
    expect(() => checkIncarnations(cl)).toThrow(/instance slot 0 .* has two running incarnations: epoch 1 was replaced by epoch 2/);
  });
});

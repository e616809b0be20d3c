// The brokerPermission and updateSubscriptionGroup faults and groups[].subscriptionGroup, as the scenario
// reader normalises them: what each field becomes, and the error naming the field for bad input.
import { describe, expect, it } from "vitest";
import { normalizeScenario } from "./normalize.ts";

function scenario(extra: { faults?: unknown[]; group?: Record<string, unknown> } = {}): unknown {
  return {
    name: "perm", duration: "1m",
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 2 }],
    groups: [{ name: "G1", subscribe: { T: "*" }, ...extra.group }],
    faults: extra.faults ?? [],
  };
}

describe("brokerPermission", () => {
  it("perm names become PermName bits: rw 6, r 4, w 2, none 0; for is optional", () => {
    const perms = ["rw", "r", "w", "none"].map((perm) => {
      const m = normalizeScenario(scenario({ faults: [{ kind: "brokerPermission", at: "10s", target: "broker-b", perm, for: "5s" }] }));
      return m.faults[0];
    });
    expect(perms.map((f) => (f as { perm: number }).perm)).toEqual([6, 4, 2, 0]);
    expect(perms[0]).toMatchObject({ kind: "brokerPermission", broker: 1, atUs: 10_000_000, forUs: 5_000_000 });
    const open = normalizeScenario(scenario({ faults: [{ kind: "brokerPermission", at: "10s", target: "broker-a", perm: "w" }] })).faults[0];
    expect(open).toMatchObject({ broker: 0, forUs: null });
  });

  it("refuses a bad perm, an unknown broker and a missing perm, naming the field", () => {
    const bad = (f: Record<string, unknown>) => () => normalizeScenario(scenario({ faults: [{ kind: "brokerPermission", at: "1s", ...f }] }));
    expect(bad({ target: "broker-a", perm: "x" })).toThrow(/faults\.0\.perm.*"x" is not one of .*"rw".*"none"/);
    expect(bad({ target: "broker-z", perm: "r" })).toThrow(/faults\.0\.target.*unknown broker "broker-z"; brokers are: broker-a, broker-b/);
    expect(bad({ target: "broker-a" })).toThrow(/faults\.0\.perm/);
    expect(bad({ target: "broker-a", perm: "r", for: 0 })).toThrow(/faults\.0\.for.*greater than 0/);
  });
});

describe("updateSubscriptionGroup", () => {
  it("names a group and optionally a broker (−1: every broker); only the fields given are set", () => {
    const [all, one] = normalizeScenario(scenario({
      faults: [
        { kind: "updateSubscriptionGroup", at: "1s", group: "G1", consumeEnable: false, for: "60s" },
        { kind: "updateSubscriptionGroup", at: "2s", group: "G1", broker: "broker-b", consumeBroadcastEnable: false, retryMaxTimes: 3 },
      ],
    })).faults;
    expect(all).toMatchObject({ kind: "updateSubscriptionGroup", group: 0, broker: -1, update: { consumeEnable: false }, forUs: 60_000_000, label: "updateSubscriptionGroup G1" });
    expect(one).toMatchObject({ broker: 1, update: { consumeBroadcastEnable: false, retryMaxTimes: 3 }, forUs: null, label: "updateSubscriptionGroup G1@broker-b" });
    expect(Object.keys((all as { update: object }).update)).toEqual(["consumeEnable"]);
  });

  it("refuses an unknown group, no field to change, a non-boolean flag and an out-of-range retryMaxTimes", () => {
    const bad = (f: Record<string, unknown>) => () => normalizeScenario(scenario({ faults: [{ kind: "updateSubscriptionGroup", at: "1s", ...f }] }));
    expect(bad({ group: "G9", consumeEnable: false })).toThrow(/faults\.0\.group.*unknown group "G9"; groups are: G1/);
    expect(bad({ group: "G1" })).toThrow(/faults\.0.*give at least one of consumeEnable, consumeBroadcastEnable, retryMaxTimes/);
    expect(bad({ group: "G1", consumeEnable: "no" })).toThrow(/faults\.0\.consumeEnable.*must be true or false/);
    expect(bad({ group: "G1", retryMaxTimes: 1001 })).toThrow(/faults\.0\.retryMaxTimes.*out of range \[0, 1000\]/);
    expect(bad({ group: "G1", consumeEnable: true, target: "G1" })).toThrow(/unknown key "target"/);
  });
});

describe("groups[].subscriptionGroup", () => {
  it("is absent unless given, and keeps only the fields given", () => {
    expect(normalizeScenario(scenario()).groups[0]!.subscriptionGroup).toBeUndefined();
    const g = normalizeScenario(scenario({ group: { subscriptionGroup: { consumeEnable: false, retryQueueNums: 0 } } })).groups[0]!;
    expect(g.subscriptionGroup).toEqual({ consumeEnable: false, retryQueueNums: 0 });
  });

  it("refuses unknown keys and out-of-range counts, naming the field", () => {
    const bad = (sg: unknown) => () => normalizeScenario(scenario({ group: { subscriptionGroup: sg } }));
    expect(bad({ consumeEnabled: false })).toThrow(/groups\.0\.subscriptionGroup\.consumeEnabled.*did you mean "consumeEnable"/);
    expect(bad({ retryQueueNums: 65 })).toThrow(/groups\.0\.subscriptionGroup\.retryQueueNums.*out of range \[0, 64\]/);
    expect(bad(true)).toThrow(/groups\.0\.subscriptionGroup.*must be an object/);
  });
});

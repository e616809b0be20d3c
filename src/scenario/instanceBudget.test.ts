// The instance budget (issue 15 item 3): validation refuses instance counts whose start-up
// NOTIFY_CONSUMER_IDS_CHANGED burst (≈ Σ n² × nodes / 2 pending events) would not fit the scheduler.
// Running a scenario at the limit takes minutes; bench/instanceBudget.ts does that (and measures the peak).
import { describe, expect, it } from "vitest";
import { INSTANCES_MAX, instancesMaxWith, NOTIFICATIONS_IN_FLIGHT_MAX } from "./instanceBudget.ts";
import { normalizeScenario } from "./normalize.ts";
import { rejection } from "./testRejection.ts";

type Json = any; // scenario edits

function scenario(edit: (s: Json) => void = () => {}): Json {
  const s: Json = {
    name: "budget",
    duration: "1s",
    brokers: [{ name: "a" }],
    topics: [{ name: "T", brokers: ["a"], queuesPerBroker: 8, produce: { rate: 10 } }],
    groups: [{ name: "G1", instances: 1, subscribe: { T: "*" } }],
  };
  edit(s);
  return s;
}


const twoBrokers = (s: Json) => {
  s.brokers = [{ name: "a" }, { name: "b" }];
  s.topics[0].brokers = ["a", "b"];
};

describe("instancesMaxWith: √(2 × 2^21 / nodes − the other groups' n²)", () => {
  it("is 2048 on one node, 1448 on two, 1024 on four", () => {
    expect([1, 2, 4].map((n) => instancesMaxWith(n))).toEqual([2048, 1448, 1024]);
    expect(INSTANCES_MAX).toBe(instancesMaxWith(1));
    expect(NOTIFICATIONS_IN_FLIGHT_MAX).toBe(2 ** 21);
    // At the limit the burst fits, one more does not.
    for (const nodes of [1, 2, 3, 4, 7]) {
      const n = instancesMaxWith(nodes);
      expect((n * n * nodes) / 2).toBeLessThanOrEqual(NOTIFICATIONS_IN_FLIGHT_MAX);
      expect(((n + 1) * (n + 1) * nodes) / 2).toBeGreaterThan(NOTIFICATIONS_IN_FLIGHT_MAX);
    }
  });
});

describe("normalizeScenario: instances within the budget", () => {
  it("one group on one node: 2048 instances validate, 2049 are refused with the reason", () => {
    expect(normalizeScenario(scenario((s) => (s.groups[0].instances = 2048))).groups[0]!.clientIds).toHaveLength(2048);
    const e = rejection(scenario((s) => (s.groups[0].instances = 2049)));
    expect(e.path).toBe("groups.0.instances");
    expect(e.reason).toMatch(/^2049 is more than 2048, the most consumer instances a group may run .*NOTIFY_CONSUMER_IDS_CHANGED/);
  });

  it("two broker nodes: 1448 validate, 1449 are refused naming the nodes, the limit and the notifications", () => {
    expect(() => normalizeScenario(scenario((s) => (twoBrokers(s), (s.groups[0].instances = 1448))))).not.toThrow();
    const e = rejection(scenario((s) => (twoBrokers(s), (s.groups[0].instances = 1449))));
    expect(e.message).toBe(
      "groups.0.instances: 1449 consumer instances with 2 broker nodes are more than the simulator can hold (at most 1448 here): " +
        "each registration makes every broker node notify every member of the group (NOTIFY_CONSUMER_IDS_CHANGED), " +
        "so Σ n² × nodes / 2 = 2099601 notifications are in flight at once, above 2097152",
    );
  });

  it("a replica is a node too (consumers heartbeat every address)", () => {
    const withSlave = (s: Json) => (s.brokers[0].replicas = [{ role: "SLAVE" }]);
    expect(() => normalizeScenario(scenario((s) => (withSlave(s), (s.groups[0].instances = 1448))))).not.toThrow();
    expect(rejection(scenario((s) => (withSlave(s), (s.groups[0].instances = 1449)))).message).toMatch(/with 2 broker nodes/);
  });

  it("groups add up: two groups of 1448 on one node fit, 1449 and 1448 do not, and the larger is blamed", () => {
    const two = (a: number, b: number) => (s: Json) => {
      s.groups = [
        { name: "G1", instances: a, subscribe: { T: "*" } },
        { name: "G2", instances: b, subscribe: { T: "*" } },
      ];
    };
    expect(() => normalizeScenario(scenario(two(1448, 1448)))).not.toThrow();
    const e = rejection(scenario(two(1448, 1449)));
    expect(e.path).toBe("groups.1.instances");
    expect(e.reason).toMatch(/^1449 consumer instances with 1 broker node next to the other groups' instances .*\(at most 1448 here\)/);
  });

  it("a scale fault and a named instance raise the count, and are blamed by their own field", () => {
    const scale = rejection(scenario((s) => (twoBrokers(s), (s.faults = [{ kind: "scale", at: "0.5s", target: "G1", instances: 1449 }]))));
    expect(scale.path).toBe("faults.0.instances");
    expect(scale.reason).toMatch(/^1449 consumer instances with 2 broker nodes .*at most 1448/);
    const named = rejection(scenario((s) => (twoBrokers(s), (s.faults = [{ kind: "consumerStart", at: "0.5s", target: "G1/1448" }]))));
    expect(named.path).toBe("faults.0.target");
    expect(named.reason).toMatch(/^1449 consumer instances with 2 broker nodes/);
    const tooMany = rejection(scenario((s) => (s.faults = [{ kind: "scale", at: "0.5s", target: "G1", instances: 3000 }])));
    expect(tooMany.path).toBe("faults.0.instances");
    expect(tooMany.reason).toMatch(/^3000 is more than 2048/);
  });
});

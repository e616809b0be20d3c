// A slave's (or follower's) crash with `lose` (found by the random-scenario corpus, issue 15): the nodes of
// a group share one commit log in the model, so cutting the slave's tail cut the master's too — messages
// the master still held vanished under running consumers and conservation failed. A slave's lost pages
// are fetched from the master again after its restart, so the group loses nothing; a master loses its tail.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";

const scenario = (target: string, mode: "classic" | "dledger") => ({
  name: "slave-crash-lose", duration: "8s", phase: "aligned",
  brokers: [mode === "classic"
    ? { name: "broker-a", replicas: [{ role: "SLAVE" }], brokerRole: "ASYNC_MASTER" }
    : { name: "broker-a", replicas: [{ role: "FOLLOWER" }, { role: "FOLLOWER" }], replication: { mode: "dledger" } }],
  topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 200 } }],
  groups: [{ name: "G1", instances: 2, subscribe: { T: "*" }, listener: { failureProbability: 0.2 } }],
  faults: [{ kind: "brokerCrash", at: "3s", target, lose: "2s", restartAfter: "1s" }],
});

describe("brokerCrash with lose", () => {
  it.each(["classic", "dledger"] as const)("of a %s replica loses nothing of the group's log", (mode) => {
    const r = simulate(scenario("broker-a-s1", mode), { checkEveryUs: 250_000 });
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.produced).toBeGreaterThan(1500);
  });

  it("of the master loses the tail stored in its last 2 s (about 400 messages at 200 msg/s)", () => {
    const r = simulate(scenario("broker-a", "classic"), { checkEveryUs: 250_000 });
    expect(r.summary.messages.lost).toBeGreaterThan(300);
  });
});

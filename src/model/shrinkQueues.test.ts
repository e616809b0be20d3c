// Issue 19's acceptance: shrinking a topic from 8 to 4 queues (writeQueueNums first, readQueueNums once
// the old queues are drained), and the permissions a topic config carries. Whole runs; every number is
// derived from the scenario: uniform arrivals at 800 msg/s over 8 queues by round robin = 100 msg/s per
// queue; "phase": "aligned", so producers and consumers poll routes at 10 ms + k × 30 s (the consumers
// start at 0) and rebalance about every 20 s; a route change reaches a rebalance at the first run after
// the consumer's poll (updateTopicSubscribeInfo only stores the set).
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

function scenario(brokers: string[], faults: unknown[], queuesPerBroker = 8 / brokers.length): ScenarioInput {
  return {
    name: "shrink", seed: 1, phase: "aligned", duration: "3m", network: { latency: "1ms" },
    brokers: brokers.map((name) => ({ name })),
    topics: [{ name: "T", brokers, queuesPerBroker, produce: { rate: 800, arrival: "uniform" } }],
    groups: [{ name: "G", instances: 2, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults,
  } as ScenarioInput;
}
type Result = ReturnType<typeof simulate>;
const rows = (r: Result, broker = "broker-a") => r.summary.perQueue.filter((q) => q.topic === "T" && q.brokerName === broker);

describe("shrinking 8 → 4 queues: writes first, then reads (issue 19 acceptance)", () => {
  const r = simulate(scenario(["broker-a"], [
    { kind: "updateTopic", at: "45s", target: "T@broker-a", writeQueueNums: 4 },
    { kind: "updateTopic", at: "100s", target: "T@broker-a", readQueueNums: 4 },
  ]), { checkEveryUs: S });
  const q = rows(r);

  it("producers stop writing queues 4–7 at their first route poll after the change (60.01 s), not before", () => {
    // Queues 4–7: 100 msg/s for 60.01 s = 6 001 each. Queues 0–3: the same, then 200 msg/s for the
    // remaining 119.99 s: 6 001 + 23 998 = 29 999. Round robin keeps the queues within 1 of each other.
    for (const x of q.slice(4)) expect(Math.abs(x.maxOffset - 6001)).toBeLessThanOrEqual(1);
    for (const x of q.slice(0, 4)) expect(Math.abs(x.maxOffset - 29_999)).toBeLessThanOrEqual(2);
    expect(r.summary.store.writesRefused).toBe(0); // queueIds 4–7 < readQueueNums 8: a stale send is still stored
    expect(r.summary.messages.produced).toBe(144_000);
  });

  it("consumers keep reading 4–7 until drained, and nothing is left unconsumed there", () => {
    for (const x of q.slice(4)) {
      expect(x.committedOffset).toBe(x.maxOffset);
      // Owned from the start until the rebalance that follows the consumers' 120.01 s route poll.
      expect(x.ownerHistory).toHaveLength(1);
      expect(x.ownerHistory[0]!.fromMs).toBeLessThan(100);
      expect(x.ownerHistory[0]!.toMs).toBeGreaterThanOrEqual(120_010);
      expect(x.ownerHistory[0]!.toMs).toBeLessThanOrEqual(140_110);
    }
    expect(r.summary.messages.lost).toBe(0);
  });

  it("after the consumers' route poll, rebalance allocates queues 0–3 only: 2 per instance (averagely)", () => {
    expect(r.summary.assignment["G/0"]!.queues.filter((l) => l.startsWith("T@"))).toEqual(["T@broker-a#0", "T@broker-a#1"]);
    expect(r.summary.assignment["G/1"]!.queues.filter((l) => l.startsWith("T@"))).toEqual(["T@broker-a#2", "T@broker-a#3"]);
    for (const x of q.slice(4)) expect(x.owner).toBeNull();
  });
});

describe("a topic's perm on one broker (updateTopic perm)", () => {
  // 2 brokers × 4 queues, 100 msg/s per queue.
  it("\"r\" (read only): producers leave the broker at their next route poll; consumers drain it", () => {
    const r = simulate(scenario(["broker-a", "broker-b"], [{ kind: "updateTopic", at: "45s", target: "T@broker-b", perm: "r" }]), { checkEveryUs: S });
    // broker-b: 100 msg/s for 60.01 s; broker-a: then 200 msg/s for 119.99 s (6 001 + 23 998).
    for (const x of rows(r, "broker-b")) {
      expect(Math.abs(x.maxOffset - 6001)).toBeLessThanOrEqual(1);
      expect(x.committedOffset).toBe(x.maxOffset);
    }
    for (const x of rows(r, "broker-a")) expect(Math.abs(x.maxOffset - 29_999)).toBeLessThanOrEqual(2);
  });

  it("\"w\" (write only): pulls there are refused at once, consumers drop the queues after their poll; producers keep writing", () => {
    const r = simulate(scenario(["broker-a", "broker-b"], [{ kind: "updateTopic", at: "45s", target: "T@broker-b", perm: "w" }]), { checkEveryUs: S });
    for (const x of rows(r, "broker-b")) {
      expect(Math.abs(x.maxOffset - 18_000)).toBeLessThanOrEqual(1); // 100 msg/s for 180 s
      expect(x.owner).toBeNull();
      // The broker's own check refuses pulls from 45 s (topic perm not readable → NO_PERMISSION,
      // PullMessageProcessor), so everything born after 45 s stays there: 135 s × 100 msg/s = 13 500,
      // give or take the few messages in flight at 45 s. The queue is dropped (offset persisted) at the
      // rebalance after the consumers' 60.01 s poll.
      expect(Math.abs(x.maxOffset - x.committedOffset - 13_500)).toBeLessThanOrEqual(10);
    }
    const all = Object.values(r.summary.assignment).flatMap((a) => a.queues.filter((l) => l.startsWith("T@")));
    expect(all.sort()).toEqual([0, 1, 2, 3].map((i) => `T@broker-a#${i}`));
  });

  it("a careless shrink (read and write to 2 at once): stale sends to queueId ≥ max(read, write) get SYSTEM_ERROR and are retried on the other broker", () => {
    const r = simulate(scenario(["broker-a", "broker-b"], [{ kind: "updateTopic", at: "45s", target: "T@broker-b", readQueueNums: 2, writeQueueNums: 2 }]), { checkEveryUs: S });
    // From 45 s until the 60.01 s poll the producer's route still lists broker-b#2 and #3 (queues a0–a3,
    // b0–b3). A send to b2 is refused and retried on the queue selectOneMessageQueue(broker-b) gives: the
    // index moves past b3 to a0. So each turn is a1 a2 a3 b0 b1 b2→a0 — 6 draws, 1 refusal, b3 never
    // drawn: 800/6 msg/s × 15.01 s = 2 001 refusals, none lost.
    expect(Math.abs(r.summary.store.writesRefused - 2001)).toBeLessThanOrEqual(1);
    expect(r.summary.store.produceFailed).toBe(0);
    expect(r.summary.messages.produced).toBe(144_000);
    const b = rows(r, "broker-b");
    for (const x of b.slice(2)) expect(Math.abs(x.maxOffset - 4500)).toBeLessThanOrEqual(1); // 100 msg/s for 45 s
  });
});

describe("growing 4 → 8 queues (updateTopic beyond queuesPerBroker)", () => {
  it("the layout holds 8 from the start; producers spread over 8 from their poll, consumers take the new queues", () => {
    const r = simulate(scenario(["broker-a"], [{ kind: "updateTopic", at: "45s", target: "T@broker-a", readQueueNums: 8, writeQueueNums: 8 }], 4), { checkEveryUs: S });
    const q = rows(r);
    expect(q).toHaveLength(8);
    // Queues 0–3: 200 msg/s until the 60.01 s poll, then 100: 12 002 + 11 999 = 24 001. Queues 4–7:
    // 100 msg/s for 119.99 s = 11 999. None before the poll.
    for (const x of q.slice(0, 4)) expect(Math.abs(x.maxOffset - 24_001)).toBeLessThanOrEqual(2);
    for (const x of q.slice(4)) expect(Math.abs(x.maxOffset - 11_999)).toBeLessThanOrEqual(2);
    // The new queues' first messages are still in memory when the consumers first ask where to start,
    // so CONSUME_FROM_LAST_OFFSET starts them at 0 (consumer spec §10.6, §13.7): nothing skipped or lost.
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.skippedAtStart).toBe(0);
    const all = Object.values(r.summary.assignment).flatMap((a) => a.queues.filter((l) => l.startsWith("T@")));
    expect(all).toHaveLength(8);
  });
});

// How a topic's producer spreads its sends when a broker refuses them (broker spec §7.2, §7.4): the
// round-robin index (sendWhichQueue) starts at a seeded random position, a refused send is retried up to
// twice on the queue selectOneMessageQueue(lastBrokerName) gives — the same index moved on to a queue of
// another broker — and a selector's send (queueSelect "random" or weights) is not retried. Whole runs.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

/** 2 brokers × 4 queues, 800 msg/s evenly spaced (100 per queue per second), broker-a read-only 20–40 s. */
function routing(o: { seed?: number; queueSelect?: unknown; faults?: unknown[]; duration?: string; groups?: unknown[] } = {}): ScenarioInput {
  return {
    name: "routing", seed: o.seed ?? 1, duration: o.duration ?? "60s", network: { latency: "1ms" },
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 4, produce: { rate: 800, arrival: "uniform", queueSelect: o.queueSelect ?? "roundRobin" } }],
    groups: (o.groups ?? [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }]) as ScenarioInput["groups"],
    faults: o.faults ?? [{ kind: "brokerReadOnly", target: "broker-a", at: "20s", for: "20s" }],
  } as ScenarioInput;
}
const maxOffsets = (r: ReturnType<typeof simulate>, broker: string) =>
  r.summary.perQueue.filter((q) => q.topic === "T" && q.brokerName === broker).map((q) => q.maxOffset);

describe("a read-only broker's share (fault brokerReadOnly)", () => {
  it("spreads evenly over the other broker's queues: each gets 200 msg/s while it lasts, none 5× its share", () => {
    const r = simulate(routing(), { checkEveryUs: S });
    // broker-a: 100 msg/s per queue for the 40 s outside the fault = 4 000 each (± the random start).
    for (const m of maxOffsets(r, "broker-a")) expect(Math.abs(m - 4000)).toBeLessThanOrEqual(1);
    // broker-b: 100 msg/s for 40 s + 200 msg/s for 20 s = 8 000 each. A send drawn for broker-a moves the
    // index past broker-a's four queues to the next broker-b queue; the next three sends take the others.
    for (const m of maxOffsets(r, "broker-b")) expect(Math.abs(m - 8000)).toBeLessThanOrEqual(2);
    expect(r.summary.store.produceFailed).toBe(0);
    // Every fourth send first tried broker-a: 20 s × 800 / 4 = 4 000 refused attempts.
    expect(Math.abs(r.summary.store.writesRefused - 4000)).toBeLessThanOrEqual(1);
  });

  it("a selector's send (queueSelect \"random\") is not retried: the sends it picks for broker-a fail", () => {
    const r = simulate(routing({ queueSelect: "random" }), { checkEveryUs: S });
    // Half of the 16 000 sends of the fault's 20 s pick a queue of broker-a.
    expect(r.summary.store.produceFailed).toBeGreaterThan(7600);
    expect(r.summary.store.produceFailed).toBeLessThan(8400);
  });
});

describe("sendWhichQueue's random start (ThreadLocalIndex)", () => {
  it("is drawn from the seed: the first message lands on a different queue for different seeds, the same for the same seed", () => {
    const firstQueue = (seed: number) => {
      const r = simulate(routing({ seed, faults: [], duration: "2ms" }), {}); // the first send is at 1.25 ms
      return r.summary.perQueue.findIndex((q) => q.topic === "T" && q.maxOffset === 1);
    };
    const seen = new Set([1, 2, 3, 4, 5, 6, 7, 8].map(firstQueue));
    expect(seen.size).toBeGreaterThan(2);
    expect(firstQueue(3)).toBe(firstQueue(3));
  });
});

describe("a failed-over send's extra round-robin steps are replayed exactly", () => {
  it("rewinding every queue after a read-only phase reads the same with and without reclaimed memory", () => {
    const input = routing({
      duration: "90s",
      faults: [
        { kind: "brokerReadOnly", target: "broker-a", at: "10s", for: "15s" },
        ...[0, 1, 2, 3].flatMap((q) => ["broker-a", "broker-b"].map((b) => ({ kind: "offsetIllegal", at: "70s", target: `T@${b}#${q}`, nextBeginOffset: "min" }))),
      ],
    });
    const on = simulate(input);
    const off = simulate(input, { configure: (cl) => { cl.reclaimer.reclaim = () => {}; } });
    let rebuilds = 0;
    for (const b of on.cluster.brokers) for (const mq of on.cluster.routes.queuesOf(b.index)) rebuilds += b.store.queue(mq).rebuilds;
    expect(rebuilds).toBeGreaterThan(0);
    expect(on.summary.messages.duplicates).toBeGreaterThan(50_000);
    expect(on.summary.messages).toEqual(off.summary.messages);
    expect(on.traceHash).toBe(off.traceHash);
  });
});

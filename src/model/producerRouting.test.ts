// How a topic's producer spreads its sends when a broker refuses them (broker spec §7.2, §7.4): the
// round-robin index (sendWhichQueue) starts at a seeded random position, a refused send is retried up to
// twice on the queue selectOneMessageQueue(lastBrokerName) gives — the same index moved on to a queue of
// another broker — and a selector's send (queueSelect "random" or weights) is not retried. Whole runs.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

/** 2 brokers × 4 queues, 800 msg/s evenly spaced (100 per queue per second), broker-a read-only 20–40 s. */
function routing(o: { seed?: number; queueSelect?: unknown; faults?: unknown[]; duration?: string; groups?: unknown[]; rate?: number; latencyFault?: boolean; profile?: string } = {}): ScenarioInput {
  return {
    name: "routing", seed: o.seed ?? 1, phase: "aligned", duration: o.duration ?? "60s", network: { latency: "1ms" }, profile: o.profile ?? "4.9",
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 4, produce: { rate: o.rate ?? 800, arrival: "uniform", queueSelect: o.queueSelect ?? "roundRobin", ...(o.latencyFault ? { sendLatencyFaultEnable: true } : {}) } }],
    groups: (o.groups ?? [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }]) as ScenarioInput["groups"],
    faults: o.faults ?? [{ kind: "brokerReadOnly", target: "broker-a", at: "20s", for: "20s" }],
  } as ScenarioInput;
}
const maxOffsets = (r: ReturnType<typeof simulate>, broker: string) =>
  r.summary.perQueue.filter((q) => q.topic === "T" && q.brokerName === broker).map((q) => q.maxOffset);

describe("sendLatencyFaultEnable (broker spec §7.3)", () => {
  const crash = [{ kind: "brokerCrash", target: "broker-a", at: "20s", restartAfter: "30s" }];
  it("4.9: the first refused send isolates broker-a for 600 s — one refusal, and its share lands on the queue after it until the isolation ends", () => {
    // broker-a (queues 0–3 in the publish list) crashes at 20 s. The first send drawn for it is refused
    // and retried; from then on every draw on broker-a's queues walks on to broker-b's first queue, which
    // takes 5/8 of the traffic (500 msg/s) while the other three keep 100 each. The route poll at 30.01 s
    // drops broker-a; at 60.01 s it is back in the route but still isolated (until 620 s): the walk goes on.
    const r = simulate(routing({ duration: "90s", faults: crash, latencyFault: true }), { checkEveryUs: S });
    expect(r.summary.store.writesRefused).toBe(1);
    const b = maxOffsets(r, "broker-b");
    // 20 s of 100 msg/s each, then 70 s with the first at 500 msg/s (from 20 s to 30 s the publish list
    // still has 8 queues: 4 on broker-a walk to broker-b#0; after 30.01 s it has broker-b's 4 only: 200
    // msg/s each; from 60.01 s broker-a is back in the list, isolated, so broker-b#0 takes 500 again).
    expect(b[0]).toBeGreaterThan(2000 + 10 * 500 + 30 * 200 + 30 * 500 - 20);
    expect(b[0]).toBeLessThan(2000 + 10 * 500 + 30 * 200 + 30 * 500 + 20);
    for (const m of maxOffsets(r, "broker-a")) expect(Math.abs(m - 2000)).toBeLessThanOrEqual(1);
  });

  it("5.x: isolation lasts 10 s — after it a send drawn for the dead broker is refused again and re-isolates it", () => {
    const r = simulate(routing({ duration: "90s", faults: crash, latencyFault: true, profile: "5.x" }), { checkEveryUs: S });
    // Refusals at 20 s and ~30 s (one each: the 30.01 s poll then drops broker-a from the route).
    expect(r.summary.store.writesRefused).toBeGreaterThanOrEqual(1);
    expect(r.summary.store.writesRefused).toBeLessThanOrEqual(3);
    // broker-a is back at 60.01 s and takes sends again (no isolation left by then).
    for (const m of maxOffsets(r, "broker-a")) expect(Math.abs(m - (2000 + 30 * 100))).toBeLessThanOrEqual(2);
  });
});

describe("a read-only broker (fault brokerReadOnly) and a dead one (brokerCrash)", () => {
  it("read-only: it keeps taking sends until the producer's route poll leaves it out, then its share spreads evenly over the rest", () => {
    // Route polls at 10 ms + k × 30 s. broker-a is read-only from 20 s to 40 s: a normal topic's send is
    // not refused (§7.1), the poll at 30.01 s leaves it out, the one at 60.01 s takes it back. So broker-a's
    // queues get 100 msg/s for 90 s less the 30 s out: 6 000 each; broker-b's 100 msg/s plus 100 more for
    // those 30 s: 12 000 each. Nothing is refused.
    const r = simulate(routing({ duration: "90s" }), { checkEveryUs: S });
    for (const m of maxOffsets(r, "broker-a")) expect(Math.abs(m - 6000)).toBeLessThanOrEqual(2);
    for (const m of maxOffsets(r, "broker-b")) expect(Math.abs(m - 12000)).toBeLessThanOrEqual(2);
    expect(r.summary.store.writesRefused).toBe(0);
    expect(r.summary.store.produceFailed).toBe(0);
  });

  it("dead: sends drawn for it are refused and retried on the other broker (one queue on) until the poll drops it", () => {
    // broker-a crashes at 20 s (restarts at 50 s). Until the 30.01 s poll a send drawn for it is refused
    // and retried: the retry moves the index past broker-a's four queues to the next broker-b queue, the
    // next three sends take the other three, so one send in four is refused: 10 s × 800 / 4 ≈ 2 000.
    // From 30.01 s broker-a is out of the route; back at the 60.01 s poll.
    const r = simulate(routing({ duration: "90s", faults: [{ kind: "brokerCrash", target: "broker-a", at: "20s", restartAfter: "30s" }] }), { checkEveryUs: S });
    expect(Math.abs(r.summary.store.writesRefused - 2000)).toBeLessThanOrEqual(4);
    for (const m of maxOffsets(r, "broker-a")) expect(Math.abs(m - 5000)).toBeLessThanOrEqual(2);
    for (const m of maxOffsets(r, "broker-b")) expect(Math.abs(m - 13000)).toBeLessThanOrEqual(3);
    expect(r.summary.store.produceFailed).toBe(0);
  });

  it("a selector's send (queueSelect \"random\") is not retried: while broker-a is down, the sends it picks there fail", () => {
    const r = simulate(routing({ queueSelect: "random", faults: [{ kind: "brokerCrash", target: "broker-a", at: "20s", restartAfter: "20s" }] }), { checkEveryUs: S });
    // Half of the 16 000 sends of those 20 s pick a queue of broker-a (selectors are given every queue here).
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
  it("rewinding every queue after a broker was down (sends retried) and one left the route reads the same with and without reclaimed memory", () => {
    // 4 000 msg/s (500 per queue): ~6 chunks per queue by the rewind at 50 s, most of them reclaimed; the
    // OFFSET_ILLEGAL fix (4.9: 10 s later) and the next rebalance bring the queues back from 0 by ~80 s.
    const input = routing({
      duration: "120s", rate: 4000,
      faults: [
        { kind: "brokerCrash", target: "broker-a", at: "10s", restartAfter: "15s" },
        { kind: "brokerReadOnly", target: "broker-b", at: "30s", for: "20s" }, // out of the route 30.01–60.01 s
        ...[0, 1, 2, 3].flatMap((q) => ["broker-a", "broker-b"].map((b) => ({ kind: "offsetIllegal", at: "50s", target: `T@${b}#${q}`, nextBeginOffset: "min" }))),
      ],
    });
    const on = simulate(input);
    const off = simulate(input, { configure: (cl) => { cl.reclaimer.reclaim = () => {}; } });
    let rebuilds = 0;
    for (const b of on.cluster.brokers) for (const mq of on.cluster.routes.queuesOf(b.index)) rebuilds += b.store.queue(mq).rebuilds;
    expect(rebuilds).toBeGreaterThan(0);
    expect(on.summary.messages.duplicates).toBeGreaterThan(150_000);
    expect(on.summary.messages).toEqual(off.summary.messages);
    expect(on.traceHash).toBe(off.traceHash);
  });
});

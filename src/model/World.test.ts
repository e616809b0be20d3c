// World: retention and message fates, storage freeing, and the lazy producers behind both.
import { describe, expect, it } from "vitest";
import { CHUNK, FATE_DLQ, FATE_LOST, FATE_RETRYING } from "../broker/QueueStore.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { simulate } from "./simulate.ts";
import { World } from "./World.ts";

const S = 1_000_000;

/**
 * One queue, ten messages a second born exactly 100 ms apart (offset k at (k + 1) × 100 ms), tags A and
 * B at random, a 10 s retention. Group G takes only A, group H everything; neither starts, so nothing
 * is consumed unless a test says so.
 */
function retentionWorld(): World {
  return new World(normalizeScenario({
    name: "retention",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 1, retention: "10s", produce: { rate: 10, arrival: "uniform", tags: { A: 1, B: 1 } } }],
    groups: [
      { name: "G", subscribe: { T: "A" }, startAt: "10h" },
      { name: "H", subscribe: { T: "*" }, startAt: "10h" },
    ],
  }));
}
const G = 0;
const H = 1;
const TAG_A = 0;
/** Address of the group's first consumer instance (the one a consume result comes from). */
const addrOf = (w: World, group: number) => w.consumers.find((c) => c.group === group)!.addr;

describe("World.applyRetention", () => {
  it("deletes, in offset order, exactly the messages born before now − retention", () => {
    const w = retentionWorld();
    const mq = w.topicQueues(0)[0]!;
    const store = w.queues[mq]!;
    w.sched.runUntil(20 * S);
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(mq);
    // Born before 20 s − 10 s = 10 s: (k + 1) × 100 ms < 10 s ⇔ k ≤ 98.
    expect(store.minOffset).toBe(99);
    expect(store.bornUs(99)).toBe(10 * S);
    w.sched.runUntil(20 * S + 100_000);
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(mq);
    expect(store.minOffset).toBe(100);
  });

  it("marks unconsumed messages lost, per group, but not consumed, sent-back, dead-lettered or filtered-out ones", () => {
    const w = retentionWorld();
    const mq = w.topicQueues(0)[0]!;
    const store = w.queues[mq]!;
    w.sched.runUntil(5 * S);
    w.advanceProducers(w.sched.nowUs);
    const aOffsets: number[] = [];
    for (let o = 0; o < store.maxOffset; o++) if (store.tag(o) === TAG_A) aOffsets.push(o);
    expect(aOffsets.length).toBeGreaterThanOrEqual(3);
    const [consumed, retrying, dead] = aOffsets as [number, number, number];
    w.fates.recordConsumed(G, mq, consumed, addrOf(w, G));
    w.fates.markRetrying(G, store.originKey(retrying));
    w.fates.markDlq(G, store.originKey(dead));
    w.fates.recordConsumed(H, mq, 0, addrOf(w, H));
    w.sched.runUntil(20 * S);
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(mq);

    const deleted = 99; // offsets 0–98, as above
    let deletedA = 0;
    for (let o = 0; o < deleted; o++) if (store.tag(o) === TAG_A) deletedA++;
    expect(w.metrics.fates[G]!.lost).toBe(deletedA - 3);
    expect(w.metrics.fates[H]!.lost).toBe(deleted - 1);
    for (let o = 0; o < deleted; o++) {
      const fate = w.fates.fate(G, store.originKey(o));
      const expectLost = store.tag(o) === TAG_A && o !== consumed && o !== retrying && o !== dead;
      expect(fate & FATE_LOST, `offset ${o}`).toBe(expectLost ? FATE_LOST : 0);
    }
    expect(w.fates.fate(G, store.originKey(retrying)) & FATE_RETRYING).toBe(FATE_RETRYING);
    expect(w.fates.fate(G, store.originKey(dead)) & FATE_DLQ).toBe(FATE_DLQ);
    expect(w.fates.fate(H, store.originKey(0)) & FATE_LOST).toBe(0);
  });

  it("a message lost to retention and consumed later counts as consumed, not lost", () => {
    const w = retentionWorld();
    const mq = w.topicQueues(0)[0]!;
    w.sched.runUntil(20 * S);
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(mq);
    const lost = w.metrics.fates[H]!.lost;
    w.fates.recordConsumed(H, mq, 0, addrOf(w, H)); // a consumer that had it cached before the deletion
    expect(w.metrics.fates[H]!.lost).toBe(lost - 1);
    expect(w.metrics.fates[H]!.consumed).toBe(1);
  });

  it("spares a message in the retry chain, and leaves %RETRY% and %DLQ% queues alone", () => {
    // One message, born at 1 s, failing every attempt: sent back at ~1 s (level 3, 10 s) and ~11 s
    // (level 4, 30 s), dead-lettered at ~41 s. By 60 s retention (10 s) has deleted the original and
    // would have deleted both retry copies (born ~11 s and ~41 s) if it applied to %RETRY%.
    const r = simulate({
      name: "chain", duration: "60s", network: { latency: "1ms" }, brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, retention: "10s", produce: { rate: 1, arrival: "uniform", rateChanges: [{ at: "1500ms", rate: 0 }] } }],
      groups: [{ name: "G", subscribe: { T: "*" }, config: { maxReconsumeTimes: 2 }, listener: { consumeTime: "1ms", poisonFraction: 1 } }],
    });
    const w = r.world;
    expect(w.queues[w.topicQueues(0)[0]!]!.minOffset).toBe(1);
    expect(r.summary.messages).toMatchObject({ produced: 1, lost: 0, dlq: 1, sentBack: 3 });
    const retry = w.queues[w.retryQueue(G, 0)]!;
    w.applyRetention(retry.index);
    expect(retry.minOffset).toBe(0);
    expect(retry.maxOffset).toBe(2);
    expect(retry.bornUs(0)).toBeLessThan(w.sched.nowUs - 10 * S);
  });
});

describe("World.advanceProducers", () => {
  it("appends every topic's messages born up to now, counting them as produced and, per group, filtered", () => {
    const w = retentionWorld();
    const store = w.queues[w.topicQueues(0)[0]!]!;
    w.advanceProducers(2 * S);
    expect(store.maxOffset).toBe(20);
    expect(w.metrics.producedTotal).toBe(20);
    let b = 0;
    for (let o = 0; o < 20; o++) if (store.tag(o) !== TAG_A) b++;
    expect(w.metrics.fates[G]!.filtered).toBe(b);
    expect(w.metrics.fates[H]!.filtered).toBe(0);
  });
});

describe("storage freeing by the sampler", () => {
  // 1000 msg/s into each of two one-queue topics for 30 s: ~30 000 messages, 7 whole chunks of 4096.
  // Fast consumes F and S at up to 20 000 msg/s; Slow consumes S at 10 msg/s (one thread, 100 ms each).
  const r = simulate({
    name: "storage",
    duration: "30s",
    brokers: [{ name: "broker-a" }],
    topics: [
      { name: "F", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 1000, arrival: "uniform" } },
      { name: "S", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 1000, arrival: "uniform" } },
    ],
    groups: [
      { name: "Fast", subscribe: { F: "*", S: "*" }, listener: { consumeTime: "1ms" } },
      { name: "Slow", subscribe: { S: "*" }, config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "100ms" } },
    ],
  });
  const w = r.world;
  const f = w.queues[w.topicQueues(0)[0]!]!;
  const s = w.queues[w.topicQueues(1)[0]!]!;
  const committed = (group: number, mq: number) => w.brokers[0]!.queryOffset(group, mq);

  it("frees whole chunks of a queue everyone has consumed, up to the chunk below the committed offset", () => {
    expect(f.maxOffset).toBe(30_000);
    // Fast keeps up, so its committed offset is in the last chunk, [7 × 4096, 8 × 4096) = [28672, 32768):
    // the 7 chunks below it are freed, and never more than what the group may still read.
    expect(committed(0, f.index)).toBeGreaterThanOrEqual(7 * CHUNK);
    expect(f.physicalMin).toBe(7 * CHUNK);
    expect(f.chunksHeld).toBe(Math.ceil(f.maxOffset / CHUNK) - f.physicalMin / CHUNK);
  });

  it("keeps every chunk of a queue a slow group has not consumed past", () => {
    // Slow consumed about 10 msg/s × 30 s = 300 messages, far inside chunk 0.
    expect(committed(1, s.index)).toBeLessThan(CHUNK);
    expect(committed(0, s.index)).toBeGreaterThan(4 * CHUNK); // Fast alone would have freed some
    expect(s.physicalMin).toBe(0);
    expect(s.chunksHeld).toBe(Math.ceil(s.maxOffset / CHUNK));
  });

  it("still accounts for every message", () => {
    for (const g of r.summary.groups) {
      expect(g.consumed + g.lost + g.inFlight + g.cached + g.unpulled + g.retrying + g.dlq + g.filtered).toBe(g.produced);
    }
  });
});

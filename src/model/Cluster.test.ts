// The cluster's lazy producers, the brokers' retention and the message fates it feeds, and storage
// reclamation (ported from the old World.test.ts: w.applyRetention is now the broker store's own
// applyRetention, w.advanceProducers the producers' advanceTo, the sampler's storage freeing the
// StorageReclaimer's).
import { describe, expect, it } from "vitest";
import { CHUNK } from "../broker/QueueStore.ts";
import { FATE_DLQ, FATE_LOST, FATE_RETRYING } from "../metrics/MessageFates.ts";
import { Recorder } from "../metrics/Recorder.ts";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { Cluster } from "./Cluster.ts";

const S = 1_000_000;

/**
 * One queue, ten messages a second born exactly 100 ms apart (offset k at (k + 1) × 100 ms), tags A and
 * B at random, a 10 s retention. Group G takes only A, group H everything; neither starts, so nothing
 * is consumed unless a test says so. Nothing is scheduled until a test starts the cluster.
 */
function retentionCluster() {
  const model = normalizeScenario({
    name: "retention",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 1, retention: "10s", produce: { rate: 10, arrival: "uniform", tags: { A: 1, B: 1 } } }],
    groups: [
      { name: "G", subscribe: { T: "A" }, startAt: "10h" },
      { name: "H", subscribe: { T: "*" }, startAt: "10h" },
    ],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const cl = new Cluster(model, rec, { routes });
  const mq = routes.topicQueues(0)[0]!;
  const broker = cl.brokers[routes.brokerOf(mq)]!;
  return { cl, rec, mq, broker, store: broker.store.queue(mq) };
}
const G = 0;
const H = 1;
const TAG_A = 0;
/** Address of the group's first consumer instance (the one a consume report comes from). */
const addrOf = (cl: Cluster, group: number) => cl.consumers.find((c) => c.group === group)!.addr;

describe("MessageStore.applyRetention on a cluster's broker", () => {
  it("deletes, in offset order, exactly the messages born before now − retention", () => {
    const { cl, mq, broker, store } = retentionCluster();
    cl.sched.runUntil(20 * S);
    cl.settle();
    broker.store.applyRetention(mq, cl.sched.nowUs);
    // Born before 20 s − 10 s = 10 s: (k + 1) × 100 ms < 10 s ⇔ k ≤ 98.
    expect(store.minOffset).toBe(99);
    expect(store.bornUs(99)).toBe(10 * S);
    cl.sched.runUntil(20 * S + 100_000);
    cl.settle();
    broker.store.applyRetention(mq, cl.sched.nowUs);
    expect(store.minOffset).toBe(100);
  });

  it("runs on the broker's own timer every second once the cluster is started", () => {
    const { cl, store } = retentionCluster();
    cl.start();
    cl.sched.runUntil(20 * S);
    // The tick at 20 s has deleted what the manual call above deletes; the one at 19 s one message less.
    expect(store.minOffset).toBe(99);
    cl.sched.runUntil(20 * S + 999_999);
    expect(store.minOffset).toBe(99);
    cl.sched.runUntil(21 * S);
    expect(store.minOffset).toBe(109);
  });

  it("marks unconsumed messages lost, per group, but not consumed, sent-back, dead-lettered or filtered-out ones", () => {
    const { cl, rec, mq, broker, store } = retentionCluster();
    cl.sched.runUntil(5 * S);
    cl.settle();
    const aOffsets: number[] = [];
    for (let o = 0; o < store.maxOffset; o++) if (store.tag(o) === TAG_A) aOffsets.push(o);
    expect(aOffsets.length).toBeGreaterThanOrEqual(3);
    const [consumed, retrying, dead] = aOffsets as [number, number, number];
    const now = cl.sched.nowUs;
    // What a consumer and the broker's send-back would report, through the recorder's observer interface.
    rec.consumed(G, mq, consumed, store.originKey(consumed), store.originBornUs(consumed), addrOf(cl, G), now);
    rec.retrying(G, store.originKey(retrying));
    rec.deadLettered(G, store.originKey(dead));
    rec.consumed(H, mq, 0, store.originKey(0), store.originBornUs(0), addrOf(cl, H), now);
    cl.sched.runUntil(20 * S);
    cl.settle();
    broker.store.applyRetention(mq, cl.sched.nowUs);

    const deleted = 99; // offsets 0–98, as above
    let deletedA = 0;
    for (let o = 0; o < deleted; o++) if (store.tag(o) === TAG_A) deletedA++;
    expect(rec.groups[G]!.lost).toBe(deletedA - 3);
    expect(rec.groups[H]!.lost).toBe(deleted - 1);
    for (let o = 0; o < deleted; o++) {
      const fate = rec.fates.fate(G, store.originKey(o));
      const expectLost = store.tag(o) === TAG_A && o !== consumed && o !== retrying && o !== dead;
      expect(fate & FATE_LOST, `offset ${o}`).toBe(expectLost ? FATE_LOST : 0);
    }
    expect(rec.fates.fate(G, store.originKey(retrying)) & FATE_RETRYING).toBe(FATE_RETRYING);
    expect(rec.fates.fate(G, store.originKey(dead)) & FATE_DLQ).toBe(FATE_DLQ);
    expect(rec.fates.fate(H, store.originKey(0)) & FATE_LOST).toBe(0);
  });

  it("a message lost to retention and consumed later counts as consumed, not lost", () => {
    const { cl, rec, mq, broker, store } = retentionCluster();
    cl.sched.runUntil(20 * S);
    cl.settle();
    broker.store.applyRetention(mq, cl.sched.nowUs);
    const lost = rec.groups[H]!.lost;
    // A consumer that had it cached before the deletion.
    rec.consumed(H, mq, 0, store.originKey(0), store.originBornUs(0), addrOf(cl, H), cl.sched.nowUs);
    expect(rec.groups[H]!.lost).toBe(lost - 1);
    expect(rec.groups[H]!.consumed).toBe(1);
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
    const cl = r.cluster;
    const broker = cl.brokers[0]!;
    expect(broker.store.queue(cl.routes.topicQueues(0)[0]!).minOffset).toBe(1);
    expect(r.summary.messages).toMatchObject({ produced: 1, lost: 0, dlq: 1, sentBack: 3 });
    const retryMq = cl.routes.retryQueue(G, 0);
    const retry = broker.store.queue(retryMq);
    broker.store.applyRetention(retryMq, cl.sched.nowUs);
    expect(retry.minOffset).toBe(0);
    expect(retry.maxOffset).toBe(2);
    expect(retry.bornUs(0)).toBeLessThan(cl.sched.nowUs - 10 * S);
  });
});

describe("Producers.advanceTo", () => {
  it("appends every topic's messages born up to the given time, counting them as produced and, per group, filtered", () => {
    const { cl, rec, store } = retentionCluster();
    cl.producers.advanceTo(2 * S);
    expect(store.maxOffset).toBe(20);
    expect(rec.producedTotal).toBe(20);
    let b = 0;
    for (let o = 0; o < 20; o++) if (store.tag(o) !== TAG_A) b++;
    expect(rec.groups[G]!.filtered).toBe(b);
    expect(rec.groups[H]!.filtered).toBe(0);
  });
});

describe("StorageReclaimer: freeing storage nobody can read again", () => {
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
  const cl = r.cluster;
  const fMq = cl.routes.topicQueues(0)[0]!;
  const sMq = cl.routes.topicQueues(1)[0]!;
  const f = cl.brokers[0]!.store.queue(fMq);
  const s = cl.brokers[0]!.store.queue(sMq);
  const committed = (group: number, mq: number) => cl.brokers[0]!.offsets.queryOffset(group, mq);

  it("frees whole chunks of a queue everyone has consumed, up to the chunk below the committed offset", () => {
    expect(f.maxOffset).toBe(30_000);
    // Fast keeps up, so its committed offset is in the last chunk, [7 × 4096, 8 × 4096) = [28672, 32768):
    // the 7 chunks below it are freed, and never more than what the group may still read.
    expect(committed(0, fMq)).toBeGreaterThanOrEqual(7 * CHUNK);
    expect(f.chunksHeld).toBe(Math.ceil(f.maxOffset / CHUNK) - 7);
    expect(f.minOffset).toBe(0); // reclaiming never moves minOffset
  });

  it("keeps every chunk of a queue a slow group has not consumed past", () => {
    // Slow consumed about 10 msg/s × 30 s = 300 messages, far inside chunk 0.
    expect(committed(1, sMq)).toBeLessThan(CHUNK);
    expect(committed(0, sMq)).toBeGreaterThan(4 * CHUNK); // Fast alone would have freed some
    expect(s.chunksHeld).toBe(Math.ceil(s.maxOffset / CHUNK));
  });

  it("still accounts for every message", () => {
    for (const g of r.summary.groups) {
      expect(g.consumed + g.lost + g.inFlight + g.cached + g.unpulled + g.retrying + g.dlq + g.filtered).toBe(g.produced);
    }
  });
});

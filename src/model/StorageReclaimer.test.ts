// StorageReclaimer: every second it reclaims the stored messages of each scenario queue below the lowest
// offset anything holds — its roots: every group's committed offset (none for a group without one), and
// of every live instance its ProcessQueues' first messages, its in-memory offsets and the messages in its
// consume workers, and every pull request's in-flight offset and (live ProcessQueue) next offset, dead
// incarnations' pulls included. %RETRY% and %DLQ% queues are never reclaimed. Reclaiming is invisible:
// a reclaimed message read again is re-created as it was (issue 11).
//
// The root tests start from one real situation — a group that drained a 5-chunk backlog, beside a group
// that never started and so has no committed offset — then add exactly one root below the others through
// the components' public operations and read the reclaimer's floor for the queue.
import { describe, expect, it } from "vitest";
import { CHUNK } from "../broker/QueueStore.ts";
import { checkRun } from "../checks/invariants.ts";
import { ProcessQueue } from "../client/ProcessQueue.ts";
import { Recorder } from "../metrics/Recorder.ts";
import { MessageBatch } from "../protocol/commands.ts";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { Cluster } from "./Cluster.ts";
import { LIVE_CHUNK_BUDGET } from "./StorageReclaimer.ts";

const S = 1_000_000;
const MS = 1000;
const G = 0;
const H = 1;
/** Five whole chunks, stored at t = 0. */
const BACKLOG = 5 * CHUNK;

/** Builds a cluster the way simulate() does (routes, recorder, cluster), not started. */
function build(input: ScenarioInput) {
  const model = normalizeScenario(input);
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  return { cl: new Cluster(model, rec, { routes }), rec };
}

/**
 * One queue of T holding BACKLOG messages at t = 0. G (one instance, 20 workers, 1 ms per message)
 * drains it in about 2 s; H never starts. At 20 s G has committed BACKLOG, cached nothing, and holds one
 * pull at BACKLOG on the broker; H has no committed offset, so the 20 reclaim ticks so far freed nothing.
 */
function drained() {
  const { cl } = build({
    name: "drained", network: { latency: "1ms" }, brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0, backlog: BACKLOG } }],
    groups: [
      { name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } },
      { name: "H", subscribe: { T: "*" }, startAt: "10h" },
    ],
  });
  cl.start();
  cl.sched.runUntil(20 * S);
  cl.settle();
  const mq = cl.routes.topicQueues(0)[0]!;
  const broker = cl.brokers[cl.routes.brokerOf(mq)]!;
  const g = cl.consumers.find((c) => c.group === G)!;
  return {
    cl, mq, broker, g, store: broker.store.queue(mq),
    /** H's UPDATE_CONSUMER_OFFSET, as the broker's offset manager applies it. */
    commitH: (offset: number) => broker.offsets.commitOffset(H, mq, offset, 0, cl.sched.nowUs),
    /** The stored messages at `offsets`, as a pull would hand them to a consumer. */
    batch: (offsets: number[]) => {
      const b = new MessageBatch(offsets.length);
      offsets.forEach((o, i) => broker.store.queue(mq).copyTo(o, b, i));
      b.count = offsets.length;
      return b;
    },
  };
}

describe("StorageReclaimer.floors: a scenario queue is reclaimed only below its lowest root", () => {
  it("the drained situation: G committed everything, H nothing (it holds nothing), so every chunk was reclaimed", () => {
    const { cl, broker, g, store, mq } = drained();
    expect(store.maxOffset).toBe(BACKLOG);
    expect(broker.offsets.queryOffset(G, mq)).toBe(BACKLOG);
    expect(broker.offsets.queryOffset(H, mq)).toBe(-1);
    expect(g.rebalance.processQueues().find(([q]) => q === mq)![1].firstKey).toBe(-1); // nothing cached
    expect(cl.reclaimer.floors()[mq]).toBe(BACKLOG);
    expect(store.liveFrom).toBe(BACKLOG);
    expect(store.chunksHeld).toBe(0);
    expect(store.minOffset).toBe(0); // …and every message is still readable
  });

  it("a group's committed offset holds from that offset", () => {
    const { cl, mq, commitH } = drained();
    commitH(2 * CHUNK + 100);
    expect(cl.reclaimer.floors()[mq]).toBe(2 * CHUNK + 100);
  });

  it("a live instance's ProcessQueue holds from its first cached message", () => {
    const { cl, g, mq, store, commitH, batch } = drained();
    commitH(BACKLOG);
    const pq = g.rebalance.processQueues().find(([q]) => q === mq)![1];
    pq.putMessage(batch([CHUNK + 7, CHUNK + 8]));
    expect(cl.reclaimer.floors()[mq]).toBe(CHUNK + 7);
  });

  it("a live instance's in-memory offset holds from that offset", () => {
    const { cl, g, mq, store, commitH } = drained();
    commitH(BACKLOG);
    g.offsetStore.updateOffset(mq, 3 * CHUNK + 1, false);
    expect(cl.reclaimer.floors()[mq]).toBe(3 * CHUNK + 1);
  });

  it("a message inside a live instance's consume worker holds from its offset", () => {
    const { cl, g, mq, store, commitH, batch } = drained();
    commitH(BACKLOG);
    const msgs = batch([CHUNK + 1]);
    const pq = new ProcessQueue(cl.sched.nowUs); // a queue the rebalance does not list: only the worker refers to it
    pq.putMessage(msgs);
    g.consumeService.submitConsumeRequest(msgs, pq, mq);
    const inFlight: number[] = [];
    g.consumeService.forEachInFlight((_mq, o) => inFlight.push(o));
    expect(inFlight).toEqual([CHUNK + 1]);
    expect(cl.reclaimer.floors()[mq]).toBe(CHUNK + 1);
  });

  it("a pull request's next offset holds while its ProcessQueue is live, not once it was dropped", () => {
    const { cl, g, mq, store, commitH } = drained();
    commitH(BACKLOG);
    g.newPullRequest(mq, new ProcessQueue(cl.sched.nowUs), 2 * CHUNK + 5);
    const dropped = new ProcessQueue(cl.sched.nowUs);
    dropped.dropped = true;
    g.newPullRequest(mq, dropped, 5);
    expect(cl.reclaimer.floors()[mq]).toBe(2 * CHUNK + 5);
  });

  it("a pull in flight holds from the offset it asked for, even with its ProcessQueue dropped, until its answer arrives", () => {
    const { cl, g, mq, store, commitH } = drained();
    commitH(BACKLOG);
    const pq = new ProcessQueue(cl.sched.nowUs);
    const pr = g.newPullRequest(mq, pq, CHUNK + 3);
    g.pull.pullMessage(pr);
    expect([pr.inFlight, pr.reqOffset]).toEqual([true, CHUNK + 3]);
    pq.dropped = true; // a rebalance dropped the queue while the pull was on its way
    expect(cl.reclaimer.floors()[mq]).toBe(CHUNK + 3);
    // The broker answers FOUND at once: back after 1 ms each way.
    cl.sched.runUntil(cl.sched.nowUs + 10 * MS);
    expect(pr.inFlight).toBe(false);
    expect(cl.reclaimer.floors()[mq]).toBe(BACKLOG);
  });

  it("of a dead incarnation only the pulls still in flight hold: not its in-memory offsets, cache or workers", () => {
    const { cl, g, mq, store, commitH, batch } = drained();
    commitH(BACKLOG);
    const pq = new ProcessQueue(cl.sched.nowUs);
    const pr = g.newPullRequest(mq, pq, CHUNK + 9);
    g.pull.pullMessage(pr);
    // After the pull left (so it did not piggy-back it): an in-memory offset of 5, a cached message at
    // 6 and a worker on message 3, each of which would hold chunk 0 for a live instance.
    g.offsetStore.updateOffset(mq, 5, false);
    g.rebalance.processQueues().find(([q]) => q === mq)![1].putMessage(batch([6]));
    const work = batch([3]);
    const workPq = new ProcessQueue(cl.sched.nowUs);
    workPq.putMessage(work);
    g.consumeService.submitConsumeRequest(work, workPq, mq);
    g.crash("vanished");
    pq.dropped = true; // as destroy() does to every ProcessQueue of the dead instance's table
    // Crashed and not restarted: still the slot's current incarnation, but dead.
    expect(cl.consumers[g.index]).toBe(g);
    expect(cl.reclaimer.floors()[mq]).toBe(CHUNK + 9);
    // Restarted: the new incarnation has nothing yet; the old one's pull, still in flight, still holds.
    const next = cl.reincarnate(g.index);
    expect(next).not.toBe(g);
    expect(cl.reclaimer.floors()[mq]).toBe(CHUNK + 9);
  });
});

describe("StorageReclaimer.reclaim: %RETRY% and %DLQ% queues", () => {
  it("are never freed, even when every group has committed past all of a retry queue's chunks", () => {
    // 2 × CHUNK messages, each failing every attempt, maxReconsumeTimes 1: attempt 0 is sent back
    // (level 3, 10 s) into %RETRY%G, the copy fails again and is dead-lettered. So %RETRY%G and %DLQ%G
    // each receive 2 × CHUNK messages; G consumes the retry queue to its end within about 15 s.
    const r = simulate({
      name: "retry", duration: "60s", network: { latency: "1ms" }, brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0, backlog: 2 * CHUNK } }],
      groups: [{ name: "G", subscribe: { T: "*" }, config: { maxReconsumeTimes: 1 }, listener: { consumeTime: "1ms", poisonFraction: 1 } }],
    });
    const cl = r.cluster;
    const broker = cl.brokers[0]!;
    const t = broker.store.queue(cl.routes.topicQueues(0)[0]!);
    const retryMq = cl.routes.retryQueue(G, 0);
    const retry = broker.store.queue(retryMq);
    const dlq = broker.store.queue(cl.routes.dlqQueue(G, 0));
    expect(r.summary.messages).toMatchObject({ produced: 2 * CHUNK, dlq: 2 * CHUNK });
    expect(t.liveFrom).toBe(2 * CHUNK); // the ordinary queue, committed to its end, is reclaimed
    expect(retry.maxOffset).toBe(2 * CHUNK);
    expect(broker.offsets.queryOffset(G, retryMq)).toBe(2 * CHUNK);
    expect(dlq.maxOffset).toBe(2 * CHUNK);
    cl.reclaimer.reclaim();
    for (const q of [retry, dlq]) {
      expect(q.liveFrom).toBe(0);
      expect(q.chunksHeld).toBe(2);
    }
  });
});

describe("StorageReclaimer under load: memory follows the backlog, not what was produced", () => {
  it("at 10 000 msg/s for 2 min, each queue holds at most the chunks its committed backlog spans, plus one", () => {
    // 10 000 msg/s round-robin over 4 queues: 2 500 msg/s, 300 000 messages per queue by 120 s —
    // ⌈300 000 / 4096⌉ = 74 chunks each if nothing were freed. G (20 workers, 1 ms) keeps up.
    const { cl, rec } = build({
      name: "load", duration: "120s", network: { latency: "1ms" }, brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 4, produce: { rate: 10_000, arrival: "uniform" } }],
      groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    });
    const broker = cl.brokers[0]!;
    const queues = cl.routes.topicQueues(0);
    cl.start();
    let heldMax = 0;
    for (let k = 1; k <= 120; k++) {
      // Just before the tick at k s: its floor f is at least G's committed offset c now (the committed
      // offset only grows, and G's cache, workers and pulls are all past it). After the tick the store
      // holds ⌈max / CHUNK⌉ − ⌊f / CHUNK⌋ ≤ ⌈(max − c) / CHUNK⌉ + 1 chunks.
      cl.sched.runUntil(k * S - 1);
      const committed = queues.map((mq) => Math.max(0, broker.offsets.queryOffset(G, mq)));
      cl.sched.runUntil(k * S);
      cl.settle();
      queues.forEach((mq, i) => {
        const q = broker.store.queue(mq);
        const backlog = q.maxOffset - committed[i]!;
        expect(q.chunksHeld, `queue ${mq} at ${k} s`).toBeLessThanOrEqual(Math.ceil(backlog / CHUNK) + 1);
        heldMax = Math.max(heldMax, q.chunksHeld);
      });
    }
    for (const mq of queues) expect(broker.store.queue(mq).maxOffset).toBe(300_000);
    checkRun(cl, rec); // cache counters, committed offsets, conservation: nothing freed was still needed
    // G keeps up, so its backlog stays within a chunk or two, and so do the chunks held.
    expect(heldMax).toBeLessThanOrEqual(3);
  });
});

describe("StorageReclaimer: reclaiming memory never changes what a client can read", () => {
  /** Runs `input` with the reclaimer working, and again with reclaim() a no-op (a mutant via configure). */
  function withAndWithout(input: ScenarioInput) {
    const on = simulate(input);
    const off = simulate(input, { configure: (cl) => { cl.reclaimer.reclaim = () => {}; } });
    return { on, off };
  }
  const load = (faults: unknown[]): ScenarioInput => ({
    name: "rewind", duration: "120s", network: { latency: "1ms" }, brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1000, arrival: "uniform" } }],
    groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults,
  });

  it("a consumer that keeps up gives the same trace with and without reclamation, though 29 chunks were freed", () => {
    const { on, off } = withAndWithout(load([]));
    const store = (r: typeof on) => r.cluster.brokers[0]!.store.queue(r.cluster.routes.topicQueues(0)[0]!);
    // 120 000 messages: the committed offset ends in chunk ⌊~120 000 / 4096⌋ = 29, so 29 chunks go.
    expect(store(on).liveFrom).toBe(29 * CHUNK);
    expect(store(off).liveFrom).toBe(0);
    expect(on.traceHash).toBe(off.traceHash);
    expect(on.summary.messages).toEqual(off.summary.messages);
  });

  // Issue 11, defect 1: reclaiming used to raise the queue's min offset to the first offset still stored,
  // so this rewind (offsetIllegal with nextBeginOffset "min" at 40 s, retention having deleted nothing)
  // went to ~3 100 instead of 0. Now it goes to 0: the ~40 000 messages consumed by 40 s come back as
  // duplicates, exactly as without reclamation.
  it("an offset moved to the queue's min offset re-reads from 0, as it would without reclamation", () => {
    const { on, off } = withAndWithout(load([{ kind: "offsetIllegal", at: "40s", target: "T@b#0", nextBeginOffset: "min" }]));
    expect(on.summary.messages.duplicates).toBe(off.summary.messages.duplicates);
    expect(on.summary.messages.duplicates).toBeGreaterThan(39_000);
    expect(on.traceHash).toBe(off.traceHash);
    expect(on.cluster.brokers[0]!.store.queue(on.cluster.routes.topicQueues(0)[0]!).rebuilds).toBeGreaterThan(0);
  });

  it("a rewind over chunks whose producer draws were broken (writes redirected by a read-only broker, a seeded backlog) reads the same", () => {
    // Two brokers, one queue each, a 10 000-message backlog per queue (kept columns: no draw replays it),
    // b read-only from 20 s to 30 s (its queue's draws break, c's queue takes foreign messages), then G
    // rewound to min (0) on both queues at 60 s: every chunk kind is rebuilt and must read as first stored.
    const input: ScenarioInput = {
      name: "rewind-mixed", duration: "100s", network: { latency: "1ms" }, brokers: [{ name: "b" }, { name: "c" }],
      topics: [{ name: "T", brokers: ["b", "c"], queuesPerBroker: 1, produce: { rate: 2000, backlog: 10_000, tags: { A: 1, B: 2 }, bodyBytes: { dist: "uniform", min: 100, max: 2000 } } }],
      groups: [{ name: "G", subscribe: { T: "A" }, listener: { consumeTime: "1ms" } }],
      faults: [
        { kind: "brokerReadOnly", at: "20s", target: "b", for: "10s" },
        { kind: "offsetIllegal", at: "60s", target: "T@b#0", nextBeginOffset: "min" },
        { kind: "offsetIllegal", at: "60s", target: "T@c#0", nextBeginOffset: "min" },
      ],
    };
    const { on, off } = withAndWithout(input);
    let rebuilds = 0;
    for (const b of on.cluster.brokers) for (const mq of on.cluster.routes.queuesOf(b.index)) rebuilds += b.store.queue(mq).rebuilds;
    expect(rebuilds).toBeGreaterThan(10);
    expect(on.summary.messages.duplicates).toBeGreaterThan(30_000);
    expect(on.summary.messages).toEqual(off.summary.messages);
    expect(on.traceHash).toBe(off.traceHash);
  });

  it("a consumer far behind: the backlog above it is reclaimed beyond the budget, re-created when reached, and reads the same", () => {
    // 4 000 msg/s into one queue, G consumes ~1 000 msg/s (one thread, 1 ms): after 60 s the backlog is
    // ~180 000 messages = 44 chunks, far above the budget of 8. The store holds only the chunks the pull
    // reads next (and the open one); the trace is the same as when everything is kept.
    const input: ScenarioInput = {
      name: "behind", duration: "60s", network: { latency: "1ms" }, brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 4000, tags: { A: 1, B: 1 } } }],
      groups: [{ name: "G", subscribe: { T: "*" }, config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "1ms" } }],
    };
    const { on, off } = withAndWithout(input);
    const q = (r: typeof on) => r.cluster.brokers[0]!.store.queue(r.cluster.routes.topicQueues(0)[0]!);
    expect(q(on).maxOffset - on.summary.messages.consumed).toBeGreaterThan(150_000);
    expect(q(off).chunksHeld).toBeGreaterThan(40);
    expect(q(on).chunksHeld).toBeLessThanOrEqual(LIVE_CHUNK_BUDGET + 3);
    expect(q(on).rebuilds).toBeGreaterThan(0);
    expect(on.traceHash).toBe(off.traceHash);
    expect(on.summary.messages).toEqual(off.summary.messages);
  });
});

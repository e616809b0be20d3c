// Sampler: reads the cluster and the books into gauges and a time series, and changes nothing in the
// model (STYLE.md, "Observers observe"). The first tests sample a real run as often as they like and
// compare everything the model holds before and after; the gauge tests set up a cluster whose lags and
// caches follow from its configuration, and check each figure against that arithmetic.
import { describe, expect, it } from "vitest";
import { checkRun } from "../checks/invariants.ts";
import { Cluster } from "../model/Cluster.ts";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { Recorder } from "./Recorder.ts";
import { Sampler } from "./Sampler.ts";

const S = 1_000_000;
const MS = 1000;
const G = 0;
const H = 1;

function build(input: ScenarioInput) {
  const model = normalizeScenario(input);
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const cl = new Cluster(model, rec, { routes });
  return { cl, rec };
}

/**
 * Two queues of T, each holding 1000 messages of 1 KiB at t = 0; group G has two instances (one queue
 * each), one consume thread per instance, 1 s per message, pullThresholdForQueue 100. An instance pulls
 * 32 (pullBatchSize) at a time until more than 100 are cached: 4 pulls, next offset 128; it pulls again
 * only after 28 more are consumed, at 1 msg/s well after 10.5 s. By 10.5 s each instance has consumed
 * offsets 0–9 and has offset 10 in its worker: 128 − 10 = 118 cached (the one in the worker included),
 * 117 of them waiting in its consume queue. Instance 0 also owns %RETRY%G's one queue, empty.
 */
const SLOW: ScenarioInput = {
  name: "slow", network: { latency: "1ms" }, brokers: [{ name: "b" }],
  topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 2, produce: { rate: 0, backlog: 1000, bodyBytes: "1KiB" } }],
  groups: [{
    name: "G", instances: 2, subscribe: { T: "*" },
    config: { consumeThreadMin: 1, consumeThreadMax: 1, pullThresholdForQueue: 100 }, listener: { consumeTime: "1s" },
  }],
};
const BACKLOG = 1000;
const NEXT_OFFSET = 4 * 32;
const CONSUMED = 10;
const CACHED = NEXT_OFFSET - CONSUMED;
const KIB = 1024;

function slowAt(tUs: number) {
  const { cl, rec } = build(SLOW);
  cl.start();
  cl.sched.runUntil(tUs);
  cl.settle();
  checkRun(cl, rec);
  return { cl, rec, queues: cl.routes.topicQueues(0), broker: cl.brokers[0]! };
}

/** Everything of the model an observer could disturb, and the books' counters. */
function snapshot(cl: Cluster, rec: Recorder) {
  return {
    traceHash: cl.trace.hash(),
    events: cl.sched.eventsRun,
    pending: cl.sched.pending,
    nextEventUs: cl.sched.peekTimeUs(),
    nowUs: cl.sched.nowUs,
    stores: cl.brokers.map((b) => cl.routes.queuesOf(b.index).map((mq) => {
      const q = b.store.queue(mq);
      return [mq, q.minOffset, q.maxOffset, q.chunksHeld];
    })),
    committed: cl.model.groups.map((g) => cl.routes.queues.map((q) => cl.brokers[q.brokerIndex]!.offsets.queryOffset(g.index, q.index))),
    consumers: cl.incarnations.map((c) => ({
      alive: c.alive,
      pqs: c.rebalance.processQueues().map(([mq, pq]) => [mq, pq.msgCount, pq.msgSize, pq.firstKey, pq.lastKey]),
      offsets: c.offsetStore.entries(),
      pulls: c.pullRequests.map((pr) => [pr.mq, pr.nextOffset, pr.inFlight, pr.reqOffset]),
      busy: c.consumeService.busyWorkers,
      queued: c.consumeService.queueLength,
    })),
    books: { groups: rec.groups.map((g) => ({ ...g })), produced: rec.producedTotal, sentBack: rec.sentBackTotal },
  };
}

describe("Sampler: an observer that reads and never changes the model", () => {
  // SLOW for 30 s, with a listener failing a fifth of its attempts so the retry queue is in play too.
  const scenario: ScenarioInput = {
    ...SLOW, duration: "30s",
    groups: [{ ...SLOW.groups[0]!, listener: { consumeTime: "1s", failureProbability: 0.2 } }],
  };

  it("extra samples and gauges at the end of a run leave the trace, the events, the stores, the offsets and the caches as they were", () => {
    let captured: { cl: Cluster; rec: Recorder } | null = null;
    const r = simulate(scenario, { configure: (cl, rec) => { captured = { cl, rec }; } });
    const { cl, rec } = captured!;
    expect(r.cluster).toBe(cl);
    expect(r.summary.messages.sentBack).toBeGreaterThan(0);
    const before = snapshot(cl, rec);
    const sampler = new Sampler(cl, rec);
    for (let i = 0; i < 3; i++) {
      sampler.sample();
      sampler.gauges();
    }
    expect(snapshot(cl, rec)).toEqual(before);
    // It did read the cluster: three rows, each with the cache and lag it found.
    expect(sampler.series.columns.tSec).toEqual([30, 30, 30]);
    expect(sampler.series.columns.cached[0]).toBeGreaterThan(0);
    expect(sampler.series.columns.lagCommitted[0]).toBeGreaterThan(0);
  });

  it("a second sampler sampling every 100 ms during the run (between events) leaves its trace hash, events and messages unchanged", () => {
    const plain = simulate(scenario, { sliceUs: 100 * MS, onProgress: () => {} });
    let extra: Sampler | null = null;
    const observed = simulate(scenario, {
      sliceUs: 100 * MS,
      configure: (cl, rec) => { extra = new Sampler(cl, rec); },
      onProgress: () => {
        extra!.sample();
        extra!.gauges();
      },
    });
    // 30 s / 100 ms = 300 samples. (The two samplers share the recorder's end-to-end interval histogram,
    // so the series differ; the model must not.)
    expect(extra!.series.columns.tSec).toHaveLength(300);
    expect(observed.traceHash).toBe(plain.traceHash);
    expect(observed.summary.events).toBe(plain.summary.events);
    expect(observed.summary.messages).toEqual(plain.summary.messages);
  });
});

describe("Sampler.gauges: lags", () => {
  /**
   * Ten messages a second into one queue, offset k born at (k + 1) × 100 ms, retention 10 s; groups G
   * and H subscribe it and never start. At 20 s: 200 stored (born ≤ 20 s ⇔ k ≤ 199) and retention has
   * deleted those born before 10 s (k ≤ 98): minOffset 99.
   */
  function retained() {
    const { cl, rec } = build({
      name: "retention", network: { latency: "1ms" }, brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, retention: "10s", produce: { rate: 10, arrival: "uniform" } }],
      groups: [{ name: "G", subscribe: { T: "*" }, startAt: "10h" }, { name: "H", subscribe: { T: "*" }, startAt: "10h" }],
    });
    cl.start();
    cl.sched.runUntil(20 * S);
    cl.settle();
    checkRun(cl, rec);
    const mq = cl.routes.topicQueues(0)[0]!;
    return { cl, rec, mq, broker: cl.brokers[0]!, store: cl.brokers[0]!.store.queue(mq) };
  }

  it("lagCommitted counts from a group's committed offset, or from the queue's minOffset when it has none", () => {
    const { cl, rec, mq, broker, store } = retained();
    expect([store.minOffset, store.maxOffset]).toEqual([99, 200]);
    const sampler = new Sampler(cl, rec);
    // Neither group has an offset: 2 × (200 − 99).
    expect(sampler.gauges().lagCommitted).toBe(202);
    broker.offsets.commitOffset(H, mq, 150, 0, cl.sched.nowUs);
    // G from minOffset, H from its committed 150: 101 + 50.
    const g = sampler.gauges();
    expect(g.lagCommitted).toBe(151);
    // Without any ProcessQueue, the unpulled lag starts where the committed one does.
    expect(g.lagUnpulled).toBe(151);
    expect(g).toMatchObject({ cached: 0, queuesOwned: 0, poolBusy: 0 });
  });

  it("lagUnpulled counts from the pull request's next offset of each queue's ProcessQueue", () => {
    const { cl, rec, queues, broker } = slowAt(10.5 * S);
    for (const mq of queues) {
      const owner = cl.consumers.find((c) => c.rebalance.pullRequestOf(mq) !== undefined)!;
      expect(owner.rebalance.pullRequestOf(mq)!.nextOffset).toBe(NEXT_OFFSET);
    }
    const g = new Sampler(cl, rec).gauges();
    expect(g.lagUnpulled).toBe(2 * (BACKLOG - NEXT_OFFSET));
    // The committed lag counts from the broker's offset, at most the first cached message (offset 10):
    // it covers at least the unpulled and the cached messages.
    const committed = queues.map((mq) => broker.offsets.queryOffset(G, mq));
    for (const c of committed) expect(c).toBeLessThanOrEqual(CONSUMED);
    expect(g.lagCommitted).toBe(committed.reduce((a, c) => a + BACKLOG - Math.max(0, c), 0));
    expect(g.lagCommitted).toBeGreaterThanOrEqual(g.lagUnpulled + g.cached);
  });
});

describe("Sampler.gauges: caches and the consume pool", () => {
  it("cache figures sum every instance's ProcessQueues: count, bytes, per-queue and per-instance maxima, queues owned", () => {
    const { cl, rec } = slowAt(10.5 * S);
    const g = new Sampler(cl, rec).gauges();
    expect(g).toMatchObject({
      cached: 2 * CACHED,
      cachedBytes: 2 * CACHED * KIB,
      cachedPerQueueMax: CACHED,
      cachedBytesPerQueueMax: CACHED * KIB,
      cachedPerConsumerMax: CACHED,
      cachedBytesPerConsumerMax: CACHED * KIB,
      queuesOwned: 3, // two queues of T and the retry queue
    });
  });

  it("the pool figures count each live instance's busy worker and the tasks waiting for it", () => {
    const { cl, rec } = slowAt(10.5 * S);
    const g = new Sampler(cl, rec).gauges();
    expect(g.poolBusy).toBe(2);
    expect(g.poolQueued).toBe(2 * (CACHED - 1));
  });

  it("a dead incarnation's workers are not counted busy, nor its tasks queued, nor its dropped cache", () => {
    const { cl, rec, queues, broker } = slowAt(10.5 * S);
    const dead = cl.consumers[1]!;
    dead.crash("vanished");
    // Its worker is still inside the listener call as far as its own service knows.
    expect(dead.consumeService.busyWorkers).toBe(1);
    const sampler = new Sampler(cl, rec);
    const g = sampler.gauges();
    expect(g).toMatchObject({ poolBusy: 1, poolQueued: CACHED - 1, cached: CACHED, queuesOwned: 2 });
    // Its queue now counts unpulled from the committed offset.
    const committed1 = Math.max(0, broker.offsets.queryOffset(G, queues[1]!));
    expect(g.lagUnpulled).toBe(BACKLOG - NEXT_OFFSET + (BACKLOG - committed1));
    sampler.sample();
    expect(sampler.series.perConsumer.map((row) => row.poolBusy)).toEqual([[1], [0]]);
    expect(sampler.series.perConsumer.map((row) => row.queues)).toEqual([[2], [0]]);
  });
});

describe("Sampler: series preallocated for the samples expected", () => {
  /** Every series of a sampler, by name, without the end-to-end ones (two samplers share that histogram). */
  function allSeries(s: Sampler): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const [k, v] of Object.entries(s.series.columns)) if (!k.startsWith("endToEnd")) out[k] = v;
    s.series.perQueue.forEach((q) => (out[`cached:${q.label}`] = q.cached));
    s.series.perConsumer.forEach((c) => {
      out[`cachedBytes:${c.clientId}`] = c.cachedBytes;
      out[`cached:${c.clientId}`] = c.cached;
      out[`queues:${c.clientId}`] = c.queues;
      out[`poolBusy:${c.clientId}`] = c.poolBusy;
    });
    return out;
  }

  it("hold, once finished, exactly the samples a growing sampler holds — fewer taken than expected, or more", () => {
    const { cl, rec } = build(SLOW);
    const grown = new Sampler(cl, rec);
    const short = new Sampler(cl, rec, 10); // the run ends before its 10th sample
    const over = new Sampler(cl, rec, 2); // more samples than expected: the rest are appended
    cl.start();
    for (const t of [2.5, 5, 7.5, 10.5]) {
      cl.sched.runUntil(t * S);
      cl.settle();
      for (const s of [grown, short, over]) s.sample();
    }
    // Before finish the preallocated one is still 10 long; finish cuts it to the 4 taken.
    expect(short.series.columns.tSec).toHaveLength(10);
    for (const s of [grown, short, over]) s.finish();
    expect(grown.series.columns.tSec).toEqual([2.5, 5, 7.5, 10.5]);
    // The samples are the run's, not the fill value: at 10.5 s the cache SLOW's arithmetic gives.
    expect(grown.series.columns.cached[3]).toBe(2 * CACHED);
    for (const s of [short, over]) {
      expect(allSeries(s)).toEqual(allSeries(grown));
      for (const v of Object.values(allSeries(s))) expect(v).toHaveLength(4);
    }
  });

  it("preallocate at most 2^23 samples over all series (64 MiB): a billion expected samples get the first part, then append", () => {
    const { cl, rec } = build(SLOW);
    const s = new Sampler(cl, rec, 1e9);
    const series = Object.keys(allSeries(s)).length + 2; // + the two end-to-end columns
    expect(s.series.columns.tSec.length).toBe(Math.floor(2 ** 23 / series));
    cl.start();
    s.sample();
    s.finish();
    expect(s.series.columns.tSec).toEqual([0]);
  });

  it("a run's series hold a sample at each multiple of sampleEvery (one at the end if the run is shorter); a run cut short, those it took", () => {
    const full = simulate({ ...SLOW, duration: "30s", sampleEvery: "7s" });
    expect(full.series.columns.tSec).toEqual([7, 14, 21, 28]);
    expect(full.series.perConsumer[0]!.cached).toHaveLength(4);
    expect(simulate({ ...SLOW, duration: "3s", sampleEvery: "7s" }).series.columns.tSec).toEqual([3]);
    const cut = simulate({ ...SLOW, duration: "30s", sampleEvery: "7s" }, { sliceUs: S, onProgress: (nowUs) => nowUs < 15 * S });
    expect(cut.summary.complete).toBe(false);
    expect(cut.series.columns.tSec).toEqual([7, 14]);
    for (const v of Object.values(allSeries({ series: cut.series } as Sampler))) expect(v).toHaveLength(2);
  });
});

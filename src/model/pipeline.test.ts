// Scenario tests through simulate(), the CLI's entry point. Every run also passes the conservation
// check and the invariant checkers (simulate throws otherwise). Expected numbers are derived from the
// mechanics in the comments, not copied from output.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

type Patch = Partial<ScenarioInput> & { topic?: Record<string, unknown>; group?: Record<string, unknown> };

function scenario(p: Patch = {}): ScenarioInput {
  const { topic, group, ...rest } = p;
  return {
    name: "t",
    seed: 1,
    duration: "60s",
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 4, produce: { rate: 1000 }, ...topic }],
    groups: [{ name: "G", instances: 1, subscribe: { T: "*" }, ...group }],
    ...rest,
  } as ScenarioInput;
}

const MiB = 1024 * 1024;

describe("a consumer slower than production", () => {
  // 2000 msg/s into 4 queues; 4 workers × 10 ms = 400 msg/s of capacity. Each queue's cache fills to
  // the threshold; pullMessage lets a pull through at exactly 1000 cached (strict >), which can add
  // one pullBatchSize (32) batch: the cache never exceeds 1000 + 32.
  const r = simulate(scenario({
    topic: { produce: { rate: 2000 } },
    group: { config: { consumeThreadMin: 4, consumeThreadMax: 4 }, listener: { consumeTime: "10ms" } },
  }));
  const s = r.summary;

  it("keeps every queue's cache within pullThresholdForQueue + pullBatchSize", () => {
    expect(s.cache.countPerQueueMax).toBeLessThanOrEqual(1032);
    expect(s.cache.countPerQueueMax).toBeGreaterThan(1000);
  });

  it("shows count flow control and no other kind", () => {
    expect(s.flowControl.count).toBeGreaterThan(100);
    expect(s.flowControl.size).toBe(0);
    expect(s.flowControl.span).toBe(0);
  });

  it("consumes at the pool's capacity while the committed lag grows", () => {
    // 4 workers / 10 ms = 400 msg/s, minus a short ramp-up.
    expect(s.throughput.consumedPerSec.mean).toBeGreaterThan(380);
    expect(s.throughput.consumedPerSec.mean).toBeLessThanOrEqual(400);
    expect(s.lag.committed.final).toBeGreaterThan(60 * (2000 - 400) * 0.9);
    expect(s.messages.unpulled).toBeGreaterThan(0);
  });
});

describe("a message that never finishes", () => {
  // One in ~2000 first attempts hangs; at 250 msg/s per queue the first hang comes within seconds.
  // The hung message stays the smallest cached offset: the committed offset cannot pass it, and once
  // 2000 newer offsets are cached behind it, span flow control stops the queue.
  const r = simulate(scenario({ group: { listener: { consumeTime: "1ms", hangFraction: 0.0005 } } }));
  const s = r.summary;
  const cl = r.cluster;

  it("engages span flow control", () => {
    expect(s.flowControl.span).toBeGreaterThan(0);
    expect(s.perConsumer[0]!.hungWorkers).toBeGreaterThan(0);
    expect(s.perConsumer[0]!.queueMaxSpanFlowControlTimes).toBe(s.flowControl.span);
  });

  it("pins the committed offset at the hung message", () => {
    const hung: { mq: number; offset: number }[] = [];
    for (const c of cl.consumers) {
      const pqs = new Map(c.rebalance.processQueues());
      c.consumeService.forEachInFlight((mq, offset) => {
        if (cl.sched.nowUs - pqs.get(mq)!.consumeStartUs(offset) > 10_000_000) hung.push({ mq, offset });
      });
    }
    expect(hung.length).toBeGreaterThan(0);
    for (const h of hung) {
      const broker = cl.brokers[cl.routes.brokerOf(h.mq)]!;
      const store = broker.store.queue(h.mq);
      const committed = broker.offsets.queryOffset(0, h.mq);
      // Smallest hung offset on that queue bounds the commit.
      const lowest = Math.min(...hung.filter((x) => x.mq === h.mq).map((x) => x.offset));
      expect(committed).toBe(lowest);
      expect(store.maxOffset - committed).toBeGreaterThan(2000);
    }
  });
});

describe("large messages", () => {
  // 1 MiB bodies, one queue, 10 msg/s of consumption against 50 msg/s produced. The size check reads
  // floor(msgSize / MiB) > 100, so it first trips with 101 MiB cached; each pull returns one message
  // (over the 256 KiB in-memory batch cap, but never less than one), so the cache peaks at 101 MiB.
  const r = simulate(scenario({
    topic: { queuesPerBroker: 1, produce: { rate: 50, bodyBytes: "1MiB" } },
    group: { config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "100ms" } },
  }));
  const s = r.summary;

  it("trips size flow control at 101 MiB cached", () => {
    expect(s.flowControl.size).toBeGreaterThan(0);
    expect(s.cache.bytesPerQueueMax).toBe(101 * MiB);
    expect(s.flowControl.count).toBe(0);
  });
});

describe("a consumer lagging behind retention", () => {
  // 500 msg/s into 1 queue, 100 msg/s consumed, 20 s retention: the consumer's next offset falls
  // below minOffset, the broker answers OFFSET_TOO_SMALL → OFFSET_ILLEGAL; 4.9 fixes the offset 10 s
  // later and the queue is recreated at the next 20 s rebalance, at the new minOffset.
  const r = simulate(scenario({
    duration: "3m",
    topic: { queuesPerBroker: 1, retention: "20s", produce: { rate: 500 } },
    group: { config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "10ms" } },
  }));
  const s = r.summary;

  it("gets OFFSET_ILLEGAL", () => {
    expect(s.pulls.offsetIllegal).toBeGreaterThan(0);
  });

  it("counts the skipped messages as lost", () => {
    // Roughly (500 − 100) msg/s of the run is deleted unconsumed, less what sits in the last 20 s.
    expect(s.messages.lost).toBeGreaterThan(30_000);
    const m = s.messages;
    expect(m.consumed + m.lost + m.inFlight + m.cached + m.unpulled + m.retrying + m.dlq + m.filtered).toBe(m.produced);
  });
});

describe("a poison message", () => {
  // One message in the queue, failing every attempt. Each failure sends it back with level 3 + rt:
  // 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h, then the 17th failure goes to the DLQ.
  const r = simulate(
    scenario({
      duration: "5h",
      topic: { queuesPerBroker: 1, produce: { rate: 0, backlog: 1 } },
      group: { listener: { consumeTime: "1ms", poisonFraction: 1 } },
    }),
    { captureTrace: (cl) => (type) => cl.trace.typeName(type) === "consumeStart" },
  );
  const s = r.summary;
  const levelsS = [10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200];

  it("is delivered 17 times and lands in the DLQ", () => {
    expect(r.trace.length).toBe(17);
    expect(s.messages.dlq).toBe(1);
    expect(s.messages.consumed).toBe(0);
    expect(s.messages.sentBack).toBe(17);
  });

  it("is re-delivered at the delay-level schedule", () => {
    const starts = r.trace.map((t) => t.tUs);
    for (let i = 1; i < starts.length; i++) {
      const gapS = (starts[i]! - starts[i - 1]!) / 1e6;
      // The delay plus a few network hops and the 1 ms listener call.
      expect(gapS).toBeGreaterThanOrEqual(levelsS[i - 1]!);
      expect(gapS).toBeLessThan(levelsS[i - 1]! + 0.1);
    }
  });
});

describe("consumeThreadMax", () => {
  // §6: the pool's queue is unbounded, so Java never starts threads beyond consumeThreadMin.
  const base = { topic: { produce: { rate: 3000 } }, group: { listener: { consumeTime: "10ms" }, config: {} } };
  const a = simulate(scenario({ ...base, duration: "20s", group: { ...base.group, config: { consumeThreadMin: 20, consumeThreadMax: 20 } } }));
  const b = simulate(scenario({ ...base, duration: "20s", group: { ...base.group, config: { consumeThreadMin: 20, consumeThreadMax: 200 } } }));

  it("raising it alone does not change throughput", () => {
    expect(b.summary.throughput).toEqual(a.summary.throughput);
    expect(b.traceHash).toBe(a.traceHash);
    // …while the pool really is the bottleneck: 20 workers / 10 ms = 2000 msg/s < 3000 produced.
    expect(a.summary.throughput.consumedPerSec.mean).toBeLessThanOrEqual(2000);
  });
});

describe("determinism", () => {
  const run = (seed: number) => simulate(scenario({ seed, duration: "20s", group: { instances: 2, listener: { failureProbability: 0.01 } } }));

  it("equal seeds give equal trace hashes and summaries", () => {
    const a = run(5);
    const b = run(5);
    expect(a.traceHash).toBe(b.traceHash);
    expect(JSON.stringify(a.summary)).toBe(JSON.stringify(b.summary));
  });

  it("different seeds give different trace hashes", () => {
    expect(run(5).traceHash).not.toBe(run(6).traceHash);
  });
});

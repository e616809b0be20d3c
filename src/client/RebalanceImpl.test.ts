// RebalanceService / RebalanceImpl / RebalancePushImpl (spec §10.1, §10.3, §10.4, acceptance values of
// §15.3) driven through real rebalances of a tiny world: one broker, topic T with 1–4 queues, rate 0,
// network 1 ms each way. Every consumer also owns queues of %RETRY%G (one queue per broker, given to
// the first consumer in cid order), and they count in messageQueueChanged's divisor.
//
// Timeline of a 4.9 start with 1 ms links: heartbeat reaches the broker at 1 ms, its reply at 2 ms wakes
// the rebalance; %RETRY%G (sorted before "T") gets its offset answer at 4 ms, T at 6 ms.
import { describe, expect, it } from "vitest";
import { DROP_REASON, LATER_REASON } from "../model/kinds.ts";
import type { World } from "../model/World.ts";
import {
  MS,
  TOPIC_T,
  advanceTo,
  bodies,
  cache,
  manualPullRequest,
  range,
  records,
  recordsOn,
  tinyWorld,
  type TinyScenario,
} from "./testWorld.ts";

/** Starts the world and runs it until the first rebalance is over. */
function started(s: TinyScenario, untilUs = 100 * MS): World {
  const w = tinyWorld(s);
  w.start();
  advanceTo(w, untilUs);
  return w;
}

describe("messageQueueChanged thresholds (§10.4, values of §15.3)", () => {
  it.each([
    // [T's queues → table size with %RETRY%G, topic threshold, per-queue value after the rebalance]
    [1, -1, 1024],
    [1, 1024, 512],
    [2, 1024, 341],
  ])("messageQueueChanged: pullThresholdForQueue 1024 with T on %i queue(s) (+1 %%RETRY%% queue) and pullThresholdForTopic %i becomes %i", (queues, topic, expected) => {
    const w = started({ queues, config: { pullThresholdForQueue: 1024, pullThresholdForTopic: topic } });
    const c = w.consumers[0]!;
    expect(c.rebalance.queueCount).toBe(queues + 1);
    expect(c.config.pullThresholdForQueue).toBe(expected);
    // One change per topic: %RETRY%G first (table of 1: 1024 / 1), then T.
    expect(records(w, "thresholdChanged").map((r) => r.pullThresholdForQueue)).toEqual(topic === -1 ? [1024, 1024] : [1024, expected]);
  });

  it.each([
    [1, -1, 1024],
    [1, 1024, 512],
    [2, 1024, 341],
  ])("messageQueueChanged: pullThresholdSizeForQueue 1024 MiB with T on %i queue(s) (+1 %%RETRY%% queue) and pullThresholdSizeForTopic %i becomes %i", (queues, topic, expected) => {
    const w = started({ queues, config: { pullThresholdSizeForQueue: 1024, pullThresholdSizeForTopic: topic } });
    const c = w.consumers[0]!;
    expect(c.config.pullThresholdSizeForQueue).toBe(expected);
    expect(c.config.pullThresholdForQueue).toBe(1000); // the count threshold is left alone
    expect(records(w, "thresholdChanged").at(-1)!.pullThresholdSizeForQueue).toBe(expected);
  });

  it("messageQueueChanged: a topic threshold smaller than the table gives 1, never 0", () => {
    const w = started({ queues: 2, config: { pullThresholdForTopic: 1, pullThresholdSizeForTopic: 2 } });
    const c = w.consumers[0]!;
    expect([c.config.pullThresholdForQueue, c.config.pullThresholdSizeForQueue]).toEqual([1, 1]);
  });

  it("messageQueueChanged: the divided threshold governs the next pullMessage of every queue", () => {
    const w = started({ queues: 1, config: { pullThresholdForTopic: 1024 } });
    const c = w.consumers[0]!;
    expect(c.config.pullThresholdForQueue).toBe(512);
    const over = manualPullRequest(w, c);
    cache(over.pq, range(0, 513), bodies(10));
    c.pullMessage(over);
    const atLimit = manualPullRequest(w, c);
    cache(atLimit.pq, range(0, 512), bodies(10));
    w.trace.clearCaptured();
    c.pullMessage(atLimit);
    expect(records(w, "pullSent")).toHaveLength(1);
    expect(c.queueFlowControlTimes).toBe(1); // only the request with 513 cached
  });

  it("messageQueueChanged: with two consumers each divides by its own table, the retry queue counting for the first only", () => {
    // 4 queues of T split 2 + 2 (Averagely); %RETRY%G goes to the first cid: tables of 3 and 2.
    const w = started({ instances: 2, queues: 4, config: { pullThresholdForTopic: 1024 } }, 1000 * MS);
    const [c0, c1] = [w.consumers[0]!, w.consumers[1]!];
    expect([c0.rebalance.queueCount, c1.rebalance.queueCount]).toEqual([3, 2]);
    expect([c0.config.pullThresholdForQueue, c1.config.pullThresholdForQueue]).toEqual([341, 512]);
  });

  it("messageQueueChanged: bumps the topic's subVersion to now and heartbeats it to the broker", () => {
    const w = started({ queues: 1 });
    const c = w.consumers[0]!;
    const changedAt = records(w, "pqCreated").find((r) => r.mq === w.topicQueues(TOPIC_T)[0])!.tUs;
    // Heartbeat answered at 2 ms; per topic (%RETRY%G first) a GET_CONSUMER_LIST round trip then an
    // offset-query round trip, 1 ms each way: %RETRY%G's queue at 6 ms, T's at 10 ms.
    expect(changedAt).toBe(10 * MS);
    expect(c.subVersionOf(TOPIC_T)).toBe(10);
    expect(w.brokers[0]!.subVersions.get(0)!.get(TOPIC_T)).toBe(10);
  });
});

describe("RebalanceService (§10.1)", () => {
  it("RebalanceService (4.9): the first rebalance runs as soon as the start heartbeat is answered", () => {
    const w = started({ profile: "4.9" });
    // Starts at 2 ms (heartbeat answered); two topics × (consumer-list + offset-query round trips).
    expect(records(w, "rebalance").map((r) => r.tUs)).toEqual([10 * MS]);
    expect(records(w, "pqCreated")[0]!.tUs).toBe(6 * MS);
  });

  it("RebalanceService (5.x): the first rebalance waits for minInterval (1000 ms) after the service started", () => {
    const w = started({ profile: "5.x" }, 2000 * MS);
    // Woken at 2 ms, it waits the remaining 998 ms; then, two round trips per topic, %RETRY%G's queue
    // at 1004 ms and T's at 1008 ms.
    expect(records(w, "pqCreated").map((r) => r.tUs)).toEqual([1004 * MS, 1008 * MS]);
  });

  it("RebalanceService: the next periodic rebalance comes 20 s after the last one", () => {
    const w = started({ profile: "4.9" }, 30_000 * MS);
    // The record is written when a run ends: the second starts 20 s after the first ended (10 ms) and
    // takes its two consumer-list round trips (nothing new to create).
    expect(records(w, "rebalance").map((r) => r.tUs)).toEqual([10 * MS, 20_014 * MS]);
  });
});

describe("rebalanceByTopic: dispatchPullRequest (§10.3)", () => {
  it("dispatchPullRequest (4.9): a new queue's first pull is sent the moment its ProcessQueue is created", () => {
    const w = started({ profile: "4.9", queues: 2 });
    const created = records(w, "pqCreated");
    expect(created).toHaveLength(3);
    for (const pc of created) {
      expect(recordsOn(w, "pullSent", pc.mq as number).map((r) => [r.tUs, r.offset])).toEqual([[pc.tUs, pc.nextOffset]]);
    }
    expect(records(w, "pullLater")).toEqual([]);
  });

  it("dispatchPullRequest (5.x): a new queue's first pull is re-scheduled after 500 ms", () => {
    const w = started({ profile: "5.x", queues: 2 }, 2000 * MS);
    const created = records(w, "pqCreated");
    expect(created).toHaveLength(3);
    for (const pc of created) {
      const mq = pc.mq as number;
      expect(recordsOn(w, "pullLater", mq).map((r) => [r.tUs, r.delayMs, r.reason])).toEqual([[pc.tUs, 500, LATER_REASON.newQueue]]);
      expect(recordsOn(w, "pullSent", mq).map((r) => [r.tUs, r.offset])).toEqual([[(pc.tUs as number) + 500 * MS, pc.nextOffset]]);
    }
  });
});

describe("updateProcessQueueTableInRebalance (§10.3, §10.5)", () => {
  function expire(w: World, lastPullAgoUs: number) {
    const c = w.consumers[0]!;
    const mq = w.topicQueues(TOPIC_T)[0]!;
    const pq = c.rebalance.processQueues().find(([q]) => q === mq)![1];
    const prId = c.rebalance.pullRequestOf(mq)!;
    // The pull loop of this sim never dies on its own (every branch re-enqueues or the pq is removed),
    // so the silent death RocketMQ logs as "[BUG] pull is pause" is staged by ageing the stamp.
    // T is rebalanced after %RETRY%G's and its own GET_CONSUMER_LIST round trips: 4 ms after the
    // wake-up, which is when the age is measured.
    pq.lastPullTimestampUs = w.sched.nowUs + 4 * MS - lastPullAgoUs;
    const at = w.sched.nowUs;
    c.rebalance.wakeup();
    advanceTo(w, at + 50 * MS);
    return { c, mq, pq, prId, at };
  }

  it("updateProcessQueueTableInRebalance: a pq with no pull for more than 120 s is dropped and recreated with a new pull request", () => {
    const w = started({ profile: "4.9" });
    const { c, mq, pq, prId, at } = expire(w, 120_000 * MS + 1);
    expect(recordsOn(w, "pqDropped", mq)).toEqual([{ tUs: at + 4 * MS, type: "pqDropped", mq, consumer: 0, reason: DROP_REASON.pullExpired }]);
    expect(pq.dropped).toBe(true);
    const created = recordsOn(w, "pqCreated", mq);
    expect(created.map((r) => r.tUs)).toEqual([10 * MS, at + 6 * MS]); // then the offset query round trip
    const fresh = c.rebalance.processQueues().find(([q]) => q === mq)![1];
    expect(fresh).not.toBe(pq);
    expect(fresh.dropped).toBe(false);
    const newPrId = c.rebalance.pullRequestOf(mq)!;
    expect(newPrId).not.toBe(prId);
    expect(w.pullRequests[newPrId]!.pq).toBe(fresh);
    expect(recordsOn(w, "pullSent", mq).map((r) => r.tUs)).toEqual([10 * MS, at + 6 * MS]);
  });

  it("updateProcessQueueTableInRebalance: exactly 120 s without a pull is not yet expired (strict >)", () => {
    const w = started({ profile: "4.9" });
    const { c, mq, pq } = expire(w, 120_000 * MS);
    expect(recordsOn(w, "pqDropped", mq)).toEqual([]);
    expect(pq.dropped).toBe(false);
    expect(c.rebalance.processQueues().find(([q]) => q === mq)![1]).toBe(pq);
  });

  it("removeUnnecessaryMessageQueue: a queue taken by a joining consumer is dropped, its offset persisted and forgotten, and the newcomer starts there", () => {
    const w = tinyWorld({ instances: 2, queues: 4 });
    // Consumer 0 starts at 0; consumer 1 joins at 5 s (started by hand instead of World#start).
    const k = w.kinds;
    w.sched.scheduleAt(0, k.consumerStart, 0);
    w.sched.scheduleAt(5000 * MS, k.consumerStart, 1);
    advanceTo(w, 100 * MS);
    const [c0, c1] = [w.consumers[0]!, w.consumers[1]!];
    const qs = w.topicQueues(TOPIC_T);
    expect(c0.rebalance.queueCount).toBe(5); // alone: all 4 of T and the retry queue
    c0.offsetStore.updateOffset(qs[2]!, 7, false);
    advanceTo(w, 5100 * MS);
    expect(c0.rebalance.queueCount).toBe(3);
    expect(records(w, "pqDropped").map((r) => [r.mq, r.consumer, r.reason])).toEqual([
      [qs[2], 0, DROP_REASON.notAssigned],
      [qs[3], 0, DROP_REASON.notAssigned],
    ]);
    expect(c0.offsetStore.readOffset(qs[2]!)).toBe(-1);
    expect(w.brokers[0]!.queryOffset(0, qs[2]!)).toBe(7);
    expect(c1.rebalance.queueCount).toBe(2);
    expect(records(w, "pqCreated").filter((r) => r.consumer === 1).map((r) => [r.mq, r.nextOffset])).toEqual([
      [qs[2], 7],
      [qs[3], 0],
    ]);
  });
});

// RebalanceService / RebalanceImpl / RebalancePushImpl (spec §10.1, §10.3, §10.4, acceptance values of
// §15.3) driven through real rebalances of one consumer of a tiny scenario: one broker, topic T with 1–4
// queues, rate 0. playBroker plays the broker with 1 ms links: it answers the heartbeat, the consumer list
// (this consumer alone unless a test says otherwise) and the offset queries (nothing stored, empty
// queues), and holds every pull for its 15 s suspend time-out (nothing is new). Every consumer also owns queues of %RETRY%G (one queue per broker, given
// to the first consumer in cid order), and they count in messageQueueChanged's divisor.
//
// Timeline of a 4.9 start with 1 ms links: the heartbeat's answer at 2 ms wakes the rebalance; %RETRY%G
// (sorted before "T") gets its offset answer at 6 ms, T at 10 ms.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import {
  GetConsumerListResponse, NotifyConsumerIdsChangedRequest, QueryConsumerOffsetResponse,
  type HeartbeatRequest, type PullMessageRequest, type QueryConsumerOffsetRequest,
} from "../protocol/commands.ts";
import { QUERY_SLOT_SPAN } from "./RebalanceImpl.ts";
import { ClientTimer } from "./timers.ts";
import { DROP_REASON, LATER_REASON } from "./trace.ts";
import {
  MS, TOPIC_T, cache, committedOffset, deliver, manualPullRequest, offsetCommits, playBroker, queueOfT, range,
  requestsOf, sentOf, tableQueue, tinyConsumer, tinyModel, type BrokerPlay, type ConsumerBench, type TinyScenario,
} from "./testConsumer.ts";

/** Starts the consumer and plays the broker until the first rebalance is over. */
function started(s: TinyScenario, untilUs = 100 * MS, play: BrokerPlay = {}): ConsumerBench {
  const b = tinyConsumer(s);
  b.c.start();
  playBroker(b, untilUs, play);
  return b;
}

/** The PULL_MESSAGE requests sent on `mq`, as [sent time, queueOffset]. */
function pullsSent(b: ConsumerBench, mq: number): [number, number][] {
  return requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === mq).map((r) => [r.sentUs, r.msg.queueOffset]);
}

describe("messageQueueChanged thresholds (§10.4, values of §15.3)", () => {
  it.each([
    // [T's queues → table size with %RETRY%G, topic threshold, per-queue value after the rebalance]
    [1, -1, 1024],
    [1, 1024, 512],
    [2, 1024, 341],
  ])("messageQueueChanged: pullThresholdForQueue 1024 with T on %i queue(s) (+1 retry queue) and pullThresholdForTopic %i becomes %i", (queues, topic, expected) => {
    const { c, ctx } = started({ queues, config: { pullThresholdForQueue: 1024, pullThresholdForTopic: topic } });
    expect(c.rebalance.queueCount).toBe(queues + 1);
    expect(c.config.pullThresholdForQueue).toBe(expected);
    // One change per topic: %RETRY%G first (table of 1: 1024 / 1), then T.
    expect(ctx.records("thresholdChanged").map((r) => r.pullThresholdForQueue)).toEqual(topic === -1 ? [1024, 1024] : [1024, expected]);
  });

  it.each([
    [1, -1, 1024],
    [1, 1024, 512],
    [2, 1024, 341],
  ])("messageQueueChanged: pullThresholdSizeForQueue 1024 MiB with T on %i queue(s) (+1 retry queue) and pullThresholdSizeForTopic %i becomes %i", (queues, topic, expected) => {
    const { c, ctx } = started({ queues, config: { pullThresholdSizeForQueue: 1024, pullThresholdSizeForTopic: topic } });
    expect(c.config.pullThresholdSizeForQueue).toBe(expected);
    expect(c.config.pullThresholdForQueue).toBe(1000); // the count threshold is left alone
    expect(ctx.records("thresholdChanged").at(-1)!.pullThresholdSizeForQueue).toBe(expected);
  });

  it("messageQueueChanged: a topic threshold smaller than the table gives 1, never 0", () => {
    const { c } = started({ queues: 2, config: { pullThresholdForTopic: 1, pullThresholdSizeForTopic: 2 } });
    expect([c.config.pullThresholdForQueue, c.config.pullThresholdSizeForQueue]).toEqual([1, 1]);
  });

  it("messageQueueChanged: the divided threshold governs the next pullMessage of every queue", () => {
    const b = started({ queues: 1, config: { pullThresholdForTopic: 1024 } });
    const { c, ctx } = b;
    expect(c.config.pullThresholdForQueue).toBe(512);
    const over = manualPullRequest(b);
    cache(over.pq, range(0, 513), 10);
    c.pull.pullMessage(over);
    const atLimit = manualPullRequest(b);
    cache(atLimit.pq, range(0, 512), 10);
    ctx.trace.clearCaptured();
    c.pull.pullMessage(atLimit);
    expect(ctx.records("pullSent")).toHaveLength(1);
    expect(c.queueFlowControlTimes).toBe(1); // only the request with 513 cached
  });

  it("messageQueueChanged: with two consumers each divides by its own table, the retry queue counting for the first only", () => {
    // 4 queues of T split 2 + 2 (Averagely); %RETRY%G goes to the first cid: tables of 3 and 2.
    const s: TinyScenario = { instances: 2, queues: 4, config: { pullThresholdForTopic: 1024 } };
    const model = tinyModel(s);
    const both = { consumerIds: model.groups[0]!.clientIds.slice(0, 2) };
    const [b0, b1] = [tinyConsumer(s, { model }), tinyConsumer(s, { model, instance: 1 })];
    for (const b of [b0, b1]) {
      b.c.start();
      playBroker(b, 1000 * MS, both);
    }
    expect([b0.c.rebalance.queueCount, b1.c.rebalance.queueCount]).toEqual([3, 2]);
    expect([b0.c.config.pullThresholdForQueue, b1.c.config.pullThresholdForQueue]).toEqual([341, 512]);
  });

  it("messageQueueChanged: bumps the topic's subVersion to now and heartbeats it to the broker", () => {
    const b = started({ queues: 1 });
    const { c, ctx } = b;
    const changedAt = ctx.records("pqCreated", { mq: queueOfT(b) })[0]!.tUs;
    // Heartbeat answered at 2 ms; per topic (%RETRY%G first) a GET_CONSUMER_LIST round trip then an
    // offset-query round trip, 1 ms each way: %RETRY%G's queue at 6 ms, T's at 10 ms.
    expect(changedAt).toBe(10 * MS);
    expect(c.subVersionOf(TOPIC_T)).toBe(10);
    const heartbeats = sentOf<HeartbeatRequest>(b, RequestCode.HEART_BEAT);
    expect(heartbeats.map((h) => [h.atUs, h.to])).toEqual([[6 * MS, 0], [10 * MS, 0]]);
    expect(heartbeats[1]!.msg.subscriptions.find((s) => s.topic === TOPIC_T)!.subVersion).toBe(10);
  });
});

describe("RebalanceService (§10.1)", () => {
  it("RebalanceService (4.9): the first rebalance runs as soon as the start heartbeat is answered", () => {
    const b = started({ profile: "4.9" });
    // Starts at 2 ms (heartbeat answered); two topics × (consumer-list + offset-query round trips).
    expect(requestsOf(b, RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0]!.sentUs).toBe(2 * MS);
    expect(b.ctx.records("rebalance").map((r) => r.tUs)).toEqual([10 * MS]);
    expect(b.ctx.records("pqCreated")[0]!.tUs).toBe(6 * MS);
  });

  it("RebalanceService (5.x): the first rebalance waits for minInterval (1000 ms) after the service started", () => {
    const { ctx } = started({ profile: "5.x" }, 2000 * MS);
    // Woken at 2 ms, it waits the remaining 998 ms; then, two round trips per topic, %RETRY%G's queue
    // at 1004 ms and T's at 1008 ms.
    expect(ctx.records("pqCreated").map((r) => r.tUs)).toEqual([1004 * MS, 1008 * MS]);
  });

  it("RebalanceService: the next periodic rebalance comes 20 s after the last one", () => {
    const { ctx } = started({ profile: "4.9" }, 30_000 * MS);
    // The record is written when a run ends: the second starts 20 s after the first ended (10 ms) and
    // takes its two consumer-list round trips (nothing new to create).
    expect(ctx.records("rebalance").map((r) => r.tUs)).toEqual([10 * MS, 20_014 * MS]);
  });

  it("RebalanceService: a wake-up while a rebalance runs makes the next one start as soon as it ends", () => {
    const b = started({ profile: "4.9" }, 3 * MS); // the first run is waiting for %RETRY%G's consumer list
    b.c.receive(new NotifyConsumerIdsChangedRequest(0));
    playBroker(b, 100 * MS);
    expect(b.ctx.records("rebalance").map((r) => r.tUs)).toEqual([10 * MS, 14 * MS]);
  });
});

describe("rebalanceByTopic: dispatchPullRequest (§10.3)", () => {
  it("dispatchPullRequest (4.9): a new queue's first pull is sent the moment its ProcessQueue is created", () => {
    const b = started({ profile: "4.9", queues: 2 });
    const created = b.ctx.records("pqCreated");
    expect(created).toHaveLength(3);
    for (const pc of created) expect(pullsSent(b, pc.mq as number)).toEqual([[pc.tUs, pc.nextOffset]]);
    expect(b.ctx.records("pullLater")).toEqual([]);
  });

  it("dispatchPullRequest (5.x): a new queue's first pull is re-scheduled after 500 ms", () => {
    const b = started({ profile: "5.x", queues: 2 }, 2000 * MS);
    const created = b.ctx.records("pqCreated");
    expect(created).toHaveLength(3);
    for (const pc of created) {
      const mq = pc.mq as number;
      expect(b.ctx.records("pullLater", { mq }).map((r) => [r.tUs, r.delayMs, r.reason])).toEqual([[pc.tUs, 500, LATER_REASON.newQueue]]);
      expect(pullsSent(b, mq)).toEqual([[(pc.tUs as number) + 500 * MS, pc.nextOffset]]);
    }
  });

  it("rebalanceByTopic: a new queue starts where computePullFromWhere puts it, from the broker's answer to QUERY_CONSUMER_OFFSET (§10.6)", () => {
    // T's queue 0: nothing stored and truncated (QUERY_NOT_FOUND), so CONSUME_FROM_LAST_OFFSET starts at
    // its maxOffset 40; queue 1: 17 stored; %RETRY%G's queue: nothing stored, empty: 0.
    const b = tinyConsumer({ queues: 2 });
    const [q0, q1, retry] = [queueOfT(b, 0), queueOfT(b, 1), b.routes.retryQueue(0, 0)];
    b.c.start();
    playBroker(b, 100 * MS, { queue: (mq) => (mq === q0 ? { minOffset: 5, maxOffset: 40 } : mq === q1 ? { stored: 17, maxOffset: 40 } : {}) });
    expect(b.ctx.records("pqCreated").map((r) => [r.mq, r.nextOffset])).toEqual([[retry, 0], [q0, 40], [q1, 17]]);
    const queries = requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET);
    expect(queries.map((r) => [r.to, r.msg.consumerGroup, r.msg.mq, r.timeoutUs])).toEqual([
      [0, 0, retry, 5000 * MS],
      [0, 0, q0, 5000 * MS],
      [0, 0, q1, 5000 * MS],
    ]);
  });
});

describe("updateProcessQueueTableInRebalance (§10.3, §10.5)", () => {
  function expire(b: ConsumerBench, lastPullAgoUs: number) {
    const { c, ctx } = b;
    const mq = queueOfT(b);
    const pq = tableQueue(b, mq);
    const pr = c.rebalance.pullRequestOf(mq)!;
    // The pull loop never dies on its own (every branch re-enqueues or the pq is removed), so the
    // silent death RocketMQ logs as "[BUG] pull is pause" is staged by ageing the stamp. T is rebalanced
    // after %RETRY%G's and its own GET_CONSUMER_LIST round trips: 4 ms after the wake-up, which is when
    // the age is measured.
    pq.lastPullTimestampUs = ctx.nowUs + 4 * MS - lastPullAgoUs;
    const at = ctx.nowUs;
    c.rebalance.wakeup();
    playBroker(b, at + 50 * MS);
    return { c, ctx, mq, pq, pr, at };
  }

  it("updateProcessQueueTableInRebalance: a pq with no pull for more than 120 s is dropped and recreated with a new pull request", () => {
    const b = started({ profile: "4.9" });
    const { c, ctx, mq, pq, pr, at } = expire(b, 120_000 * MS + 1);
    expect(ctx.records("pqDropped", { mq })).toEqual([{ tUs: at + 4 * MS, type: "pqDropped", mq, consumer: 0, reason: DROP_REASON.pullExpired }]);
    expect(pq.dropped).toBe(true);
    const created = ctx.records("pqCreated", { mq });
    expect(created.map((r) => r.tUs)).toEqual([10 * MS, at + 6 * MS]); // then the offset query round trip
    const fresh = tableQueue(b, mq);
    expect(fresh).not.toBe(pq);
    expect(fresh.dropped).toBe(false);
    const newPr = c.rebalance.pullRequestOf(mq)!;
    expect(newPr).not.toBe(pr);
    expect(newPr.id).not.toBe(pr.id);
    expect(newPr.pq).toBe(fresh);
    expect(pullsSent(b, mq).map(([t]) => t)).toEqual([10 * MS, at + 6 * MS]);
    expect(b.observer.closed.map((x) => [x.mq, x.nowUs])).toEqual([[mq, at + 4 * MS]]);
  });

  it("updateProcessQueueTableInRebalance: exactly 120 s without a pull is not yet expired (strict >)", () => {
    const b = started({ profile: "4.9" });
    const { ctx, mq, pq } = expire(b, 120_000 * MS);
    expect(ctx.records("pqDropped", { mq })).toEqual([]);
    expect(pq.dropped).toBe(false);
    expect(tableQueue(b, mq)).toBe(pq);
  });

  it("removeUnnecessaryMessageQueue: a queue taken by a joining consumer is dropped, its offset persisted and forgotten, and the newcomer starts there", () => {
    // Consumer 0 starts at 0, alone; consumer 1 starts at 5 s. Its heartbeat reaches the broker at
    // 5001 ms, whose NOTIFY_CONSUMER_IDS_CHANGED reaches consumer 0 at 5002 ms; from then on the broker
    // lists both. Consumer 1 is answered the offsets consumer 0 committed.
    const s: TinyScenario = { instances: 2, queues: 4 };
    const model = tinyModel(s);
    const cids = model.groups[0]!.clientIds.slice(0, 2);
    const b0 = tinyConsumer(s, { model });
    const { c: c0 } = b0;
    const qs = b0.routes.topicQueues(TOPIC_T);
    c0.start();
    playBroker(b0, 100 * MS, { consumerIds: cids.slice(0, 1) });
    expect(c0.rebalance.queueCount).toBe(5); // alone: all 4 of T and the retry queue
    c0.offsetStore.updateOffset(qs[2]!, 7, false);
    playBroker(b0, 5002 * MS, { consumerIds: cids.slice(0, 1) });
    c0.receive(new NotifyConsumerIdsChangedRequest(0));
    playBroker(b0, 5100 * MS, { consumerIds: cids });
    expect(c0.rebalance.queueCount).toBe(3);
    expect(b0.ctx.records("pqDropped").map((r) => [r.mq, r.consumer, r.reason])).toEqual([
      [qs[2], 0, DROP_REASON.notAssigned],
      [qs[3], 0, DROP_REASON.notAssigned],
    ]);
    expect(c0.offsetStore.readOffset(qs[2]!)).toBe(-1);
    // persisted before being forgotten: one UPDATE_CONSUMER_OFFSET of qs[2] (qs[3] had no entry)
    expect(offsetCommits(b0).filter(([t]) => t > 5002 * MS)).toEqual([[5006 * MS, qs[2], 7]]);
    expect(b0.observer.closed.map((x) => [x.mq, x.nowUs])).toEqual([[qs[2], 5006 * MS], [qs[3], 5006 * MS]]);
    expect(b0.observer.assignments.at(-1)).toEqual({ nowUs: 5006 * MS, label: `${c0.clientId} T: 2 queues` });

    const b1 = tinyConsumer(s, { model, instance: 1, nowUs: 5000 * MS });
    b1.c.start();
    playBroker(b1, 5100 * MS, { consumerIds: cids, queue: (mq) => ({ stored: committedOffset(b0, mq) }) });
    expect(b1.c.rebalance.queueCount).toBe(2);
    expect(b1.ctx.records("pqCreated").map((r) => [r.mq, r.nextOffset])).toEqual([
      [qs[2], 7],
      [qs[3], 0],
    ]);
    expect(b1.observer.opened.map((x) => [x.mq, x.clientId])).toEqual([[qs[2], b1.c.clientId], [qs[3], b1.c.clientId]]);
  });
});

describe("findConsumerIdList and the offset queries: answers routed by cookie (§10.3)", () => {
  it("GET_CONSUMER_LIST_BY_GROUP: an answer carrying another rebalance's serial is ignored; the awaited one proceeds", () => {
    const b = started({});
    const { c, ctx } = b;
    const firstSerials = requestsOf(b, RequestCode.GET_CONSUMER_LIST_BY_GROUP).map((r) => r.cookie);
    c.rebalance.wakeup();
    ctx.runTimers(c, 100 * MS); // the second run asks for %RETRY%G's consumer list
    const awaited = ctx.lastRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP);
    expect(firstSerials).not.toContain(awaited.cookie);
    const queries = ctx.requests.length;
    ctx.nowUs = 101 * MS;
    c.onResponse(RequestCode.GET_CONSUMER_LIST_BY_GROUP, firstSerials[0]!, new GetConsumerListResponse(ResponseCode.SUCCESS, [c.clientId]));
    expect(ctx.requests).toHaveLength(queries);
    deliver(b, awaited, new GetConsumerListResponse(ResponseCode.SUCCESS, [c.clientId]));
    expect(ctx.lastRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP).msg).not.toBe(awaited.msg); // on to T
  });

  it("GET_CONSUMER_LIST_BY_GROUP: an answer when no rebalance runs is ignored", () => {
    const b = started({});
    const serial = b.ctx.lastRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP).cookie;
    const before = b.ctx.requests.length;
    b.c.onResponse(RequestCode.GET_CONSUMER_LIST_BY_GROUP, serial, new GetConsumerListResponse(ResponseCode.SUCCESS, [b.c.clientId]));
    expect(b.ctx.requests).toHaveLength(before);
    expect(b.ctx.records("rebalance")).toHaveLength(1);
  });

  it("GET_CONSUMER_LIST_BY_GROUP: SYSTEM_ERROR or no answer within mqClientApiTimeout leaves the topic alone and moves on to the next", () => {
    const failing = started({}, 100 * MS, { consumerIds: null });
    expect(failing.ctx.records("pqCreated")).toEqual([]);
    expect(failing.ctx.records("rebalance").map((r) => [r.tUs, r.queues])).toEqual([[6 * MS, 0]]);
    expect(requestsOf(failing, RequestCode.QUERY_CONSUMER_OFFSET)).toEqual([]);
    // %RETRY%G's list is lost: 3000 ms later T's list is asked for.
    const lost = started({}, 4000 * MS, { lose: (r) => r.msg.code === RequestCode.GET_CONSUMER_LIST_BY_GROUP && r.sentUs === 2 * MS });
    expect(requestsOf(lost, RequestCode.GET_CONSUMER_LIST_BY_GROUP).map((r) => [r.sentUs, r.timeoutUs])).toEqual([[2 * MS, 3000 * MS], [3002 * MS, 3000 * MS]]);
    expect(lost.ctx.records("pqCreated").map((r) => [r.tUs, r.mq])).toEqual([[3006 * MS, queueOfT(lost)]]);
  });

  it("QUERY_CONSUMER_OFFSET: an answer carrying another rebalance's serial does not count; the awaited one creates the queue", () => {
    const b = started({}, 7 * MS); // T's consumer list is on its way
    const { c, ctx } = b;
    playBroker(b, 8 * MS); // T's offset query goes out at 8 ms
    const query = ctx.lastRequest(RequestCode.QUERY_CONSUMER_OFFSET);
    expect(query.cookie % QUERY_SLOT_SPAN).toBe(0);
    const stale = query.cookie - QUERY_SLOT_SPAN; // slot 0 of the previous query round (%RETRY%G's)
    ctx.nowUs = 9 * MS;
    const answer = (offset: number) => Object.assign(new QueryConsumerOffsetResponse(), { offset, maxOffset: 0 });
    c.onResponse(RequestCode.QUERY_CONSUMER_OFFSET, stale, answer(33));
    expect(ctx.records("pqCreated", { mq: queueOfT(b) })).toEqual([]);
    deliver(b, query, answer(12));
    expect(ctx.records("pqCreated", { mq: queueOfT(b) }).map((r) => [r.tUs, r.nextOffset])).toEqual([[9 * MS, 12]]);
  });

  it.each([
    ["4.9", 25_014],
    ["5.x", 7012],
  ] as const)("QUERY_CONSUMER_OFFSET (%s): no answer within 5 s reads as an error: the queue is skipped and created at the next rebalance (at %i ms)", (profile, createdMs) => {
    // 4.9: the first run starts at 2 ms, T's query (sent at 8 ms) times out at 5008 ms, the run ends
    // and the next is the periodic one, 20 s later: two list round trips and T's query, 25 014 ms.
    // 5.x: the first run starts at 1000 ms, T's query (sent at 1006 ms) times out at 6006 ms, and the
    // unbalanced run is retried after minInterval: 7006 ms + 6 ms.
    const b = tinyConsumer({ profile });
    const mq = queueOfT(b);
    b.c.start();
    let lost = 0;
    playBroker(b, 30_000 * MS, {
      lose: (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && (r.msg as QueryConsumerOffsetRequest).mq === mq && lost++ === 0,
    });
    const created = b.ctx.records("pqCreated", { mq });
    expect(created.map((r) => r.tUs)).toEqual([createdMs * MS]);
    expect(b.ctx.pendingTimers(ClientTimer.REBALANCE)).toHaveLength(1);
  });
});

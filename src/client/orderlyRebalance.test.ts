// An orderly CLUSTERING consumer's locks across its life (spec §2 step 9, §8.1, §8.5, §10.3, §10.5): one
// consumer of a tiny scenario (topic T with 2 queues on broker-a, 5 messages each; %RETRY%G has 1 queue)
// started against playBroker, which answers every request after a 1 ms + 1 ms round trip. Topics are
// rebalanced in name order: %RETRY%G (queue 2) first, then T (queues 0 and 1).
import { describe, expect, it } from "vitest";
import { RequestCode } from "../protocol/codes.ts";
import type { LockBatchRequest, PullMessageRequest, QueryConsumerOffsetRequest, UnlockBatchRequest } from "../protocol/commands.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import { ClientTimer } from "./timers.ts";
import { LATER_REASON } from "./trace.ts";
import { MS, playBroker, requestsOf, sentOf, serveBacklog, tableQueue, tinyConsumer, type TinyScenario } from "./testConsumer.ts";

const S = 1_000_000;

function started(s: TinyScenario = {}) {
  const b = tinyConsumer({ queues: 2, consumeMode: "ORDERLY", backlog: 5, ...s });
  b.c.start();
  return b;
}
const locks = (b: ReturnType<typeof started>) => requestsOf<LockBatchRequest>(b, RequestCode.LOCK_BATCH_MQ).map((r) => [r.sentUs / MS, [...r.msg.mqs]]);

describe("adding a queue: lock first (§10.3 needLock), then the start offset", () => {
  it("each new queue is locked (LOCK_BATCH_MQ of one queue) before its offset is asked and its ProcessQueue made", () => {
    const b = started();
    playBroker(b, 30 * MS, { pull: serveBacklog(b) });
    // %RETRY%G: consumer ids at 2 ms, lock [2] at 4, offset query at 6, ProcessQueue at 8.
    // T: consumer ids at 8, locks [0] and [1] at 10, queries at 12, ProcessQueues at 14.
    expect(locks(b)).toEqual([[4, [2]], [10, [0]], [10, [1]]]);
    const queries = requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET).filter((r) => r.cookie >= 0);
    expect(queries.map((r) => [r.sentUs / MS, r.msg.mq])).toEqual([[6, 2], [12, 0], [12, 1]]);
    expect(b.ctx.records("pqCreated").map((r) => [r.tUs / MS, r.mq])).toEqual([[8, 2], [14, 0], [14, 1]]);
    expect(tableQueue(b, 0).locked).toBe(true);
    expect(b.observer.locks.filter((l) => l.held).map((l) => [l.nowUs / MS, l.mq])).toEqual([[8, 2], [14, 0], [14, 1]]);
  });

  it("the first pull reads the offset from the store again (a second query) and starts there; later pulls do not", () => {
    const b = started();
    playBroker(b, 30 * MS, { pull: serveBacklog(b), queue: () => ({ stored: 3 }) });
    // The rebalance's query said 3; the first pull asks again at 14 ms (cookie −1 − pull request id)
    // and pulls at 16 from the answer.
    const firstPullQueries = requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET).filter((r) => r.cookie < 0);
    expect(firstPullQueries.map((r) => [r.sentUs / MS, r.msg.mq])).toEqual([[8, 2], [14, 0], [14, 1]]);
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === 0);
    // FOUND 3, 4 → next pull at 18 from 5 without another query.
    expect(pulls.map((r) => [r.sentUs / MS, r.msg.queueOffset])).toEqual([[16, 3], [18, 5]]);
  });

  it("4.9: a first-pull query that fails pulls at −1 (the broker then moves the queue to its min offset, #1825)", () => {
    const b = started();
    playBroker(b, 30 * S, { pull: serveBacklog(b), lose: (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && r.cookie < 0 && (r.msg as QueryConsumerOffsetRequest).mq === 0 });
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === 0);
    // The query sent at 14 ms times out at 5.014 s; the pull goes out then, at offset −1.
    expect(pulls[0]!.sentUs).toBe(5014 * MS);
    expect(pulls[0]!.msg.queueOffset).toBe(-1);
  });

  it("5.x: a first-pull query that fails retries 1 s later (pullTimeDelayMillsWhenException), asking again", () => {
    const b = started({ profile: "5.x" });
    let lost = 0;
    playBroker(b, 8 * S, {
      pull: serveBacklog(b),
      lose: (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && r.cookie < 0 && (r.msg as QueryConsumerOffsetRequest).mq === 0 && lost++ === 0,
    });
    const q = requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET).filter((r) => r.cookie < 0 && r.msg.mq === 0);
    expect(q.length).toBe(2);
    // First query ~500 ms after the queue was added (5.x dispatch delay), its time-out 5 s later, the
    // retry 1 s after that.
    expect((q[1]!.sentUs - q[0]!.sentUs) / MS).toBe(6000);
    expect(b.ctx.records("pullLater", { mq: 0, reason: LATER_REASON.exception }).length).toBe(1);
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === 0);
    expect(pulls[0]!.msg.queueOffset).toBe(0);
  });

  it("a refused lock: no ProcessQueue; 4.9 waits for the next periodic rebalance (20 s)", () => {
    const b = started();
    playBroker(b, 25 * S, { pull: serveBacklog(b), lock: (mqs, now) => (now < 20 * S ? mqs.filter((q) => q !== 1) : mqs) });
    // The first run ends at 14 ms; the next starts 20 s later: %RETRY%G's consumer list 20.014 → 20.016
    // (nothing new), T's 20.016 → 20.018, lock [1] → 20.020, query → 20.022: the ProcessQueue.
    expect(b.ctx.records("pqCreated").map((r) => [r.tUs / MS, r.mq])).toEqual([[8, 2], [14, 0], [20_022, 1]]);
    expect(b.ctx.timers.filter((t) => t.code === ClientTimer.REBALANCE_LATER)).toEqual([]);
  });

  it("a refused lock, 5.x: rebalanceLater(500) and an unbalanced run retry within about a second", () => {
    const b = started({ profile: "5.x" });
    playBroker(b, 25 * S, { pull: serveBacklog(b), lock: (mqs, now) => (now < 2 * S ? mqs.filter((q) => q !== 1) : mqs) });
    const later = b.ctx.timers.filter((t) => t.code === ClientTimer.REBALANCE_LATER);
    expect(later.length).toBeGreaterThan(0);
    // Set when the refused lock's answer came in (the lock of [1] sent 2 ms before).
    const refused = requestsOf<LockBatchRequest>(b, RequestCode.LOCK_BATCH_MQ).find((r) => r.msg.mqs[0] === 1)!;
    expect(later[0]!.atUs - (refused.sentUs + 2 * MS)).toBe(CLIENT_CONSTANTS.REBALANCE_LATER_ON_LOCK_FAIL * MS);
    const created = b.ctx.records("pqCreated", { mq: 1 });
    expect(created.length).toBe(1);
    expect(created[0]!.tUs).toBeGreaterThan(2 * S);
    expect(created[0]!.tUs).toBeLessThan(3.1 * S);
  });
});

describe("lockAll (§8.1, §8.5)", () => {
  it("runs 1 s after start and every 20 s, one LOCK_BATCH_MQ per broker over the whole table", () => {
    const b = started();
    playBroker(b, 42 * S, { pull: serveBacklog(b) });
    const all = locks(b).filter(([, mqs]) => (mqs as number[]).length > 1);
    expect(all).toEqual([[1000, [0, 1, 2]], [21_000, [0, 1, 2]], [41_000, [0, 1, 2]]]);
  });

  it("a queue its answer leaves out is no longer locked: its pulls wait 1 s each (not locked), its consumption stops", () => {
    const b = started();
    playBroker(b, 1500 * MS, { pull: serveBacklog(b), lock: (mqs) => (mqs.length > 1 ? mqs.filter((q) => q !== 0) : mqs) });
    expect(tableQueue(b, 0).locked).toBe(false);
    expect(b.observer.locks.filter((l) => !l.held).map((l) => [l.nowUs / MS, l.mq])).toEqual([[1002, 0]]);
    // Pulls of queue 0 after 1.002 s are put off 1 s each with reason notLocked (held ones drain first).
    playBroker(b, 40 * S, { pull: serveBacklog(b), lock: (mqs) => (mqs.length > 1 ? mqs.filter((q) => q !== 0) : []) });
    expect(b.ctx.records("pullLater", { mq: 0, reason: LATER_REASON.notLocked }).length).toBeGreaterThan(20);
  });

  it("an answer that locks a queue again refreshes lastLockTimestamp", () => {
    const b = started();
    playBroker(b, 21_500 * MS, { pull: serveBacklog(b) });
    expect(tableQueue(b, 1).lastLockTimestampUs).toBe(21_002 * MS);
  });
});

describe("removing a queue (§10.5) and shutting down (§8.1)", () => {
  const other = "10.0.0.0@0"; // sorts before this consumer's id: AVG gives it the first half of T
  const twoConsumers = (s: TinyScenario = {}) => {
    const b = started(s);
    playBroker(b, 1 * S, { pull: serveBacklog(b) });
    return b;
  };

  it("4.9: a removed queue still holding cached messages is unlocked 20 s later; the consumeLock was free", () => {
    const b = twoConsumers({ backlog: 2000 });
    // Keep 1000+ messages cached: the pull of queue 0 stays far ahead of the 10 ms listener.
    const q0 = tableQueue(b, 0);
    expect(q0.msgCount).toBeGreaterThan(0);
    b.c.rebalance.wakeup();
    playBroker(b, 30 * S, { pull: serveBacklog(b), consumerIds: [other, b.c.clientId] });
    const unlocks = sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ);
    // The rebalance at 1 s: AVG gives the other consumer %RETRY%G's one queue (list answered at 1.002 s,
    // nothing cached: unlocked at once) and T's queue 0 (list answered at 1.004 s: cached messages, so
    // unlocked 20 s later).
    expect(unlocks.map((u) => [u.atUs / MS, [...u.msg.mqs]])).toEqual([[1002, [2]], [21_004, [0]]]);
    expect(q0.dropped).toBe(true);
  });

  it("4.9: a removed queue with nothing cached is unlocked at once", () => {
    const b = twoConsumers({ backlog: 0 });
    b.c.rebalance.wakeup();
    playBroker(b, 5 * S, { pull: serveBacklog(b), consumerIds: [other, b.c.clientId] });
    expect(sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ).map((u) => [u.atUs / MS, [...u.msg.mqs]])).toEqual([[1002, [2]], [1004, [0]]]);
  });

  it("a queue whose listener call never returns cannot be removed: it stays in the table, dropped, and its removal is retried", () => {
    const b = started({ backlog: 1 });
    b.listeners.armHang(0, null);
    playBroker(b, 1 * S, { pull: serveBacklog(b) });
    const q0 = tableQueue(b, 0);
    b.c.rebalance.wakeup();
    playBroker(b, 50 * S, { pull: serveBacklog(b), consumerIds: [other, b.c.clientId] });
    expect(tableQueue(b, 0)).toBe(q0);
    expect(q0.dropped).toBe(true);
    // Rebalances at 1 s, 21 s, 41 s each tried: tryUnlockTimes counts them; ownership closed once.
    expect(q0.tryUnlockTimes).toBe(3);
    expect(b.observer.closed.filter((x) => x.mq === 0).length).toBe(1);
    expect(sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ).filter((u) => u.msg.mqs.includes(0))).toEqual([]);
    // 4.9's lockAll still names the dropped queue 0, so its broker lock lives on (%RETRY%G's queue went
    // to the other consumer).
    expect(locks(b).filter(([t]) => (t as number) > 40_000).map(([, m]) => m)).toEqual([[0, 1]]);
  });

  it("5.x: a queue whose listener is stuck is force-unlocked once its lock is 20 s old; lockAll leaves dropped queues out", () => {
    const b = started({ profile: "5.x", backlog: 1 });
    b.listeners.armHang(0, null);
    playBroker(b, 2 * S, { pull: serveBacklog(b) });
    const q0 = tableQueue(b, 0);
    b.c.rebalance.wakeup();
    playBroker(b, 45 * S, { pull: serveBacklog(b), consumerIds: [other, b.c.clientId] });
    // Last lock: lockAll at 1 s (answered 1.002 s). Rebalances retry every 20 s while the queue stays:
    // the first one after 21.002 s forces the unlock.
    const unlocks = sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ).filter((u) => u.msg.mqs.includes(0));
    expect(unlocks.length).toBe(1);
    expect(unlocks[0]!.atUs).toBeGreaterThan(21_002 * MS);
    expect(q0.locked).toBe(false);
    expect(b.c.rebalance.processQueues().map(([mq]) => mq)).toEqual([1]);
    // Meanwhile 5.x's lockAll named only the live queue.
    expect(locks(b).filter(([t]) => (t as number) >= 21_000 && (t as number) < 22_000).map(([, m]) => m)).toEqual([[1]]);
  });

  it("shutdown unlocks every queue first (UNLOCK_BATCH_MQ per broker), then persists and unregisters", () => {
    const b = started();
    playBroker(b, 2 * S, { pull: serveBacklog(b) });
    b.c.shutdown();
    const unlock = sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ);
    expect(unlock.map((u) => [...u.msg.mqs])).toEqual([[0, 1, 2]]);
    const order = b.ctx.sent.filter((s) => s.atUs === 2 * S).map((s) => s.msg.code);
    expect(order[0]).toBe(RequestCode.UNLOCK_BATCH_MQ);
    // Then the persist (oneway UPDATE_CONSUMER_OFFSETs) and, last, the synchronous UNREGISTER_CLIENT (§8.2).
    expect(order.slice(1).every((c) => c === RequestCode.UPDATE_CONSUMER_OFFSET)).toBe(true);
    expect(requestsOf(b, RequestCode.UNREGISTER_CLIENT).map((r) => r.sentUs)).toEqual([2 * S]);
  });

  it("a crash unlocks nothing: the broker lock outlives the instance", () => {
    const b = started();
    playBroker(b, 2 * S, { pull: serveBacklog(b) });
    b.c.crash("connectionClosed");
    expect(sentOf(b, RequestCode.UNLOCK_BATCH_MQ)).toEqual([]);
  });
});

describe("unreachable brokers fail lock RPCs at once (review findings)", () => {
  it("a lock to a broker that refuses the connection fails now: the queue is skipped without waiting for the 1 s time-out", () => {
    const b = started();
    b.ctx.down.add(0); // broker-a's process is down: connection refused
    playBroker(b, 30 * MS, { pull: serveBacklog(b) });
    expect(requestsOf(b, RequestCode.LOCK_BATCH_MQ)).toEqual([]);
    expect(b.c.rebalance.processQueues()).toEqual([]);
    // The rebalance went on at once: %RETRY%G's consumer list at 2 ms (answered at 4, its lock refused
    // on the spot), T's at 4 ms — not at 1 004 ms after a lock time-out.
    expect(requestsOf(b, RequestCode.GET_CONSUMER_LIST_BY_GROUP).map((r) => r.sentUs / MS)).toEqual([2, 4]);
  });

  it("4.9: a removal that failed while a call was running keeps the cache, so its retry still delays the unlock 20 s", () => {
    const b = started({ backlog: 50 });
    b.listeners.armHang(0, 25 * S); // the first call on queue 0 lasts 25 s
    playBroker(b, 1 * S, { pull: serveBacklog(b) });
    const q0 = tableQueue(b, 0);
    b.c.rebalance.wakeup();
    playBroker(b, 70 * S, { pull: serveBacklog(b), consumerIds: ["10.0.0.0@0", b.c.clientId] });
    // Rebalances at 1 s and 21 s find the call running for more than 1 s more: removal fails (the queue
    // stays, dropped, its pull loop ends). At 41 s the call is over: removal succeeds, and since the
    // queue still caches the messages pulled before (hasTempMessage), the unlock goes out at 61 s.
    expect(q0.tryUnlockTimes).toBe(2);
    const unlock = sentOf<UnlockBatchRequest>(b, RequestCode.UNLOCK_BATCH_MQ).filter((u) => u.msg.mqs.includes(0));
    expect(unlock.length).toBe(1);
    expect(unlock[0]!.atUs).toBeGreaterThan(61 * S);
    expect(unlock[0]!.atUs).toBeLessThan(61.1 * S);
  });
});

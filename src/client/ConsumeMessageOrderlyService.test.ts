// ConsumeMessageOrderlyService (spec §6, §8.2–§8.4) of one orderly CLUSTERING consumer of a tiny scenario:
// messages are cached in a ProcessQueue locked at the broker, a request is submitted as the FOUND callback
// would, and the consumer's timers run the loop. The listener takes a constant 10 ms per message; the
// broker (playBroker) answers a lock or a retry send after a 1 ms + 1 ms round trip. Every start, suspend
// and commit time below follows from those mechanics.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import type { LockBatchRequest, SendRetryMessageRequest } from "../protocol/commands.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import { MS, messages, playBroker, queueOfT, range, requestsOf, tinyConsumer, type TinyScenario } from "./testConsumer.ts";

const S = 1_000_000;

function bench(s: TinyScenario = {}) {
  const b = tinyConsumer({ queues: 2, consumeMode: "ORDERLY", ...s });
  b.c.state = "RUNNING";
  const mq = (i = 0) => queueOfT(b, i);
  /** A ProcessQueue of queue i holding `offsets`, locked now; returns it and putMessage's dispatch flag. */
  const cached = (offsets: number[], i = 0, locked = true) => {
    const pq = new ProcessQueue(b.ctx.nowUs);
    pq.locked = locked;
    const dispatch = pq.putMessage(messages(offsets, { mq: mq(i) }));
    return { pq, dispatch };
  };
  const submit = (pq: ProcessQueue, i = 0, dispatch = true) => b.c.consumeService.submitConsumeRequest(messages([], { mq: mq(i) }), pq, mq(i), dispatch);
  /** [start ms, offset] of every listener call's first message. */
  const starts = (i = 0) => b.ctx.records("consumeStart", { mq: mq(i) }).map((r) => [r.tUs / MS, r.offset]);
  /** [ms, offset, increaseOnly] of every offset update. */
  const updates = () => b.ctx.records("offsetUpdate").map((r) => [r.tUs / MS, r.offset, r.increaseOnly]);
  return { b, ctx: b.ctx, c: b.c, mq, cached, submit, starts, updates };
}

describe("submitConsumeRequest and ConsumeRequest.run (§8.2, §8.3)", () => {
  it("only a dispatchToConsume of true starts a request: putMessage says so once, while the queue is not yet consuming", () => {
    const { c, cached, submit, starts } = bench();
    const { pq, dispatch } = cached([0, 1]);
    expect(dispatch).toBe(true);
    // A second put while consuming: no new request (§3.1).
    expect(pq.putMessage(messages([2], { mq: 0 }))).toBe(false);
    submit(pq, 0, false);
    expect(starts()).toEqual([]);
    submit(pq, 0, true);
    expect(starts()).toEqual([[0, 0]]);
    expect(c.consumeService.busyWorkers).toBe(1);
  });

  it("one request drains its queue in offset order, one listener call at a time; each SUCCESS commits last taken + 1, not increase-only", () => {
    const { ctx, c, cached, submit, starts, updates, b } = bench();
    const { pq } = cached(range(0, 5));
    submit(pq);
    ctx.runTimers(c, 1 * S);
    // 10 ms per call: starts at 0, 10, 20, 30, 40 ms; commits 1…5 when each call returns.
    expect(starts()).toEqual([[0, 0], [10, 1], [20, 2], [30, 3], [40, 4]]);
    expect(updates()).toEqual([[10, 1, 0], [20, 2, 0], [30, 3, 0], [40, 4, 0], [50, 5, 0]]);
    expect(b.observer.commits.map((x) => x.offset)).toEqual([1, 2, 3, 4, 5]);
    // takeMessages found nothing: consuming is false again, the worker is free, the cache empty.
    expect(pq.consuming).toBe(false);
    expect(pq.msgCount).toBe(0);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("two queues run on two workers side by side; within each the order holds", () => {
    const { ctx, c, cached, submit, starts } = bench();
    submit(cached([0, 1, 2], 0).pq, 0);
    submit(cached([7, 8, 9], 1).pq, 1);
    expect(c.consumeService.busyWorkers).toBe(2);
    ctx.runTimers(c, 1 * S);
    expect(starts(0)).toEqual([[0, 0], [10, 1], [20, 2]]);
    expect(starts(1)).toEqual([[0, 7], [10, 8], [20, 9]]);
  });

  it("consumeMessageBatchMaxSize 2: takeMessages(2) gives calls of [0,1], [2,3], [4] of 20, 20 and 10 ms; commits 2, 4, 5", () => {
    const { ctx, c, cached, submit, updates } = bench({ config: { consumeMessageBatchMaxSize: 2 } });
    submit(cached(range(0, 5)).pq);
    ctx.runTimers(c, 1 * S);
    expect(ctx.records("consumeStart").map((r) => [r.tUs / MS, r.offset])).toEqual([[0, 0], [0, 1], [20, 2], [20, 3], [40, 4]]);
    expect(updates()).toEqual([[20, 2, 0], [40, 4, 0], [50, 5, 0]]);
  });

  it("a request for a queue whose monitor another worker holds waits for it, holding a thread (MessageQueueLock)", () => {
    const { ctx, c, cached, submit, starts } = bench();
    const { pq } = cached([0, 1]);
    submit(pq);
    submit(pq); // a second request for the same queue (a submitConsumeRequestLater racing a dispatch)
    expect(c.consumeService.busyWorkers).toBe(2);
    expect(starts()).toEqual([[0, 0]]);
    ctx.runTimers(c, 1 * S);
    // The first drains both messages; the second then finds nothing and leaves.
    expect(starts()).toEqual([[0, 0], [10, 1]]);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("a request whose ProcessQueue was dropped does nothing", () => {
    const { ctx, c, cached, submit, starts } = bench();
    const { pq } = cached([0, 1]);
    pq.dropped = true;
    submit(pq);
    ctx.runTimers(c, 1 * S);
    expect(starts()).toEqual([]);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("MAX_TIME_CONSUME_CONTINUOUSLY: after 60 s in one request the queue is resubmitted 10 ms later", () => {
    const { ctx, c, cached, submit, starts } = bench({ listener: { consumeTime: "1s" } });
    const { pq } = cached(range(0, 70));
    submit(pq);
    // Keep the lock fresh as lockAll would, every 20 s (it counts as expired after 30 s).
    for (let t = 0; t < 70 * S; t += 20 * S) {
      ctx.runTimers(c, t + 20 * S);
      pq.lastLockTimestampUs = ctx.nowUs;
    }
    // Calls at 0 … 60 s (60 000 ms since the loop began is not more than 60 000); the call ending at 61 s
    // finds 61 000 > 60 000: submitConsumeRequestLater(10) → the next call at 61.010 s.
    const s = starts().map(([t]) => t as number);
    expect(s.slice(59, 63)).toEqual([59_000, 60_000, 61_010, 62_010]);
  });
});

describe("processConsumeResult: SUSPEND_CURRENT_QUEUE_A_MOMENT and checkReconsumeTimes (§8.4)", () => {
  it("a failing head goes back to the cache and is retried every suspendCurrentQueueTimeMillis (1 s); nothing behind it runs, nothing commits", () => {
    const { ctx, c, cached, submit, starts, updates, b } = bench({ listener: { failureProbability: 1 } });
    const { pq } = cached([0, 1, 2]);
    submit(pq);
    ctx.runTimers(c, 3500 * MS);
    // Call at 0 fails at 10 ms → back in 1000 ms: 1010, 2020, 3030.
    expect(starts()).toEqual([[0, 0], [1010, 0], [2020, 0], [3030, 0]]);
    expect(updates()).toEqual([]);
    expect(b.observer.suspends.map((x) => [x.nowUs / MS, x.offset])).toEqual([[10, 0], [1020, 0], [2030, 0], [3040, 0]]);
    // All three are still cached (msgCount counts taken ones until commit), the head's local count is 4.
    expect(pq.msgCount).toBe(3);
    expect(pq.reconsumeTimes(0)).toBe(4);
    expect(pq.consuming).toBe(true);
  });

  it("suspendCurrentQueueTimeMillis 10 (its lower bound): the retry comes 10 ms after the failure", () => {
    const { ctx, c, cached, submit, starts } = bench({ listener: { failureProbability: 1 }, config: { suspendCurrentQueueTimeMillis: 10 } });
    submit(cached([0]).pq);
    ctx.runTimers(c, 45 * MS);
    expect(starts()).toEqual([[0, 0], [20, 0], [40, 0]]);
  });

  it("the failure probability is drawn per attempt: a later attempt can succeed and the queue moves on", () => {
    const { ctx, c, cached, submit, updates } = bench({ listener: { failureProbability: 0.5 } });
    submit(cached(range(0, 20)).pq);
    ctx.runTimers(c, 60 * S);
    // Every message is eventually committed, in order: the last update is 20.
    const u = updates();
    expect(u.at(-1)![1]).toBe(20);
    expect(u.map((x) => x[1])).toEqual(range(1, 20));
    expect(ctx.records("orderlySuspend").length).toBeGreaterThan(0);
  });

  it("maxReconsumeTimes 2, 4.9: after two suspends the third failure sends the head to %RETRY% (RECONSUME_TIME 2, delay level 5), then the queue moves on", () => {
    const { b, ctx, cached, submit, starts, updates } = bench({ listener: { poisonFraction: 1 }, config: { maxReconsumeTimes: 2 } });
    const { pq } = cached([0, 1]);
    submit(pq);
    playBroker(b, 2100 * MS);
    const sends = requestsOf<SendRetryMessageRequest>(b, RequestCode.SEND_MESSAGE);
    // Attempts at 0 (count 0 → 1), 1010 (1 → 2), 2020: count 2 ≥ max 2 → sendMessageBack when it fails at 2030.
    expect(sends.map((r) => [r.sentUs / MS, r.msg.offset, r.msg.reconsumeTimes, r.msg.delayLevel, r.msg.maxReconsumeTimes])).toEqual([[2030, 0, 2, 5, 2]]);
    // The send is answered at 2032: the head is committed (offset 1) and message 1 starts at once — and
    // fails too (poison): it is the new head.
    expect(updates()).toEqual([[2032, 1, 0]]);
    expect(starts()).toEqual([[0, 0], [1010, 0], [2020, 0], [2032, 1]]);
    expect(pq.msgCount).toBe(1);
  });

  it("maxReconsumeTimes 2, 5.x: the retry message carries RECONSUME_TIME count + 1 = 3", () => {
    const { b, cached, submit } = bench({ profile: "5.x", listener: { poisonFraction: 1 }, config: { maxReconsumeTimes: 2 } });
    submit(cached([0]).pq);
    playBroker(b, 2100 * MS);
    expect(requestsOf<SendRetryMessageRequest>(b, RequestCode.SEND_MESSAGE).map((r) => r.msg.reconsumeTimes)).toEqual([3]);
  });

  it("a refused retry send keeps the queue suspended and counts one more: sent again after the next failure", () => {
    const { b, cached, submit, starts, updates } = bench({ listener: { poisonFraction: 1 }, config: { maxReconsumeTimes: 1 } });
    submit(cached([0]).pq);
    playBroker(b, 3100 * MS, { sendBackCode: ResponseCode.SYSTEM_ERROR });
    const sends = requestsOf<SendRetryMessageRequest>(b, RequestCode.SEND_MESSAGE);
    // 0: count 0 → 1. 1010: 1 ≥ 1 → send at 1020, refused at 1022 → count 2, suspended: next call at
    // 2022, send at 2032 (RECONSUME_TIME 2), refused at 2034 → 3022 …
    expect(sends.map((r) => [r.sentUs / MS, r.msg.reconsumeTimes])).toEqual([[1020, 1], [2032, 2], [3044, 3]].filter(([t]) => t! <= 3100));
    expect(starts()).toEqual([[0, 0], [1010, 0], [2022, 0], [3034, 0]]);
    expect(updates()).toEqual([]);
  });

  it("the retry send goes through the internal producer: its queue's broker refusing connections, another broker of %RETRY% takes it", () => {
    const { b, cached, submit } = bench({ brokers: 2, listener: { poisonFraction: 1 }, config: { maxReconsumeTimes: 0 } });
    b.ctx.down.add(0);
    submit(cached([0]).pq);
    playBroker(b, 100 * MS);
    expect(requestsOf(b, RequestCode.SEND_MESSAGE).map((r) => r.to)).toEqual([1]);
    // No broker at all: the send fails now, the head stays and counts one more.
    const none = bench({ brokers: 2, listener: { poisonFraction: 1 }, config: { maxReconsumeTimes: 0 } });
    none.ctx.down.add(0);
    none.ctx.down.add(1);
    const { pq } = none.cached([0]);
    none.submit(pq);
    playBroker(none.b, 100 * MS);
    expect(requestsOf(none.b, RequestCode.SEND_MESSAGE)).toEqual([]);
    expect(pq.reconsumeTimes(0)).toBe(1);
  });

  it("the default maxReconsumeTimes (−1) is Integer.MAX_VALUE for an orderly consumer: a poison head is never sent anywhere", () => {
    const { b, c, cached, submit } = bench({ listener: { poisonFraction: 1 } });
    expect(c.maxReconsumeTimes).toBe(2_147_483_647);
    submit(cached([0]).pq);
    playBroker(b, 30 * S);
    expect(requestsOf(b, RequestCode.SEND_MESSAGE)).toEqual([]);
    expect(b.ctx.records("consumeStart").length).toBe(30); // 0, 1.01, 2.02, … 29.29 s
  });
});

describe("processConsumeResult: autoCommit and the listener's results (§8.4)", () => {
  it("autoCommit false, SUCCESS: nothing is committed, the messages stay taken and counted in the cache", () => {
    const { ctx, c, cached, submit, updates } = bench({ listener: { autoCommit: false } });
    const { pq } = cached(range(0, 4));
    submit(pq);
    ctx.runTimers(c, 1 * S);
    // Four calls, all SUCCESS, no offset update: msgCount stays 4, so a consumer that never returns
    // COMMIT stops pulling at pullThresholdForQueue.
    expect(ctx.records("consumeStart").length).toBe(4);
    expect(updates()).toEqual([]);
    expect(pq.msgCount).toBe(4);
    expect(pq.consumingCount).toBe(4);
  });

  it("autoCommit false, COMMIT: commits everything taken (last + 1) after each call", () => {
    const { ctx, c, cached, submit, updates } = bench({ listener: { autoCommit: false, successResult: "COMMIT" } });
    submit(cached(range(0, 3)).pq);
    ctx.runTimers(c, 1 * S);
    expect(updates()).toEqual([[10, 1, 0], [20, 2, 0], [30, 3, 0]]);
  });

  it("ROLLBACK with autoCommit true is taken as success: committed and consumed on (RocketMQ only warns)", () => {
    const { b, ctx, c, cached, submit, updates } = bench({ listener: { failureProbability: 1, failureResult: "ROLLBACK" } });
    submit(cached(range(0, 2)).pq);
    ctx.runTimers(c, 1 * S);
    expect(updates()).toEqual([[10, 1, 0], [20, 2, 0]]);
    expect(ctx.records("orderlySuspend")).toEqual([]);
    // The books agree with the commit: both messages are consumed (found by the random-scenario corpus:
    // they were committed past but never counted as consumed, which failed the committed-offset check).
    expect(b.observer.consumedCalls.map((x) => [x.nowUs / MS, x.offset])).toEqual([[10, 0], [20, 1]]);
  });

  it("ROLLBACK with autoCommit false puts back everything taken since the last commit, uncounted, and retries 1 s later", () => {
    // Calls on 0 and 1 succeed but return SUCCESS (no commit); the call on 2 (decided when it starts, at
    // 20 ms) fails at 30 ms: the rollback returns all three to the cache, so 0 and 1 run again from 1030.
    const { ctx, c, cached, submit, b } = bench({ listener: { autoCommit: false, failureResult: "ROLLBACK" } });
    const { pq } = cached(range(0, 3));
    submit(pq);
    ctx.runTimers(c, 15 * MS);
    b.listeners.behaviour[0]!.failureProbability = 1;
    ctx.runTimers(c, 25 * MS);
    b.listeners.behaviour[0]!.failureProbability = 0;
    ctx.runTimers(c, 2 * S);
    expect(ctx.records("consumeStart").map((r) => [r.tUs / MS, r.offset])).toEqual([[0, 0], [10, 1], [20, 2], [1030, 0], [1040, 1], [1050, 2]]);
    expect(pq.reconsumeTimes(2)).toBe(0); // not counted
    expect(pq.rollbacks).toBe(1);
  });

  it("an orderly-only result on a concurrent group is refused with the field named", () => {
    expect(() => bench({ consumeMode: "CONCURRENTLY", listener: { autoCommit: false } })).toThrow(/groups\.0\.listener\.autoCommit/);
  });
});

describe("the broker lock gates consumption (§8.3)", () => {
  it("not locked: tryLockLaterAndReconsume(100) locks the queue, then consumes 10 ms after the answer", () => {
    const { b, cached, submit, starts } = bench();
    const { pq } = cached([0], 0, false);
    submit(pq);
    playBroker(b, 200 * MS);
    const locks = requestsOf<LockBatchRequest>(b, RequestCode.LOCK_BATCH_MQ);
    // lock(mq) at 100 ms, answered at 102 (the pq in the table is not this one: locking it is the
    // table's business), submitConsumeRequestLater(10) → 112 ms — and still not locked: again 100 ms later.
    expect(locks.map((r) => [r.sentUs / MS, [...r.msg.mqs]])).toEqual([[100, [queueOfT(b)]]]);
    expect(starts()).toEqual([]);
    pq.locked = true;
    pq.lastLockTimestampUs = b.ctx.nowUs;
    playBroker(b, 400 * MS);
    // The second tryLockLater (112 + 100 = 212, answered 214) → 224 ms: locked, consumed.
    expect(starts()).toEqual([[224, 0]]);
  });

  it("a refused lock waits 3 s before the next attempt", () => {
    const { b, cached, submit } = bench();
    submit(cached([0], 0, false).pq);
    playBroker(b, 3300 * MS, { lock: () => [] });
    // 100 ms: refused at 102 → submitLater(3000) → 3102: not locked → tryLockLater(100) → 3202.
    expect(requestsOf(b, RequestCode.LOCK_BATCH_MQ).map((r) => r.sentUs / MS)).toEqual([100, 3202]);
  });

  it("a lock older than 30 s (REBALANCE_LOCK_MAX_LIVE_TIME) counts as expired: no consumption until refreshed", () => {
    const { b, ctx, cached, submit, starts } = bench();
    const { pq } = cached([0, 1]);
    ctx.nowUs = 30 * S + 1;
    submit(pq);
    expect(starts()).toEqual([]);
    expect(ctx.pendingTimers().length).toBe(1);
    // At exactly 30 s it is still fresh.
    const fresh = bench();
    const f = fresh.cached([0]);
    fresh.ctx.nowUs = 30 * S;
    fresh.submit(f.pq);
    expect(fresh.starts()).toEqual([[30_000, 0]]);
  });

  it("a lock lost mid-queue stops the loop after the call in progress", () => {
    const { ctx, c, cached, submit, starts } = bench();
    const { pq } = cached([0, 1, 2]);
    submit(pq);
    ctx.runTimers(c, 5 * MS);
    pq.locked = false; // lockAll's answer left the queue out
    ctx.runTimers(c, 50 * MS);
    expect(starts()).toEqual([[0, 0]]);
  });
});

describe("what removal and the books see of the service", () => {
  it("consumeLockBusyUntil: the end of the call in progress; Infinity for a hung call; −1 when idle", () => {
    const { ctx, c, cached, submit } = bench();
    const { pq } = cached([0]);
    expect(c.consumeService.consumeLockBusyUntil(pq)).toBe(-1);
    submit(pq);
    expect(c.consumeService.consumeLockBusyUntil(pq)).toBe(10 * MS);
    ctx.runTimers(c, 20 * MS);
    expect(c.consumeService.consumeLockBusyUntil(pq)).toBe(-1);
    const h = bench();
    const hp = h.cached([0]).pq;
    h.b.listeners.armHang(h.mq(), null);
    h.submit(hp);
    expect(h.c.consumeService.consumeLockBusyUntil(hp)).toBe(Infinity);
    expect(h.c.consumeService.hungWorkers).toBe(1);
  });

  it("forEachInFlight reports the taken messages of the calls in progress (not the rest of the cache)", () => {
    const { c, cached, submit, mq } = bench({ config: { consumeMessageBatchMaxSize: 2 } });
    submit(cached([4, 5, 6]).pq);
    const seen: number[][] = [];
    c.consumeService.forEachInFlight((q, o, key) => seen.push([q, o, key]));
    expect(seen).toEqual([[mq(), 4, mq() * 2 ** 32 + 4], [mq(), 5, mq() * 2 ** 32 + 5]]);
  });
});

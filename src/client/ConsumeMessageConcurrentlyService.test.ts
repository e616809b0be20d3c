// ConsumeMessageConcurrentlyService (spec §6, §7) of one consumer of a tiny scenario: messages are cached
// in a ProcessQueue of T's queue and submitted as a pull's FOUND callback would, and the consumer's
// CONSUME_DONE / LOCAL_RETRY timers run the workers. The listener takes a constant 10 ms per message; a
// send-back is answered by playBroker after a 1 ms + 1 ms round trip, so every start, send-back and
// commit time below follows from the mechanics.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import type { ConsumerSendMsgBackRequest } from "../protocol/commands.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import {
  BROKER_A, MS, messages, playBroker, queueOfT, range, requestsOf, tinyConsumer, type ConsumerBench, type MessageOptions, type TinyScenario,
} from "./testConsumer.ts";

function bench(s: TinyScenario = {}) {
  const b = tinyConsumer({ queues: 2, ...s });
  /** Queue i of T. */
  const mq = (i = 0) => queueOfT(b, i);
  /** A ProcessQueue of queue i holding `offsets`. */
  const cached = (offsets: number[], i = 0, o: MessageOptions = {}) => {
    const pq = new ProcessQueue(b.ctx.nowUs);
    pq.putMessage(messages(offsets, { ...o, mq: mq(i) }));
    return pq;
  };
  /** submitConsumeRequest of `offsets`, as the FOUND callback hands over the messages it just cached. */
  const submit = (pq: ProcessQueue, offsets: number[], i = 0, o: MessageOptions = {}) =>
    b.c.consumeService.submitConsumeRequest(messages(offsets, { ...o, mq: mq(i) }), pq, mq(i));
  return { b, ctx: b.ctx, c: b.c, stats: b.stats, mq, cached, submit };
}

/** consumeStart records grouped by start time: the offsets of each listener call, in order. */
function callsByStart(b: ConsumerBench): number[][] {
  const byTime = new Map<number, number[]>();
  for (const r of b.ctx.records("consumeStart")) {
    const list = byTime.get(r.tUs) ?? [];
    list.push(r.offset as number);
    byTime.set(r.tUs, list);
  }
  return [...byTime.values()];
}

function sendBacks(b: ConsumerBench) {
  return requestsOf<ConsumerSendMsgBackRequest>(b, RequestCode.CONSUMER_SEND_MSG_BACK);
}

describe("submitConsumeRequest (§6, §7.1)", () => {
  it("submitConsumeRequest: runs consumeThreadMin tasks at once, whatever consumeThreadMax", () => {
    const { ctx, c, cached, submit } = bench({ config: { consumeThreadMin: 3, consumeThreadMax: 64 } });
    const offsets = range(0, 10);
    submit(cached(offsets), offsets);
    expect(c.consumeService.threads).toBe(3);
    expect(ctx.records("consumeStart").map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(c.consumeService.busyWorkers).toBe(3);
    expect(c.consumeService.queueLength).toBe(7);
    // Three more start each time the three workers come back.
    ctx.runTimers(c, 10 * MS);
    expect(ctx.records("consumeStart").map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("submitConsumeRequest: with the default consumeMessageBatchMaxSize (1) a pull of 32 becomes 32 tasks", () => {
    const { b, ctx, c, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const offsets = range(0, 32);
    submit(cached(offsets), offsets);
    expect(c.consumeService.queueLength).toBe(31);
    ctx.runTimers(c, 400 * MS);
    expect(callsByStart(b)).toEqual(offsets.map((o) => [o]));
  });

  it("submitConsumeRequest: consumeMessageBatchMaxSize 10 splits a pull of 32 into listener calls of 10, 10, 10 and 2", () => {
    const { b, ctx, c, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 10 } });
    const offsets = range(0, 32);
    submit(cached(offsets), offsets);
    expect(c.consumeService.queueLength).toBe(3);
    ctx.runTimers(c, 1000 * MS);
    expect(callsByStart(b)).toEqual([range(0, 10), range(10, 10), range(20, 10), range(30, 2)]);
    // A call's listener time is the sum over its messages: 100 ms for 10.
    expect([...new Set(ctx.records("consumeStart").map((r) => r.tUs))]).toEqual([0, 100 * MS, 200 * MS, 300 * MS]);
  });
});

describe("ConsumeRequest.run (§7.2)", () => {
  it("ConsumeRequest.run: tasks run FIFO in submission order, not offset order", () => {
    const { ctx, c, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached([0, 3, 5, 9]);
    submit(pq, [5, 3]);
    submit(pq, [9, 0]);
    ctx.runTimers(c, 100 * MS);
    expect(ctx.records("consumeStart").map((r) => [r.tUs, r.offset])).toEqual([
      [0, 5],
      [10 * MS, 3],
      [20 * MS, 9],
      [30 * MS, 0],
    ]);
  });

  it("ConsumeRequest.run: a task whose ProcessQueue was dropped while queued does nothing and frees the worker for the next one", () => {
    const { ctx, c, stats, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pqA = cached([0, 1], 0);
    const pqB = cached([0, 1], 1);
    submit(pqA, [0], 0);
    submit(pqB, [0, 1], 1);
    submit(pqA, [1], 0);
    pqB.dropped = true;
    ctx.runTimers(c, 100 * MS);
    expect(ctx.records("consumeStart").map((r) => [r.tUs, r.mq, r.offset])).toEqual([
      [0, mq(0), 0],
      [10 * MS, mq(0), 1], // straight after the first: the dropped tasks took no worker time
    ]);
    expect(pqB.msgCount).toBe(2);
    expect(ctx.records("offsetUpdate", { mq: mq(1) })).toEqual([]);
    expect(stats.consumeWait.count).toBe(2);
  });

  it("ConsumeRequest.run: records the wait in the task queue and the listener time", () => {
    const { ctx, c, stats, cached, submit } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const offsets = [0, 1, 2];
    submit(cached(offsets), offsets);
    ctx.runTimers(c, 100 * MS);
    const { consumeWait, consumeTime } = stats;
    expect([consumeWait.count, consumeWait.min, consumeWait.max, consumeWait.sum]).toEqual([3, 0, 20 * MS, 30 * MS]);
    expect([consumeTime.count, consumeTime.min, consumeTime.max]).toEqual([3, 10 * MS, 10 * MS]);
  });

  it("ConsumeRequest.run: a result that comes back after the pq was dropped is discarded: no send-back, no removal, no offset", () => {
    const { b, ctx, c, cached, submit, mq } = bench({ listener: { failureProbability: 1 } });
    const pq = cached([0, 1]);
    submit(pq, [0, 1]);
    pq.dropped = true; // both listener calls are running
    playBroker(b, 100 * MS);
    expect(ctx.records("consumeEnd")).toHaveLength(2);
    expect(sendBacks(b)).toEqual([]);
    expect(pq.msgCount).toBe(2);
    expect(c.offsetStore.readOffset(mq())).toBe(-1);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("ConsumeRequest.run: FIFO order survives the task ring wrapping around and growing", () => {
    // 1000 tasks, 600 of them run, then 1100 more: the ring of 1024 rows wraps and must double.
    const { ctx, c, mq, submit } = bench({ queues: 1, config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "1ms" } });
    const pq = new ProcessQueue(0);
    const all = range(0, 2100);
    pq.putMessage(messages(all, { mq: mq() }));
    submit(pq, range(0, 1000));
    ctx.runTimers(c, 599 * MS + 1);
    expect(ctx.records("consumeStart")).toHaveLength(600);
    submit(pq, range(1000, 1100));
    expect(c.consumeService.queueLength).toBe(400 + 1100); // task 599 is running, 600–999 wait
    ctx.runTimers(c, 3000 * MS);
    expect(ctx.records("consumeStart").map((r) => r.offset)).toEqual(all);
    expect(pq.msgCount).toBe(0);
    expect(c.offsetStore.readOffset(mq())).toBe(2100);
  });
});

describe("processConsumeResult (§7.3)", () => {
  it("processConsumeResult: CONSUME_SUCCESS removes the messages and commits the smallest offset still cached", () => {
    const { ctx, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached(range(10, 5)); // queueOffsetMax = 14
    submit(pq, [12, 10, 11, 14, 13]);
    ctx.runTimers(c, 100 * MS);
    // After 12: 10 is the oldest cached; after 10: 11; after 11: 13; after 14: 13; after 13 the cache is
    // empty and the commit is queueOffsetMax + 1.
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => [r.tUs, r.offset, r.increaseOnly])).toEqual([
      [10 * MS, 10, 1],
      [20 * MS, 11, 1],
      [30 * MS, 13, 1],
      [40 * MS, 13, 1],
      [50 * MS, 15, 1],
    ]);
    expect(c.offsetStore.readOffset(mq())).toBe(15);
    expect([pq.msgCount, pq.msgSize]).toEqual([0, 0]);
  });

  it("processConsumeResult: CONSUME_SUCCESS tells the observer of each message consumed, with its origin", () => {
    const { b, ctx, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 2 } });
    const origin = { originKey: (o: number) => 5 * 2 ** 32 + o, originBornUs: -7 * MS };
    submit(cached([3, 4], 0, origin), [3, 4], 0, origin);
    ctx.runTimers(c, 100 * MS);
    expect(b.observer.consumedCalls).toEqual([3, 4].map((o) => ({
      group: 0, mq: mq(), offset: o, originKey: 5 * 2 ** 32 + o, originBornUs: -7 * MS, consumerAddr: c.addr, nowUs: 20 * MS,
    })));
  });

  it("processConsumeResult: the commit is increase-only: a smaller smallest-cached offset does not move the stored one back", () => {
    const { ctx, c, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 } });
    const pq = cached([3, 4]);
    c.offsetStore.updateOffset(mq(), 20, false);
    submit(pq, [4]);
    ctx.runTimers(c, 100 * MS);
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => r.offset)).toEqual([3]);
    expect(c.offsetStore.readOffset(mq())).toBe(20);
  });

  it("processConsumeResult: RECONSUME_LATER sends every message of the call back, one RPC after another, then removes them and commits", () => {
    const { b, ctx, c, cached, submit, mq } = bench({
      config: { consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 3 },
      listener: { failureProbability: 1 },
    });
    const pq = cached([0, 1, 2]);
    submit(pq, [0, 1, 2]);
    playBroker(b, 1000 * MS);
    // Listener returns at 30 ms; each CONSUMER_SEND_MSG_BACK takes 1 ms up and 1 ms down.
    expect(ctx.records("consumeEnd").map((r) => [r.tUs, r.ok])).toEqual([[30 * MS, 0], [30 * MS, 0], [30 * MS, 0]]);
    // delayLevel 0: the broker chooses 3 + reconsumeTimes.
    expect(sendBacks(b).map((r) => [r.sentUs, r.msg.mq, r.msg.offset, r.msg.reconsumeTimes, r.msg.delayLevel])).toEqual([
      [30 * MS, mq(), 0, 0, 0],
      [32 * MS, mq(), 1, 0, 0],
      [34 * MS, mq(), 2, 0, 0],
    ]);
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => [r.tUs, r.offset])).toEqual([[36 * MS, 3]]);
    expect(pq.msgCount).toBe(0);
    expect(c.consumeService.busyWorkers).toBe(0);
  });

  it("sendMessageBack: the request goes to the queue's broker with the message's columns, maxReconsumeTimes and a 5 s time-out (§9.1)", () => {
    const { b, ctx, c, cached, submit, mq } = bench({
      config: { consumeThreadMin: 1, consumeThreadMax: 1, maxReconsumeTimes: 5 },
      listener: { failureProbability: 1 },
    });
    const columns: MessageOptions = { bodyBytes: 777, tag: 1, reconsumeTimes: 3, originKey: (o) => 9 * 2 ** 32 + 40 + o, originBornUs: 123 * MS };
    submit(cached([8], 0, columns), [8], 0, columns);
    ctx.runTimers(c, 10 * MS);
    const [r] = sendBacks(b);
    expect([r!.to, r!.cookie, r!.timeoutUs, r!.sentUs]).toEqual([BROKER_A, 0, 5000 * MS, 10 * MS]);
    const m = r!.msg;
    expect({ group: m.consumerGroup, mq: m.mq, offset: m.offset, delayLevel: m.delayLevel, maxReconsumeTimes: m.maxReconsumeTimes }).toEqual({
      group: 0, mq: mq(), offset: 8, delayLevel: 0, maxReconsumeTimes: 5,
    });
    expect({ originKey: m.originKey, originBornUs: m.originBornUs, bodyBytes: m.bodyBytes, tag: m.tag, reconsumeTimes: m.reconsumeTimes }).toEqual({
      originKey: 9 * 2 ** 32 + 48, originBornUs: 123 * MS, bodyBytes: 777, tag: 1, reconsumeTimes: 3,
    });
  });

  it("sendMessageBack: maxReconsumeTimes −1 (the default) is sent as 16", () => {
    const { b, ctx, c, cached, submit } = bench({ listener: { failureProbability: 1 } });
    submit(cached([0]), [0]);
    ctx.runTimers(c, 10 * MS);
    expect(sendBacks(b).map((r) => r.msg.maxReconsumeTimes)).toEqual([16]);
  });

  it("processConsumeResult: a failed send-back and a failed fallback keep the message cached, hold the offset, and re-submit it after 5000 ms (broker spec §8.1)", () => {
    const { b, ctx, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { failureProbability: 1 } });
    const pq = cached([0, 1]);
    submit(pq, [0]);
    playBroker(b, 100 * MS, { sendBackCode: ResponseCode.SYSTEM_ERROR });
    // Listener 10 ms; the send-back fails at 12 ms; the fallback's SEND_MESSAGE to %RETRY% (the only
    // broker: one attempt) fails at 14 ms: 0 stays cached, the commit stays at 0.
    expect(b.ctx.requests.filter((r) => r.msg.code === RequestCode.SEND_MESSAGE).map((r) => r.sentUs)).toEqual([12 * MS]);
    expect(pq.contains(0)).toBe(true);
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => [r.tUs, r.offset])).toEqual([[14 * MS, 0]]);
    expect(b.c.offsetStore.readOffset(mq())).toBe(0);
    playBroker(b, 5014 * MS, { sendBackCode: ResponseCode.SYSTEM_ERROR });
    expect(ctx.records("consumeStart").map((r) => [r.tUs, r.offset])).toEqual([
      [0, 0],
      [5014 * MS, 0],
    ]);
  });

  it("processConsumeResult: a send-back with no answer within 5 s falls back; a fallback with no answer within its 3 s budget fails: consumed again locally 5 s later", () => {
    const { b, ctx, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { failureProbability: 1 } });
    const pq = cached([0]);
    submit(pq, [0]);
    const lose = (r: { msg: { code: number } }) => r.msg.code === RequestCode.CONSUMER_SEND_MSG_BACK || r.msg.code === RequestCode.SEND_MESSAGE;
    playBroker(b, 13_100 * MS, { lose });
    // 10 ms listener + 5 s send-back time-out + 3 s fallback time-out = 8 010 ms; local retry 5 s later.
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => [r.tUs, r.offset])).toEqual([[8010 * MS, 0]]);
    expect(pq.contains(0)).toBe(true);
    expect(ctx.records("consumeStart").map((r) => r.tUs)).toEqual([0, 13_010 * MS]);
  });

  it("processConsumeResult: a failed send-back whose fallback the broker takes counts as sent back: the message leaves the cache and the offset moves on", () => {
    const { b, ctx, cached, submit, mq } = bench({ config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { failureProbability: 1 } });
    const pq = cached([0]);
    submit(pq, [0]);
    playBroker(b, 100 * MS, { lose: (r) => r.msg.code === RequestCode.CONSUMER_SEND_MSG_BACK });
    // Send-back lost: time-out at 5 010 ms; the fallback is answered SUCCESS at 5 012 ms — RECONSUME_TIME
    // rt + 1, delay level 3 + rt.
    playBroker(b, 5100 * MS, { lose: (r) => r.msg.code === RequestCode.CONSUMER_SEND_MSG_BACK });
    const fallback = b.ctx.requests.find((r) => r.msg.code === RequestCode.SEND_MESSAGE)!.msg as unknown as { reconsumeTimes: number; delayLevel: number };
    expect([fallback.reconsumeTimes, fallback.delayLevel]).toEqual([1, 3]);
    expect(pq.contains(0)).toBe(false);
    expect(ctx.records("offsetUpdate", { mq: mq() }).map((r) => [r.tUs, r.offset])).toEqual([[5012 * MS, 1]]);
  });

  it.each([
    ["4.9", [0, 1]],
    ["5.x", [1]],
  ] as const)("processConsumeResult (%s): of a failed call whose first message cleanExpiredMsg already removed, the offsets sent back are %j (5.x skips what is no longer cached)", (profile, sent) => {
    const { b, ctx, cached, submit } = bench({ profile, config: { consumeMessageBatchMaxSize: 2 }, listener: { failureProbability: 1 } });
    const pq = cached([0, 1]);
    submit(pq, [0, 1]);
    pq.removeMessage([0], 1, 5 * MS); // while the listener runs
    playBroker(b, 100 * MS);
    expect(sendBacks(b).map((r) => r.msg.offset)).toEqual(sent);
    expect(ctx.records("offsetUpdate").map((r) => r.offset)).toEqual([2]);
  });
});

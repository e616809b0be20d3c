// CONSUMER_SEND_MSG_BACK and the delay levels (spec §9.2, rocketmq-broker.md §6): the broker parks a
// sent-back message for its level's delay (ScheduleMessageService, one timer per level), then stores it in
// %RETRY%<group>, waking a pull held there; at maxReconsumeTimes or with delayLevel < 0 it goes to
// %DLQ%<group> at once; with retryQueueNums 0 it is discarded. Driven through the fixture (testBroker.ts):
// the test plays a client whose listener fails every time, sending each copy back by hand.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import type { SimpleResponse } from "../protocol/commands.ts";
import { messageKey } from "./QueueStore.ts";
import { BrokerFixture, BrokerTimer, MS, S, type RigInput } from "./testBroker.ts";

const T = 0;
const G = 0;
/** The default messageDelayLevel table, µs (index = level). */
const LEVEL_US = [0, 1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200].map((s) => s * S);

/** One message on T's queue (offset 0, born at −3600 s). */
function oneMessage(input: RigInput = {}): BrokerFixture {
  const fx = new BrokerFixture(input);
  fx.seedBacklog(1);
  return fx;
}

/**
 * Plays a client whose listener fails every attempt: it sends the original back at `firstUs`, then each
 * retry copy 1 s after the broker delivered it, until the broker dead-letters it.
 */
function failEveryAttempt(fx: BrokerFixture, maxReconsumeTimes: number, firstUs = 10 * MS): void {
  let mq = fx.queueOf(T);
  let offset = 0;
  let atUs = firstUs;
  for (let attempt = 0; attempt <= maxReconsumeTimes; attempt++) {
    fx.sendBack(atUs, { mq, offset, maxReconsumeTimes });
    if (fx.ctx.records("dlq").length > 0) return;
    fx.runUntil(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)[0]!.atUs);
    const d = fx.ctx.records("retryDelivered").at(-1)!;
    mq = d.mq as number;
    offset = d.offset as number;
    atUs = d.tUs + S;
  }
  throw new Error("the broker never dead-lettered the message");
}

describe("consumerSendMsgBack: delay levels, %RETRY% and %DLQ% (§9.2)", () => {
  it("sends back with level 3 + reconsumeTimes, delivers after the level's delay, and dead-letters at maxReconsumeTimes", () => {
    const fx = oneMessage();
    failEveryAttempt(fx, 2);
    const sent = fx.ctx.records("sendBack");
    expect(sent.map((r) => [r.reconsumeTimes, r.delayLevel])).toEqual([[0, 3], [1, 4]]);
    expect(sent[0]).toMatchObject({ tUs: 10 * MS, mq: fx.queueOf(T), offset: 0 });
    expect(sent[1]).toMatchObject({ mq: fx.retryQueue(G), offset: 0 });
    const delivered = fx.ctx.records("retryDelivered");
    expect(delivered).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(delivered[i]!.tUs).toBe(sent[i]!.tUs + LEVEL_US[sent[i]!.delayLevel as number]!);
      expect(delivered[i]).toMatchObject({ mq: fx.retryQueue(G), offset: i, reconsumeTimes: i + 1, group: G });
    }
    expect(fx.ctx.records("dlq")).toMatchObject([{ tUs: delivered[1]!.tUs + S, mq: fx.retryQueue(G), offset: 1, reconsumeTimes: 2, group: G }]);
  });

  it("answers every send-back SUCCESS at once, the dead-lettering one included", () => {
    const fx = oneMessage();
    failEveryAttempt(fx, 2);
    const answers = fx.ctx.replies.map((r) => [r.request.code, r.msg.code]);
    expect(answers).toEqual(Array(3).fill([RequestCode.CONSUMER_SEND_MSG_BACK, ResponseCode.SUCCESS]));
  });

  it("the retry and DLQ copies carry the original message's key and birth time, reconsumeTimes + 1 each hop", () => {
    const fx = oneMessage();
    failEveryAttempt(fx, 2);
    const original = fx.store(fx.queueOf(T));
    const key = messageKey(original.index, 0);
    const retry = fx.store(fx.retryQueue(G));
    const dlq = fx.store(fx.dlqQueue(G));
    expect(retry.maxOffset).toBe(2);
    expect(dlq.maxOffset).toBe(1);
    for (const [store, offset, rt] of [[retry, 0, 1], [retry, 1, 2], [dlq, 0, 2]] as const) {
      expect(store.originKey(offset)).toBe(key);
      expect(store.originBornUs(offset)).toBe(original.bornUs(0));
      expect(store.reconsumeTimes(offset)).toBe(rt);
    }
    expect(fx.observer.of("sentBack")).toEqual([[G, key], [G, key], [G, key]]);
    expect(fx.observer.of("retrying")).toEqual([[G, key], [G, key]]);
    expect(fx.observer.of("deadLettered")).toEqual([[G, key]]);
    expect(fx.observer.of("discarded")).toEqual([]);
  });

  it("levels above the 18th are clamped to 18 (2 h) when maxReconsumeTimes allows more than 16 retries", () => {
    // The request carries reconsumeTimes, so the whole chain's levels show without waiting 9 h for it.
    const fx = oneMessage();
    for (let rt = 0; rt <= 18; rt++) fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0, maxReconsumeTimes: 18, reconsumeTimes: rt });
    expect(fx.ctx.records("sendBack").map((r) => r.delayLevel)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 18, 18]);
    expect(fx.ctx.records("dlq")).toMatchObject([{ reconsumeTimes: 18 }]);
    // Level 18's one timer is due 2 h after the first message parked there.
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE).find((t) => t.arg === 18)).toMatchObject({ atUs: 10 * MS + LEVEL_US[18]! });
  });

  it("an explicit delay level is used as is", () => {
    const fx = oneMessage();
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0, delayLevel: 2 });
    expect(fx.ctx.records("sendBack")).toMatchObject([{ reconsumeTimes: 0, delayLevel: 2 }]);
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toMatchObject([{ atUs: 10 * MS + 5 * S, arg: 2 }]);
  });

  it("delayLevel −1 sends the message to %DLQ% at once, whatever its reconsumeTimes", () => {
    const fx = oneMessage();
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0, delayLevel: -1 });
    expect(fx.ctx.records("sendBack")).toEqual([]);
    expect(fx.ctx.records("dlq")).toMatchObject([{ tUs: 10 * MS, mq: fx.queueOf(T), offset: 0, reconsumeTimes: 0, group: G }]);
    expect(fx.store(fx.dlqQueue(G)).maxOffset).toBe(1);
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toEqual([]);
    expect(fx.observer.of("retrying")).toEqual([]);
  });

  it("a oneway send-back (cleanExpiredMsg) is handled the same and not answered", () => {
    const fx = oneMessage();
    const req = fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0, oneway: true });
    expect(fx.repliesTo(req)).toEqual([]);
    expect(fx.ctx.records("sendBack")).toMatchObject([{ delayLevel: 3 }]);
  });

  it("retryQueueNums 0: the broker answers SUCCESS and discards the message — no retry, no DLQ, no re-delivery", () => {
    const fx = oneMessage({ broker: { config: { retryQueueNums: 0 } } });
    const req = fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0 });
    expect(fx.reply<SimpleResponse>(req).code).toBe(ResponseCode.SUCCESS);
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toEqual([]);
    fx.runUntil(60 * S);
    expect(fx.ctx.records("sendBack")).toEqual([]);
    expect(fx.ctx.records("dlq")).toEqual([]);
    expect(fx.store(fx.retryQueue(G)).maxOffset).toBe(0);
    expect(fx.store(fx.dlqQueue(G)).maxOffset).toBe(0);
    expect(fx.observer.of("sentBack")).toEqual([]);
    expect(fx.observer.of("discarded")).toEqual([[G, messageKey(fx.queueOf(T), 0)]]);
  });

  it("a send-back carries the message (the broker never reads a client's state): its retry copy is made from the request even when the original is not stored", () => {
    const fx = new BrokerFixture();
    const mq = fx.queueOf(T);
    fx.sendBack(10 * MS, { mq, offset: 5000, originKey: 77, originBornUs: -5 * S, bodyBytes: 321, tag: 2, reconsumeTimes: 0 });
    fx.runUntil(10 * MS + 10 * S);
    const retry = fx.store(fx.retryQueue(G));
    expect(fx.store(mq).maxOffset).toBe(0);
    expect([retry.maxOffset, retry.originKey(0), retry.originBornUs(0), retry.bodyBytes(0), retry.tag(0), retry.reconsumeTimes(0)])
      .toEqual([1, 77, -5 * S, 321, 2, 1]);
  });
});

describe("ScheduleMessageService: parking and delivery per level", () => {
  it("one timer per level: messages of a level are delivered in order, each at its own due time", () => {
    const fx = oneMessage();
    fx.seedBacklog(1); // offset 1
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0 });
    fx.sendBack(2 * S, { mq: fx.queueOf(T), offset: 1 });
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toMatchObject([{ atUs: 10 * MS + 10 * S, arg: 3 }]);
    fx.runUntil(10 * MS + 10 * S);
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toMatchObject([{ atUs: 12 * S, arg: 3 }]);
    fx.runUntil(12 * S);
    expect(fx.ctx.records("retryDelivered").map((r) => [r.tUs, r.offset])).toEqual([[10 * MS + 10 * S, 0], [12 * S, 1]]);
    expect([0, 1].map((o) => fx.store(fx.retryQueue(G)).originKey(o))).toEqual([messageKey(fx.queueOf(T), 0), messageKey(fx.queueOf(T), 1)]);
    expect(fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE)).toEqual([]);
  });

  it("levels run independently: a 5 s level-2 message parked later is delivered before a 10 s level-3 one", () => {
    const fx = oneMessage();
    fx.seedBacklog(1);
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0 });
    fx.sendBack(S, { mq: fx.queueOf(T), offset: 1, delayLevel: 2 });
    fx.runUntil(20 * S);
    expect(fx.ctx.records("retryDelivered").map((r) => r.tUs)).toEqual([6 * S, 10 * MS + 10 * S]);
  });

  it("a pull held on the retry queue is answered when the delivery wakes it", () => {
    const fx = oneMessage();
    fx.heartbeat(0, 0, 100);
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0 });
    const req = fx.pull(20 * MS, { offset: 0, mq: fx.retryQueue(G), subVersion: 100 });
    expect(fx.ctx.records("pullHeld")).toMatchObject([{ mq: fx.retryQueue(G), offset: 0 }]);
    const dueUs = 10 * MS + LEVEL_US[3]!;
    fx.runUntil(dueUs - 1);
    expect(fx.answers(req)).toEqual([]);
    // The delivery stores the retry at dueUs (10 ms + 10 s, on the 1 ms reput grid): the reput pass at
    // dueUs dispatches it and wakes the pull (reput.ts), an event of its own at the same time.
    fx.wakeUp(dueUs);
    expect(fx.answers(req)).toMatchObject([{ atUs: dueUs, code: ResponseCode.SUCCESS, nextBeginOffset: 1, offsets: [0] }]);
  });

  it("longPollingEnable false: the delivery wakes no held pull; the next 1 s tick answers it", () => {
    const fx = oneMessage({ broker: { config: { longPollingEnable: false } } });
    fx.heartbeat(0, 0, 100);
    fx.sendBack(10 * MS, { mq: fx.queueOf(T), offset: 0 });
    const req = fx.pull(9500 * MS, { offset: 0, mq: fx.retryQueue(G), subVersion: 100 });
    fx.runUntil(10 * MS + LEVEL_US[3]!);
    expect(fx.ctx.records("retryDelivered")).toHaveLength(1);
    expect(fx.answers(req)).toEqual([]);
    fx.runUntil(12 * S);
    expect(fx.answers(req)).toMatchObject([{ atUs: 11 * S, code: ResponseCode.SUCCESS, offsets: [0] }]);
  });
});

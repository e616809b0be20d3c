// The broker's side of orderly consumption, driven through the fixture (testBroker.ts): LOCK_BATCH_MQ and
// UNLOCK_BATCH_MQ on its RebalanceLockManager (spec rocketmq-consumer.md §8.5, §15.6), and SEND_MESSAGE of
// a retry message from a client's internal producer — the orderly service's sendMessageBack (§8.4) —
// decided as SendMessageProcessor#handleRetryAndDLQ does (rocketmq-broker.md §8.1): 4.9 dead-letters at
// RECONSUME_TIME ≥ max, 5.x at > max and, since 5.1.1, whenever the group holds an unexpired queue lock
// on this broker; below that the message is parked at its delay level (clamped to the highest, §9.2) and
// delivered into %RETRY%<group> with the RECONSUME_TIME it carried. The rules of the lock table itself
// are in RebalanceLockManager.test.ts; here: what crosses the wire and what the broker stores.
import { describe, expect, it } from "vitest";
import { clientAddr } from "../protocol/address.ts";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import {
  LockBatchRequest, SendRetryMessageRequest, UnlockBatchRequest, type LockBatchResponse, type SimpleResponse,
} from "../protocol/commands.ts";
import { BrokerFixture, BrokerTimer, S, type RigInput } from "./testBroker.ts";

const T = 0; // model topic index of the fixture's default topic "T"
const G = 0; // group "G"
const H = 1; // group "H", only in fixtures that declare it
/** rocketmq.broker.rebalance.lockMaxLiveTime (§0.5), µs. */
const LIVE_US = 60 * S;
/** The default messageDelayLevel table (§9.2), µs, index = level. */
const LEVEL_US = [0, 1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200].map((s) => s * S);
/** The message the retry send carries (the broker never reads a client's state, so any columns do). */
const MSG = { originKey: 77, originBornUs: -5 * S, bodyBytes: 321, tag: 2 };

/** Topic T with 4 queues on broker-a, so batches have several queues to ask for. */
function fixture(input: RigInput = {}): BrokerFixture {
  return new BrokerFixture({ topic: { queuesPerBroker: 4 }, ...input });
}

interface LockInput {
  /** Client instance slot: the connection the request comes from. */
  slot?: number;
  /** Default `client-<slot>`. */
  clientId?: string;
  group?: number;
}

/** LOCK_BATCH_MQ for `mqs` reaching the broker at `atUs`. */
function lockBatch(fx: BrokerFixture, atUs: number, mqs: number[], o: LockInput = {}): LockBatchRequest {
  const slot = o.slot ?? 0;
  return fx.deliver(atUs, new LockBatchRequest(o.group ?? G, o.clientId ?? `client-${slot}`, mqs), clientAddr(slot, 0));
}

/** The queues the broker answered locked. */
function lockedBy(fx: BrokerFixture, req: LockBatchRequest): number[] {
  return [...fx.reply<LockBatchResponse>(req).lockOKMQSet];
}

/** UNLOCK_BATCH_MQ, oneway unless `oneway` is false. */
function unlockBatch(fx: BrokerFixture, atUs: number, mqs: number[], o: LockInput & { oneway?: boolean } = {}): UnlockBatchRequest {
  const slot = o.slot ?? 0;
  const req = new UnlockBatchRequest(o.group ?? G, o.clientId ?? `client-${slot}`, mqs);
  return fx.deliver(atUs, req, clientAddr(slot, 0), o.oneway ?? true);
}

interface RetryInput {
  /** RECONSUME_TIME of the retry message. */
  reconsumeTimes: number;
  maxReconsumeTimes?: number;
  /** Default 3 + reconsumeTimes, as the client sets it (§8.4). */
  delayLevel?: number;
  group?: number;
}

/** SEND_MESSAGE of a retry message for MSG, consumed from T's queue 0 at offset 9, reaching the broker at `atUs`. */
function sendRetry(fx: BrokerFixture, atUs: number, r: RetryInput): SendRetryMessageRequest {
  const req = new SendRetryMessageRequest(
    r.group ?? G, fx.queueOf(T), 9, r.delayLevel ?? 3 + r.reconsumeTimes, r.maxReconsumeTimes ?? 16,
    MSG.originKey, MSG.originBornUs, MSG.bodyBytes, MSG.tag, r.reconsumeTimes,
  );
  return fx.deliver(atUs, req, clientAddr(0, 0));
}

/** Where the retry went: messages in the group's DLQ and retry queues, and parked schedule timers. */
function outcome(fx: BrokerFixture, group = G) {
  return {
    dlq: fx.store(fx.routes.dlqQueue(group, 0)).maxOffset,
    retry: fx.store(fx.routes.retryQueue(group, 0)).maxOffset,
    parked: fx.ctx.pendingTimers(BrokerTimer.SCHEDULE_DUE).map((t) => ({ atUs: t.atUs, level: t.arg })),
  };
}

describe("LOCK_BATCH_MQ: the broker answers the queues it locked for the client id (§8.5, §15.6)", () => {
  it("a free batch is locked whole and answered SUCCESS at once, in the order asked", () => {
    const fx = fixture();
    const [q0, q1, q2] = [0, 1, 2].map((i) => fx.queueOf(T, i));
    const req = lockBatch(fx, 3 * S, [q2!, q0!, q1!]);
    expect(fx.reply<LockBatchResponse>(req).code).toBe(ResponseCode.SUCCESS);
    expect(fx.repliesTo(req)[0]!.atUs).toBe(3 * S);
    expect(lockedBy(fx, req)).toEqual([q2, q0, q1]);
  });

  it("a second client is answered only the queues nobody else holds; asking again, the first keeps its own", () => {
    const fx = fixture();
    const [q0, q1, q2] = [0, 1, 2].map((i) => fx.queueOf(T, i));
    lockBatch(fx, 0, [q0!, q1!], { slot: 0 });
    expect(lockedBy(fx, lockBatch(fx, S, [q1!, q2!], { slot: 1 }))).toEqual([q2]);
    expect(lockedBy(fx, lockBatch(fx, 2 * S, [q0!, q1!, q2!], { slot: 0 }))).toEqual([q0, q1]);
  });

  it("writes one lockBatch trace record per request: broker, group, queues asked and queues locked", () => {
    const fx = fixture();
    const [q0, q1] = [0, 1].map((i) => fx.queueOf(T, i));
    lockBatch(fx, 0, [q0!], { slot: 0 });
    lockBatch(fx, S, [q0!, q1!], { slot: 1 });
    expect(fx.ctx.records("lockBatch")).toMatchObject([
      { tUs: 0, broker: 0, group: G, asked: 1, locked: 1 },
      { tUs: S, broker: 0, group: G, asked: 2, locked: 1 },
    ]);
  });

  it("two connections presenting the same client id share the lock; a third id is refused", () => {
    const fx = fixture();
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0], { slot: 0, clientId: "shared" });
    expect(lockedBy(fx, lockBatch(fx, S, [q0], { slot: 1, clientId: "shared" }))).toEqual([q0]);
    expect(lockedBy(fx, lockBatch(fx, 2 * S, [q0], { slot: 2, clientId: "other" }))).toEqual([]);
    // The second connection's request refreshed the lock at 1 s: still held at 61 s.
    expect(lockedBy(fx, lockBatch(fx, S + LIVE_US, [q0], { slot: 2, clientId: "other" }))).toEqual([]);
  });

  it("another client takes a lock over only after 60 s + 1 µs without a refresh", () => {
    const fx = fixture();
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, S, [q0], { slot: 0 });
    expect(lockedBy(fx, lockBatch(fx, S + LIVE_US, [q0], { slot: 1 }))).toEqual([]);
    expect(lockedBy(fx, lockBatch(fx, S + LIVE_US + 1, [q0], { slot: 1 }))).toEqual([q0]);
    expect(fx.broker.locks.holder(G, q0, S + LIVE_US + 1)?.clientId).toBe("client-1");
  });

  it("locks of different groups on the same queue are independent", () => {
    const fx = fixture({ groups: [{ name: "G", subscribe: { T: "*" } }, { name: "H", subscribe: { T: "*" } }] });
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0], { slot: 0, group: G });
    expect(lockedBy(fx, lockBatch(fx, S, [q0], { slot: 1, group: H }))).toEqual([q0]);
  });
});

describe("UNLOCK_BATCH_MQ: the holder releases its queues (§8.5, §10.5)", () => {
  it("oneway: no answer, and the queue is free for another client at once", () => {
    const fx = fixture();
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0], { slot: 0 });
    const req = unlockBatch(fx, S, [q0], { slot: 0 });
    expect(fx.repliesTo(req)).toEqual([]);
    expect(lockedBy(fx, lockBatch(fx, 2 * S, [q0], { slot: 1 }))).toEqual([q0]);
  });

  it("as a request: answered SUCCESS, the lock released", () => {
    const fx = fixture();
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0], { slot: 0 });
    const req = unlockBatch(fx, S, [q0], { slot: 0, oneway: false });
    expect(fx.reply<SimpleResponse>(req).code).toBe(ResponseCode.SUCCESS);
    expect(fx.broker.locks.holder(G, q0, S)).toBeNull();
  });

  it("a batch releases only the entries the asker holds; a non-owner's unlock changes nothing", () => {
    const fx = fixture();
    const [q0, q1] = [0, 1].map((i) => fx.queueOf(T, i));
    lockBatch(fx, 0, [q0!], { slot: 0 });
    lockBatch(fx, 0, [q1!], { slot: 1 });
    unlockBatch(fx, S, [q0!, q1!], { slot: 2 }); // client-2 holds neither
    expect([q0!, q1!].map((q) => fx.broker.locks.holder(G, q, S)?.clientId)).toEqual(["client-0", "client-1"]);
    unlockBatch(fx, 2 * S, [q0!, q1!], { slot: 0 });
    expect([q0!, q1!].map((q) => fx.broker.locks.holder(G, q, 2 * S)?.clientId)).toEqual([undefined, "client-1"]);
    expect(lockedBy(fx, lockBatch(fx, 3 * S, [q0!, q1!], { slot: 2 }))).toEqual([q0]);
  });
});

describe("restart(): the lock table is in memory only (§8.5)", () => {
  it("after a crash and restart every lock is gone: another client locks at once, the group reads all-expired", () => {
    const fx = fixture();
    const [q0, q1] = [0, 1].map((i) => fx.queueOf(T, i));
    lockBatch(fx, 0, [q0!, q1!], { slot: 0 });
    fx.runUntil(S);
    fx.broker.crash();
    fx.broker.restart();
    expect(fx.broker.locks.isLockAllExpired(G, S)).toBe(true);
    expect(lockedBy(fx, lockBatch(fx, 2 * S, [q0!, q1!], { slot: 1 }))).toEqual([q0, q1]);
  });
});

describe("SEND_MESSAGE of a retry message, profile 4.9: DLQ at RECONSUME_TIME ≥ max, no lock rule (broker spec §8.1, §8.4)", () => {
  it("RECONSUME_TIME 16 with max 16 is appended to %DLQ%<group> with its columns, answered SUCCESS, nothing parked", () => {
    const fx = fixture();
    const req = sendRetry(fx, 2 * S, { reconsumeTimes: 16 });
    expect(fx.reply<SimpleResponse>(req).code).toBe(ResponseCode.SUCCESS);
    expect(outcome(fx)).toEqual({ dlq: 1, retry: 0, parked: [] });
    const dlq = fx.store(fx.dlqQueue(G));
    expect([dlq.originKey(0), dlq.originBornUs(0), dlq.bodyBytes(0), dlq.tag(0), dlq.reconsumeTimes(0)])
      .toEqual([MSG.originKey, MSG.originBornUs, MSG.bodyBytes, MSG.tag, 16]);
    expect(fx.observer.of("sentBack")).toEqual([[G, MSG.originKey]]);
    expect(fx.observer.of("deadLettered")).toEqual([[G, MSG.originKey]]);
    expect(fx.observer.of("retrying")).toEqual([]);
    expect(fx.ctx.records("dlq")).toMatchObject([{ tUs: 2 * S, mq: fx.queueOf(T), offset: 9, reconsumeTimes: 16, group: G }]);
  });

  it("RECONSUME_TIME 15 with max 16 (one below) is parked at level 18 (2 h), not dead-lettered", () => {
    const fx = fixture();
    sendRetry(fx, 2 * S, { reconsumeTimes: 15 }); // delay level 3 + 15 = 18
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: 2 * S + LEVEL_US[18]!, level: 18 }] });
    expect(fx.observer.of("retrying")).toEqual([[G, MSG.originKey]]);
    expect(fx.observer.of("deadLettered")).toEqual([]);
  });

  it("below max: delivered into %RETRY%<group> after the level's delay, RECONSUME_TIME carried as sent (not + 1)", () => {
    const fx = fixture();
    sendRetry(fx, 2 * S, { reconsumeTimes: 2 }); // level 5: 1 min
    const dueUs = 2 * S + LEVEL_US[5]!;
    expect(outcome(fx).parked).toEqual([{ atUs: dueUs, level: 5 }]);
    fx.runUntil(dueUs - 1);
    expect(outcome(fx).retry).toBe(0);
    fx.runUntil(dueUs);
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 1, parked: [] });
    const retry = fx.store(fx.retryQueue(G));
    expect([retry.originKey(0), retry.originBornUs(0), retry.bodyBytes(0), retry.tag(0), retry.reconsumeTimes(0)])
      .toEqual([MSG.originKey, MSG.originBornUs, MSG.bodyBytes, MSG.tag, 2]);
    expect(fx.ctx.records("retryDelivered")).toMatchObject([{ tUs: dueUs, mq: fx.retryQueue(G), offset: 0, reconsumeTimes: 2, group: G }]);
    expect(fx.ctx.records("sendBack")).toMatchObject([{ tUs: 2 * S, mq: fx.queueOf(T), offset: 9, reconsumeTimes: 2, delayLevel: 5 }]);
  });

  it("a delay level above the highest is clamped to 18 (HookUtils, §9.2): RECONSUME_TIME 16 with max 20 asks level 19", () => {
    const fx = fixture();
    sendRetry(fx, 2 * S, { reconsumeTimes: 16, maxReconsumeTimes: 20 });
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: 2 * S + LEVEL_US[18]!, level: 18 }] });
    expect(fx.ctx.records("sendBack")).toMatchObject([{ delayLevel: 18 }]);
  });

  it("the group holding an unexpired queue lock here changes nothing in 4.9: a retry below max is parked", () => {
    const fx = fixture();
    lockBatch(fx, 0, [fx.queueOf(T, 0)]);
    sendRetry(fx, S, { reconsumeTimes: 1 });
    expect(fx.broker.locks.isLockAllExpired(G, S)).toBe(false);
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: S + LEVEL_US[4]!, level: 4 }] });
  });
});

describe("SEND_MESSAGE of a retry message, profile 5.x: DLQ at RECONSUME_TIME > max, or whenever the group holds a lock here (broker spec §8.1, ISSUE #6163)", () => {
  const FIVE: RigInput = { profile: "5.x" };

  it("RECONSUME_TIME 16 with max 16 is not over the max: parked at level 18 (4.9 would dead-letter it)", () => {
    const fx = fixture(FIVE);
    sendRetry(fx, 2 * S, { reconsumeTimes: 16, delayLevel: 18 });
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: 2 * S + LEVEL_US[18]!, level: 18 }] });
  });

  it("RECONSUME_TIME 17 with max 16 goes to %DLQ%<group>", () => {
    const fx = fixture(FIVE);
    const req = sendRetry(fx, 2 * S, { reconsumeTimes: 17, delayLevel: 18 });
    expect(fx.reply<SimpleResponse>(req).code).toBe(ResponseCode.SUCCESS);
    expect(outcome(fx)).toEqual({ dlq: 1, retry: 0, parked: [] });
    expect(fx.store(fx.dlqQueue(G)).reconsumeTimes(0)).toBe(17);
    expect(fx.observer.of("deadLettered")).toEqual([[G, MSG.originKey]]);
  });

  it("with the group holding an unexpired lock here, RECONSUME_TIME 1 (far below max) goes straight to %DLQ%", () => {
    const fx = fixture(FIVE);
    lockBatch(fx, 0, [fx.queueOf(T, 2)]); // any queue of the group on this broker
    sendRetry(fx, S, { reconsumeTimes: 1 });
    expect(outcome(fx)).toEqual({ dlq: 1, retry: 0, parked: [] });
    expect(fx.observer.of("sentBack")).toEqual([[G, MSG.originKey]]);
    expect(fx.observer.of("deadLettered")).toEqual([[G, MSG.originKey]]);
    expect(fx.observer.of("retrying")).toEqual([]);
  });

  it("a lock held by another group does not count: the retry is parked", () => {
    const fx = fixture({ ...FIVE, groups: [{ name: "G", subscribe: { T: "*" } }, { name: "H", subscribe: { T: "*" } }] });
    lockBatch(fx, 0, [fx.queueOf(T, 0)], { group: H });
    sendRetry(fx, S, { reconsumeTimes: 1, group: G });
    expect(outcome(fx, G)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: S + LEVEL_US[4]!, level: 4 }] });
    expect(outcome(fx, H).dlq).toBe(0);
  });

  it("the lock counts until exactly 60 s after its last refresh; 1 µs later the retry is parked", () => {
    const fx = fixture(FIVE);
    lockBatch(fx, S, [fx.queueOf(T, 0)]);
    sendRetry(fx, S + LIVE_US, { reconsumeTimes: 1 }); // 60 s old: still held ⇒ DLQ
    expect(outcome(fx)).toEqual({ dlq: 1, retry: 0, parked: [] });
    sendRetry(fx, S + LIVE_US + 1, { reconsumeTimes: 1 }); // expired ⇒ level 4 (30 s)
    expect(outcome(fx)).toEqual({ dlq: 1, retry: 0, parked: [{ atUs: S + LIVE_US + 1 + LEVEL_US[4]!, level: 4 }] });
  });

  it("a refresh (LOCK_BATCH_MQ again) keeps the rule on: locked at 0, refreshed at 50 s, a retry at 100 s is dead-lettered", () => {
    const fx = fixture(FIVE);
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0]);
    lockBatch(fx, 50 * S, [q0]);
    sendRetry(fx, 100 * S, { reconsumeTimes: 1 }); // 50 s after the refresh (100 s after the first lock)
    expect(outcome(fx).dlq).toBe(1);
  });

  it("after UNLOCK_BATCH_MQ of the group's last lock the retry is parked again", () => {
    const fx = fixture(FIVE);
    const q0 = fx.queueOf(T, 0);
    lockBatch(fx, 0, [q0]);
    unlockBatch(fx, S, [q0]);
    sendRetry(fx, 2 * S, { reconsumeTimes: 1 });
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: 2 * S + LEVEL_US[4]!, level: 4 }] });
  });

  it("after a broker restart the forgotten locks no longer send retries to the DLQ", () => {
    const fx = fixture(FIVE);
    lockBatch(fx, 0, [fx.queueOf(T, 0)]);
    fx.runUntil(S);
    fx.broker.crash();
    fx.broker.restart();
    sendRetry(fx, 2 * S, { reconsumeTimes: 1 });
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [{ atUs: 2 * S + LEVEL_US[4]!, level: 4 }] });
  });

  it("a parked retry is delivered into %RETRY%<group> with the RECONSUME_TIME it carried", () => {
    const fx = fixture(FIVE);
    sendRetry(fx, 2 * S, { reconsumeTimes: 3 }); // level 6: 2 min
    fx.runUntil(2 * S + LEVEL_US[6]!);
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 1, parked: [] });
    expect(fx.store(fx.retryQueue(G)).reconsumeTimes(0)).toBe(3);
  });
});

describe("SEND_MESSAGE of a retry message to a broker that takes no writes (broker spec §8.1)", () => {
  it.each(["4.9", "5.x"] as const)("profile %s: NO_PERMISSION while setWritable(false), nothing stored, parked or observed; SUCCESS again once writable", (profile) => {
    const fx = fixture({ profile });
    fx.broker.setWritable(false);
    const toDlq = sendRetry(fx, S, { reconsumeTimes: 17 });
    const toRetry = sendRetry(fx, S, { reconsumeTimes: 1 });
    expect([toDlq, toRetry].map((r) => fx.reply<SimpleResponse>(r).code)).toEqual([ResponseCode.NO_PERMISSION, ResponseCode.NO_PERMISSION]);
    expect(outcome(fx)).toEqual({ dlq: 0, retry: 0, parked: [] });
    expect(fx.observer.calls.filter((c) => c[0] !== "messageStored")).toEqual([]);
    fx.broker.setWritable(true);
    const again = sendRetry(fx, 2 * S, { reconsumeTimes: 17 });
    expect(fx.reply<SimpleResponse>(again).code).toBe(ResponseCode.SUCCESS);
    expect(outcome(fx).dlq).toBe(1);
  });

  it("the answer is a reply to the SEND_MESSAGE request itself", () => {
    const fx = fixture();
    const req = sendRetry(fx, S, { reconsumeTimes: 1 });
    expect(fx.ctx.replies.map((r) => [r.request.code, r.msg.code])).toEqual([[RequestCode.SEND_MESSAGE, ResponseCode.SUCCESS]]);
    expect(fx.repliesTo(req)[0]!.atUs).toBe(S);
  });
});

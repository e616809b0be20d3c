// The broker's handlers, driven by hand through a rig (testBroker.ts): requests reach the broker at
// chosen virtual times, answers are read where the client receives them (one 1 ms hop later).
// Expected numbers come from the spec sections cited in each describe.
import { describe, expect, it, vi } from "vitest";
import { simulate } from "../model/simulate.ts";
import { offsetKey } from "./Broker.ts";
import { ResponseCode } from "./getMessage.ts";
import { FATE_DLQ, messageKey } from "./QueueStore.ts";
import { LATER_REASON } from "../model/kinds.ts";
import { HOP_US, MS, S, answers, at, heartbeatAt, pullAt, queueOf, records, rig, type RigInput } from "./testBroker.ts";

const T = 0; // model topic index of the rig's default topic "T"
const G = 0; // group index of "G"

/**
 * §15.6's PullMessageProcessorTest store: min 100, max 1024. 1024 messages seeded evenly over the hour
 * before t = 0 are born 3600 s / 1024 = 3.515625 s apart, the i-th at −3600 s + i × 3.515625 s; a
 * 3250 s retention deletes those born before −3250 s, i.e. i < 99.56: offsets 0–99 (until t = 1.56 s).
 */
function store1024(extra: RigInput = {}) {
  const w = rig({ ...extra, topic: { produce: { rate: 0, backlog: 1024 }, retention: "3250s" } });
  heartbeatAt(w, 0, 0, 100);
  return w;
}

describe("processRequest: the subscription checks (§13.1 step 6, §5, §4.4)", () => {
  it("a pull from a group that never sent a heartbeat is answered SUBSCRIPTION_NOT_EXIST and retried after 1000 ms", () => {
    const w = rig({ topic: { produce: { rate: 0, backlog: 10 } } });
    const pr = pullAt(w, 100 * MS, { offset: 0, commitOffset: 5 });
    w.sched.runUntil(S);
    expect(answers(w, pr)).toMatchObject([{ tUs: 100 * MS + HOP_US, code: ResponseCode.SUBSCRIPTION_NOT_EXIST }]);
    expect(records(w, "pullLater", { mq: pr.mq })[0]).toMatchObject({ tUs: 100 * MS + HOP_US, delayMs: 1000, reason: LATER_REASON.exception });
    // The check answers before tryCommitOffset is reached.
    expect(w.brokers[0]!.queryOffset(G, pr.mq)).toBe(-1);
  });

  it("a heartbeat from another group does not register this one; its own heartbeat does", () => {
    const w = rig({
      topic: { produce: { rate: 0, backlog: 10 } },
      groups: [{ name: "G", subscribe: { T: "*" } }, { name: "H", subscribe: { T: "*" } }],
    });
    heartbeatAt(w, 0, 1, 100); // consumer 1 is H's
    const before = pullAt(w, 10 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(20 * MS);
    heartbeatAt(w, 30 * MS, 0, 100);
    const after = pullAt(w, 40 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, before)[0]!.code).toBe(ResponseCode.SUBSCRIPTION_NOT_EXIST);
    expect(answers(w, after)[1]).toMatchObject({ tUs: 40 * MS + HOP_US, code: ResponseCode.SUCCESS });
  });

  it("a pull on a topic the group does not subscribe is SUBSCRIPTION_NOT_EXIST", () => {
    const w = rig({
      topics: [
        { name: "T", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 0, backlog: 10 } },
        { name: "U", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 0, backlog: 10 } },
      ],
    });
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 10 * MS, { offset: 0, mq: queueOf(w, 1), subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]!.code).toBe(ResponseCode.SUBSCRIPTION_NOT_EXIST);
  });

  it("request subVersion 101 against the broker's 100 is SUBSCRIPTION_NOT_LATEST, an exception retried after 1000 ms (§15.6)", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, subVersion: 101 });
    w.sched.runUntil(S);
    expect(answers(w, pr)).toMatchObject([{ tUs: 10 * MS + HOP_US, code: ResponseCode.SUBSCRIPTION_NOT_LATEST }]);
    expect(records(w, "pullLater", { mq: pr.mq })[0]).toMatchObject({ tUs: 10 * MS + HOP_US, delayMs: 1000, reason: LATER_REASON.exception });
    expect(w.metrics.pulls.exception).toBe(1);
  });

  it.each([100, 99])("request subVersion %i, not newer than the broker's 100, is served", (subVersion) => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, subVersion });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]!.code).toBe(ResponseCode.SUCCESS);
  });
});

describe("processRequest: getMessage status → response code (§13.2, §13.3, §15.6)", () => {
  it("offset 456 in a queue [100, 1024) is FOUND: 32 hot messages (the in-memory count cap), nextBeginOffset 488", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, maxMsgNums: 100, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)).toMatchObject([{ tUs: 10 * MS + HOP_US, code: ResponseCode.SUCCESS, nextBeginOffset: 456 + 32 }]);
    expect(pr.result.count).toBe(32);
    expect(Array.from(pr.result.offsets.subarray(0, 32))).toEqual(Array.from({ length: 32 }, (_, i) => 456 + i));
    expect(pr.result.minOffset).toBe(100);
    expect(pr.result.maxOffset).toBe(1024);
  });

  it("messages beyond hotBytes of the commit-log tail come 8 at a time (the on-disk count cap)", () => {
    const w = store1024({ broker: { hotBytes: "1KiB" } });
    const pr = pullAt(w, 10 * MS, { offset: 456, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.SUCCESS, nextBeginOffset: 456 + 8 });
  });

  it("offset 50 below minOffset 100 is PULL_OFFSET_MOVED to 100 (OFFSET_TOO_SMALL)", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 50, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 100 });
  });

  it("offset 2000 beyond maxOffset 1024 is PULL_OFFSET_MOVED to 1024 (OFFSET_OVERFLOW_BADLY)", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 2000, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 1024 });
  });

  it("offset 456 on a queue never written is PULL_OFFSET_MOVED to 0 (NO_MESSAGE_IN_QUEUE, offset ≠ 0)", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, mq: w.retryQueue(G, 0), subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 0 });
  });

  // A tag filter matching nothing: the scan looks at max(16000, 32 × 20) / 20 = 800 units at most.
  const allB = (backlog: number) => rig({
    topic: { produce: { rate: 0, backlog, tags: { A: 0, B: 1 } } },
    group: { subscribe: { T: "A" } },
  });

  it("a scan of 1000 messages that all fail the tag filter is PULL_RETRY_IMMEDIATELY, moving on 800 units", () => {
    const w = allB(1000);
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 10 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.PULL_RETRY_IMMEDIATELY, nextBeginOffset: 800 });
  });

  it("a filtered-out scan shorter than the window moves on to maxOffset", () => {
    const w = allB(100);
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 10 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]).toMatchObject({ code: ResponseCode.PULL_RETRY_IMMEDIATELY, nextBeginOffset: 100 });
  });
});

describe("tryCommitOffset (§13.5, §13.6)", () => {
  it("a pull carrying commitOffset 123 stores 123 for the group and queue (§15.6)", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, commitOffset: 123, subVersion: 100 });
    w.sched.runUntil(S);
    expect(w.brokers[0]!.queryOffset(G, pr.mq)).toBe(123);
    expect(records(w, "offsetCommit")).toMatchObject([{ tUs: 10 * MS, mq: pr.mq, group: G, offset: 123, viaPull: 1 }]);
  });

  it("without the COMMIT_OFFSET bit (commitOffset −1) nothing is stored", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 456, commitOffset: -1, subVersion: 100 });
    w.sched.runUntil(S);
    expect(w.brokers[0]!.queryOffset(G, pr.mq)).toBe(-1);
    expect(records(w, "offsetCommit")).toEqual([]);
  });

  it("the broker overwrites: commit 300 then commit 200 leaves 200", () => {
    const w = store1024();
    const a = pullAt(w, 10 * MS, { offset: 456, commitOffset: 300, subVersion: 100, consumer: 0 });
    w.sched.runUntil(20 * MS);
    pullAt(w, 30 * MS, { offset: 488, commitOffset: 200, subVersion: 100, consumer: 0 });
    w.sched.runUntil(S);
    expect(w.brokers[0]!.queryOffset(G, a.mq)).toBe(200);
  });

  it("a commit piggy-backed on a pull answered PULL_OFFSET_MOVED is stored too", () => {
    const w = store1024();
    const pr = pullAt(w, 10 * MS, { offset: 50, commitOffset: 77, subVersion: 100 });
    // Before the client's 4.9 OFFSET_ILLEGAL fix (10 s later) writes its own value.
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]!.code).toBe(ResponseCode.PULL_OFFSET_MOVED);
    expect(w.brokers[0]!.queryOffset(G, pr.mq)).toBe(77);
  });

  it("a held pull commits on its first processing only, not when the long-poll replays it", () => {
    // One message a second, evenly: born at 1 s, 2 s, …; at 1.5 s offset 1 is maxOffset, so the pull is held.
    const w = rig({ topic: { produce: { rate: 1, arrival: "uniform" } } });
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 1500 * MS, { offset: 1, commitOffset: 1, subVersion: 100 });
    // An UPDATE_CONSUMER_OFFSET overwrites the stored value while the pull is held.
    w.sched.scheduleAt(1700 * MS, w.kinds.offsetUpdate, 0, offsetKey(G, pr.mq), 0);
    w.sched.runUntil(3 * S);
    expect(answers(w, pr)[0]).toMatchObject({ tUs: 2 * S + HOP_US, code: ResponseCode.SUCCESS });
    expect(records(w, "offsetCommit", { viaPull: 1 })).toMatchObject([{ tUs: 1500 * MS, offset: 1 }]);
    expect(w.brokers[0]!.queryOffset(G, pr.mq)).toBe(0);
  });
});

describe("long polling: PullRequestHoldService (§13.4)", () => {
  it("a pull at maxOffset gets no answer until the next message arrives, then one hop after its birth", () => {
    const w = rig({ topic: { produce: { rate: 1, arrival: "uniform" } } });
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 1500 * MS, { offset: 1, subVersion: 100 });
    w.sched.runUntil(3 * S);
    expect(records(w, "pullHeld")).toMatchObject([{ tUs: 1500 * MS, mq: pr.mq, offset: 1 }]);
    expect(answers(w, pr)).toMatchObject([{ tUs: 2 * S + HOP_US, code: ResponseCode.SUCCESS, nextBeginOffset: 2 }]);
    expect(pr.result.count).toBe(1);
  });

  it("a hold with a tag filter ignores arrivals of other tags and wakes on the first matching one", () => {
    // Ten messages a second, evenly, tags A and B at random; the group takes only A (tag index 0).
    // Seed 2 happens to draw B, B before the first A.
    const w = rig({ seed: 2, topic: { produce: { rate: 10, arrival: "uniform", tags: { A: 1, B: 1 } } }, group: { subscribe: { T: "A" } } });
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 50 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(4 * S);
    const store = w.queues[pr.mq]!;
    let firstA = 0;
    while (store.tag(firstA) !== 0) firstA++;
    expect(firstA).toBeGreaterThan(0); // at least one B arrived first and did not wake the hold
    const bornUs = (firstA + 1) * 100 * MS;
    expect(bornUs).toBeLessThan(4 * S); // and no 5 s tick is involved
    expect(answers(w, pr)).toMatchObject([{ tUs: bornUs + HOP_US, code: ResponseCode.SUCCESS, nextBeginOffset: firstA + 1 }]);
    expect(pr.result.count).toBe(1);
  });

  // Ticks every 5 s from the start; a 15 s hold is noticed at the first tick at or after its end.
  it.each([500 * MS, 2 * S, 4999 * MS, 5 * S, 7500 * MS])(
    "with no arrivals, a pull held at %i µs is answered PULL_NOT_FOUND at the first 5 s tick ≥ 15 s later",
    (heldUs) => {
      const w = rig({ topic: { produce: { rate: 0, backlog: 3 } } });
      heartbeatAt(w, 0, 0, 100);
      const pr = pullAt(w, heldUs, { offset: 3, subVersion: 100 });
      w.sched.runUntil(40 * S);
      const tickUs = Math.ceil((heldUs + 15 * S) / (5 * S)) * 5 * S;
      expect(tickUs - heldUs).toBeGreaterThanOrEqual(15 * S);
      expect(tickUs - heldUs).toBeLessThanOrEqual(20 * S);
      expect(answers(w, pr)).toMatchObject([{ tUs: tickUs + HOP_US, code: ResponseCode.PULL_NOT_FOUND, nextBeginOffset: 3 }]);
    },
  );

  it.each([500 * MS, 2500 * MS, 3 * S])(
    "longPollingEnable false: a pull held at %i µs waits shortPollingTimeMills (1 s), noticed at the next 1 s tick",
    (heldUs) => {
      const w = rig({ broker: { config: { longPollingEnable: false } }, topic: { produce: { rate: 0, backlog: 3 } } });
      heartbeatAt(w, 0, 0, 100);
      const pr = pullAt(w, heldUs, { offset: 3, subVersion: 100 });
      w.sched.runUntil(10 * S);
      const tickUs = Math.ceil((heldUs + S) / S) * S;
      expect(records(w, "pullHeld")).toHaveLength(1);
      expect(answers(w, pr)).toMatchObject([{ tUs: tickUs + HOP_US, code: ResponseCode.PULL_NOT_FOUND }]);
    },
  );

  // BUG (src/model/World.ts:423 holdPull → armArrival, :452 onTopicArrival): arrivals wake held pulls
  // even when longPollingEnable is false. §13.4: the reput thread calls notifyMessageArriving only "if
  // longPollingEnable" (5.x; the 4.9 ReputMessageService has the same condition), so a short poll is
  // answered only by the 1 s hold-service tick. Fix: skip armArrival (and the wake in
  // Broker.onScheduleDue, src/broker/Broker.ts:458) when the queue's broker has longPollingEnable false.
  it("longPollingEnable false (5.x): a message arriving during a short poll is delivered at the next 1 s tick, not at once", () => {
    // No production until 1.7 s, then one message a second: the first is born at 2.7 s.
    const w = rig({
      profile: "5.x",
      broker: { config: { longPollingEnable: false } },
      topic: { produce: { rate: 0, arrival: "uniform", rateChanges: [{ at: "1700ms", rate: 1 }] } },
    });
    heartbeatAt(w, 0, 0, 100);
    const pr = pullAt(w, 2200 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(5 * S);
    expect(answers(w, pr)).toMatchObject([{ tUs: 3 * S + HOP_US, code: ResponseCode.SUCCESS, nextBeginOffset: 1 }]);
  });
});

describe("QUERY_CONSUMER_OFFSET and where a new queue starts, through a real rebalance (§13.7, §10.6, §15.6)", () => {
  /**
   * 100 messages per queue seeded over the hour before t = 0 (born 36 s apart, the i-th at −3600 s +
   * 36 s × i), no production; one consumer starting at t = 0 rebalances within a few ms.
   */
  function startOffset(group: Record<string, unknown>, broker: Record<string, unknown> = {}, topic: Record<string, unknown> = {}, before?: (w: ReturnType<typeof rig>) => void) {
    const w = rig({ broker, topic: { produce: { rate: 0, backlog: 100 }, ...topic }, group: { startAt: 0, ...group } });
    before?.(w);
    w.sched.runUntil(S + 500 * MS);
    const created = records(w, "pqCreated", { mq: queueOf(w, T) });
    expect(created).toHaveLength(1);
    // The new PullRequest's first PULL_MESSAGE asks for exactly that offset.
    expect(records(w, "pullSent", { mq: queueOf(w, T) })[0]!.offset).toBe(created[0]!.nextOffset);
    return { w, nextOffset: created[0]!.nextOffset };
  }
  const COLD = { hotBytes: "1KiB" }; // message 0 is ~100 messages from the commit-log tail

  it("CONSUME_FROM_LAST_OFFSET, no committed offset, message 0 hot: the start-at-0 rule gives 0, not maxOffset 100", () => {
    expect(startOffset({ consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" }).nextOffset).toBe(0);
  });

  it("CONSUME_FROM_LAST_OFFSET, no committed offset, message 0 cold: the broker says −1 and the queue starts at maxOffset 100", () => {
    expect(startOffset({ consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" }, COLD).nextOffset).toBe(100);
  });

  it("CONSUME_FROM_LAST_OFFSET, message 0 hot but the queue truncated (minOffset 3): starts at maxOffset 100", () => {
    // A 3500 s retention deletes messages born before −3500 s: i < 100 / 36 = 2.78, offsets 0–2.
    const { w, nextOffset } = startOffset({ consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" }, {}, { retention: "3500s" });
    expect(w.queues[queueOf(w, T)]!.minOffset).toBe(3);
    expect(nextOffset).toBe(100);
  });

  it("a committed offset is returned as is: 42, whatever consumeFromWhere and the page cache say", () => {
    const { nextOffset } = startOffset({ consumeFromWhere: "CONSUME_FROM_LAST_OFFSET", startAt: "1s" }, {}, {}, (w) => {
      w.sched.scheduleAt(0, w.kinds.offsetUpdate, 0, offsetKey(G, queueOf(w, T)), 42);
    });
    expect(nextOffset).toBe(42);
  });

  it("CONSUME_FROM_FIRST_OFFSET, no committed offset, message 0 cold: starts at 0", () => {
    expect(startOffset({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" }, COLD).nextOffset).toBe(0);
  });

  it("CONSUME_FROM_TIMESTAMP 1000 s back, message 0 cold: starts at the first message born at or after it, 73", () => {
    // Timestamp = t − 1000 s with t a few ms; born_i ≥ t − 1000 s ⇔ i ≥ (2600 s + t) / 36 s = 72.2…
    expect(startOffset({ consumeFromWhere: "CONSUME_FROM_TIMESTAMP", consumeTimestampBefore: "1000s" }, COLD).nextOffset).toBe(73);
  });

  it("the retry queue, empty, starts at 0 with CONSUME_FROM_LAST_OFFSET", () => {
    const { w } = startOffset({ consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" }, COLD);
    expect(records(w, "pqCreated", { mq: w.retryQueue(G, 0) })).toMatchObject([{ nextOffset: 0 }]);
  });
});

describe("consumer send-back: delay levels, %RETRY% and %DLQ% (§9.2)", () => {
  const LEVEL_US = [0, 1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200].map((s) => s * S);

  /** One message, failing every attempt; the consumer starts at 0 and consumes in 1 ms. */
  function poison(groupConfig: Record<string, unknown>, broker: Record<string, unknown> = {}) {
    return rig({
      broker,
      topic: { produce: { rate: 0, backlog: 1 } },
      group: { startAt: 0, config: groupConfig, listener: { consumeTime: "1ms", poisonFraction: 1 } },
    });
  }

  it("sends back with level 3 + reconsumeTimes, delivers after the level's delay, and dead-letters at maxReconsumeTimes", () => {
    const w = poison({ maxReconsumeTimes: 2 });
    w.sched.runUntil(60 * S);
    const sent = records(w, "sendBack");
    expect(sent.map((r) => [r.reconsumeTimes, r.delayLevel])).toEqual([[0, 3], [1, 4]]);
    const delivered = records(w, "retryDelivered");
    expect(delivered).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(delivered[i]!.tUs).toBe(sent[i]!.tUs + LEVEL_US[sent[i]!.delayLevel as number]!);
      expect(delivered[i]).toMatchObject({ mq: w.retryQueue(G, 0), offset: i, reconsumeTimes: i + 1, group: G });
    }
    expect(records(w, "dlq")).toMatchObject([{ reconsumeTimes: 2, group: G }]);
    expect(records(w, "consumeStart")).toHaveLength(3);
  });

  it("the retry and DLQ copies carry the original message's key and birth time, reconsumeTimes + 1 each hop", () => {
    const w = poison({ maxReconsumeTimes: 2 });
    w.sched.runUntil(60 * S);
    const original = w.queues[queueOf(w, T)]!;
    const key = messageKey(original.index, 0);
    const retry = w.queues[w.retryQueue(G, 0)]!;
    const dlq = w.queues[w.dlqQueue(G, 0)]!;
    expect(retry.maxOffset).toBe(2);
    expect(dlq.maxOffset).toBe(1);
    for (const [store, offset, rt] of [[retry, 0, 1], [retry, 1, 2], [dlq, 0, 2]] as const) {
      expect(store.originKey(offset)).toBe(key);
      expect(store.originBornUs(offset)).toBe(original.bornUs(0));
      expect(store.reconsumeTimes(offset)).toBe(rt);
    }
    expect(w.metrics.fates[G]!.dlq).toBe(1);
    expect(w.fates.fate(G, key) & FATE_DLQ).toBe(FATE_DLQ);
    expect(w.metrics.sentBack).toBe(3);
  });

  it("a pull held on the retry queue is answered one hop after the delivery wakes it", () => {
    const w = poison({ maxReconsumeTimes: 2 });
    w.sched.runUntil(60 * S);
    const mq = w.retryQueue(G, 0);
    const results = records(w, "pullResult", { mq });
    const delivered = records(w, "retryDelivered");
    expect(delivered).toHaveLength(2);
    for (const d of delivered) {
      const held = records(w, "pullHeld", { mq }).filter((r) => r.tUs < d.tUs).at(-1)!;
      expect(held.offset).toBe(d.offset);
      expect(results.filter((r) => r.tUs > held.tUs && r.tUs <= d.tUs)).toEqual([]);
      expect(results.find((r) => r.tUs > d.tUs)).toMatchObject({ tUs: d.tUs + HOP_US, code: ResponseCode.SUCCESS });
    }
  });

  it("levels above the 18th are clamped to 18 (2 h) when maxReconsumeTimes allows more than 16 retries", () => {
    const w = poison({ maxReconsumeTimes: 18 });
    // Levels 3…18 then 18, 18: 17140 s + 2 × 7200 s = 31540 s of delays, under 9 h.
    w.sched.runUntil(9 * 3600 * S);
    const levels = records(w, "sendBack").map((r) => r.delayLevel);
    expect(levels).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 18, 18]);
    expect(records(w, "dlq")).toMatchObject([{ reconsumeTimes: 18 }]);
  });

  it("retryQueueNums 0: the broker answers SUCCESS and drops the message — no retry, no DLQ, no re-delivery", () => {
    const w = poison({}, { config: { retryQueueNums: 0 } });
    w.sched.runUntil(60 * S);
    expect(records(w, "sendBack")).toEqual([]);
    expect(records(w, "dlq")).toEqual([]);
    expect(w.queues[w.retryQueue(G, 0)]!.maxOffset).toBe(0);
    expect(w.queues[w.dlqQueue(G, 0)]!.maxOffset).toBe(0);
    expect(w.metrics.sentBack).toBe(0);
    // The client took it as sent back: no 5 s local retry, the offset moves past the message.
    expect(records(w, "consumeStart")).toHaveLength(1);
    expect(records(w, "offsetUpdate", { mq: queueOf(w, T), offset: 1 }).length).toBeGreaterThan(0);
  });

  // BUG (src/broker/Broker.ts:412 acceptSendBack returns before recording any fate): a message dropped
  // by retryQueueNums 0 is neither consumed, retrying, dead-lettered nor lost, so once the client commits
  // past it, checkCommittedOffsets (src/checks/invariants.ts) throws "committed offset 3 … but message 0
  // was never consumed, sent back or deleted" and simulate() fails for any scenario with retryQueueNums 0
  // and a failing listener. Fix: give the drop a fate (e.g. a FATE_DROPPED bit counted as "dropped" in
  // GroupFates / the summary, resolved for the invariant and the storage floor).
  it("retryQueueNums 0 through simulate(): dropped messages are accounted for instead of failing the invariants", () => {
    const r = simulate({
      name: "drop", duration: "60s", network: { latency: "1ms" },
      brokers: [{ name: "b", config: { retryQueueNums: 0 } }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0, backlog: 3 } }],
      groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms", poisonFraction: 1 } }],
    });
    expect(r.summary.messages.consumed).toBe(0);
  });
});

describe("HEART_BEAT and the consumer registry (§13.8, §5)", () => {
  /** Group G with two instances (consumers 0, 1) and group H with one (consumer 2), all dormant. */
  function registry() {
    const w = rig({ groups: [{ name: "G", instances: 2, subscribe: { T: "*" } }, { name: "H", subscribe: { T: "*" } }] });
    const wakes = w.consumers.map((c) => vi.spyOn(c.rebalance, "wakeup"));
    return { w, wakes };
  }

  it("a client's first heartbeat notifies every channel of its group one hop later, and only its group", () => {
    const { w, wakes } = registry();
    heartbeatAt(w, 0, 0, 100);
    w.sched.runUntil(500 * MS);
    expect(wakes.map((s) => s.mock.calls.length)).toEqual([1, 0, 0]);
    heartbeatAt(w, S, 1, 100);
    w.sched.runUntil(S + HOP_US - 1);
    expect(wakes.map((s) => s.mock.calls.length)).toEqual([1, 0, 0]);
    w.sched.runUntil(S + HOP_US);
    expect(wakes.map((s) => s.mock.calls.length)).toEqual([2, 1, 0]);
  });

  it("a repeated heartbeat keeps the one channel and does not notify", () => {
    const { w, wakes } = registry();
    heartbeatAt(w, 0, 0, 100);
    heartbeatAt(w, S, 0, 100);
    w.sched.runUntil(2 * S);
    expect(wakes[0]!.mock.calls.length).toBe(1);
    expect(w.brokers[0]!.consumerIdList(G)).toEqual([w.consumers[0]!.clientId]);
  });

  it("the broker's subVersion only ever increases: after 100 then 50, a pull with subVersion 100 is served", () => {
    const w = rig({ topic: { produce: { rate: 0, backlog: 10 } } });
    heartbeatAt(w, 0, 0, 100);
    heartbeatAt(w, 10 * MS, 0, 50);
    const pr = pullAt(w, 20 * MS, { offset: 0, subVersion: 100 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]!.code).toBe(ResponseCode.SUCCESS);
    expect(w.brokers[0]!.subVersions.get(G)!.get(T)).toBe(100);
  });

  it("a newer subVersion is learned: after 100 then 150, a pull with subVersion 150 is served", () => {
    const w = rig({ topic: { produce: { rate: 0, backlog: 10 } } });
    heartbeatAt(w, 0, 0, 100);
    heartbeatAt(w, 10 * MS, 0, 150);
    const pr = pullAt(w, 20 * MS, { offset: 0, subVersion: 150 });
    w.sched.runUntil(S);
    expect(answers(w, pr)[0]!.code).toBe(ResponseCode.SUCCESS);
  });

  it("consumerIdList lists the registered client ids of a group, null before any", () => {
    const { w } = registry();
    const b = w.brokers[0]!;
    expect(b.consumerIdList(G)).toBeNull();
    heartbeatAt(w, 0, 0, 100);
    heartbeatAt(w, 0, 1, 100);
    w.sched.runUntil(10 * MS);
    expect([...b.consumerIdList(G)!].sort()).toEqual([w.consumers[0]!.clientId, w.consumers[1]!.clientId].sort());
    expect(b.consumerIdList(1)).toBeNull();
  });
});

describe("a rig sanity check", () => {
  it("runs a test callback at its virtual time", () => {
    const w = rig();
    let seenUs = -1;
    at(w, 1234, () => (seenUs = w.sched.nowUs));
    w.sched.runUntil(S);
    expect(seenUs).toBe(1234);
  });
});

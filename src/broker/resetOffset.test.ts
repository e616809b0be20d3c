// The broker's part of an offset reset (src/broker/resetOffset.ts): the per-queue target offset
// (getOffsetInQueueByTime, 4.x nearest vs 5.x lower bound; latest; explicit offsets clamped), Broker2Client's
// table and push (4.x), and the 5.x server-side reset answered to the next pull.
import { describe, expect, it } from "vitest";
import { ResponseCode } from "../protocol/codes.ts";
import type { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import { broker2ClientResetOffset, offsetInQueueByTime, resetOffsetOld, serverSideResetOffset, targetOffset, type ResetOffsetRequest } from "./resetOffset.ts";
import { BrokerFixture, MS, S } from "./testBroker.ts";

/** A queue of messages born at the given times (µs), offsets from `min`. */
function queue(bornUs: number[], min = 0) {
  return {
    minOffset: min,
    maxOffset: min + bornUs.length,
    bornUs: (o: number) => bornUs[o - min]!,
    firstBornAtOrAfter: (from: number, ts: number) => {
      let o = from;
      while (o < min + bornUs.length && bornUs[o - min]! < ts) o++;
      return o;
    },
  };
}

const req = (r: Partial<ResetOffsetRequest> = {}): ResetOffsetRequest => ({ group: 0, topic: 0, timestampUs: 0, offset: null, force: true, ...r });

describe("offsetInQueueByTime: the message a timestamp points at", () => {
  // Offsets 10…13 born at 100, 200, 300, 400 ms.
  const q = queue([100 * MS, 200 * MS, 300 * MS, 400 * MS], 10);

  it("5.x (BoundaryType.LOWER): the first message stored at or after the timestamp", () => {
    expect(offsetInQueueByTime(q, 200 * MS, "5.x")).toBe(11);
    expect(offsetInQueueByTime(q, 201 * MS, "5.x")).toBe(12);
    expect(offsetInQueueByTime(q, 0, "5.x")).toBe(10); // before every message: the first
    expect(offsetInQueueByTime(q, 401 * MS, "5.x")).toBe(14); // after every message: maxOffset
  });

  it("4.x: the nearest message by store time, a tie to the earlier, past the end the last message", () => {
    expect(offsetInQueueByTime(q, 200 * MS, "4.9")).toBe(11); // an exact hit
    expect(offsetInQueueByTime(q, 240 * MS, "4.9")).toBe(11); // 40 ms after 200, 60 before 300
    expect(offsetInQueueByTime(q, 260 * MS, "4.9")).toBe(12); // 60 after 200, 40 before 300
    expect(offsetInQueueByTime(q, 250 * MS, "4.9")).toBe(11); // equally near: the left one
    expect(offsetInQueueByTime(q, 0, "4.9")).toBe(10);
    expect(offsetInQueueByTime(q, 999 * MS, "4.9")).toBe(13); // rightIndexValue −1 → leftOffset: maxOffset − 1
    expect(offsetInQueueByTime(queue([]), 5 * MS, "4.9")).toBe(0); // nothing to search: 0
  });
});

describe("targetOffset: latest, a time, or an explicit offset", () => {
  const q = queue([100 * MS, 200 * MS, 300 * MS], 5);
  it("latest (timestamp −1) is the max offset; an offset is clamped into [min, max]", () => {
    expect(targetOffset(q, req({ timestampUs: -1 }), "4.9")).toBe(8);
    expect(targetOffset(q, req({ offset: 2 }), "5.x")).toBe(5);
    expect(targetOffset(q, req({ offset: 7 }), "5.x")).toBe(7);
    expect(targetOffset(q, req({ offset: 99 }), "4.9")).toBe(8);
    expect(targetOffset(q, req({ timestampUs: 0 }), "4.9")).toBe(5); // before every message: the first
  });

  it("earliest (−∞) is the min offset in both profiles, even with a backlog born before t = 0", () => {
    // A seeded backlog: born at −2 s and −1 s, then 1 s. Timestamp 0 would pick the nearest (−1 s, 4.x)
    // or the first at or after (1 s, 5.x); −∞ is older than all of them.
    const backlog = queue([-2 * S, -1 * S, 1 * S]);
    expect(targetOffset(backlog, req({ timestampUs: 0 }), "4.9")).toBe(1);
    expect(targetOffset(backlog, req({ timestampUs: 0 }), "5.x")).toBe(2);
    expect(targetOffset(backlog, req({ timestampUs: Number.NEGATIVE_INFINITY }), "4.9")).toBe(0);
    expect(targetOffset(backlog, req({ timestampUs: Number.NEGATIVE_INFINITY }), "5.x")).toBe(0);
  });
});

/** broker-a with T's queue 0 holding 10 messages born at 1 … 10 s, group G's client 0 registered. */
function rig(profile: "4.9" | "5.x") {
  const f = new BrokerFixture({ profile });
  const mq = f.queueOf(0);
  f.produceEvery(S, 10);
  f.runUntil(11 * S);
  f.source.advanceTo(11 * S);
  f.heartbeat(11 * S, 0, 0);
  return { f, mq };
}

describe("Broker2Client#resetOffset (4.x)", () => {
  it("needs the group's committed offset on every queue: without one, SYSTEM_ERROR and no push", () => {
    const { f, mq } = rig("4.9");
    const sent: unknown[] = [];
    const a = broker2ClientResetOffset(f.broker, [mq], req({ timestampUs: 3 * S }), (to, m) => sent.push([to, m]));
    expect(a.code).toBe(ResponseCode.SYSTEM_ERROR);
    expect(sent).toEqual([]);
  });

  it("pushes the table to every channel of the group and leaves the committed offset alone", () => {
    const { f, mq } = rig("4.9");
    f.updateOffset(11 * S, mq, 8);
    const sent: [number, ResetConsumerClientOffsetRequest][] = [];
    // 3 s: the message born at 3 s is offset 2 (the k-th message, k = 1…10, is born at k s).
    const a = broker2ClientResetOffset(f.broker, [mq], req({ timestampUs: 3 * S }), (to, m) => sent.push([to, m]));
    expect(a.code).toBe(ResponseCode.SUCCESS);
    expect([...a.offsetTable]).toEqual([[mq, 2]]);
    expect(sent.length).toBe(1);
    expect([...sent[0]![1].offsetTable]).toEqual([[mq, 2]]);
    expect(f.broker.offsets.queryOffset(0, mq)).toBe(8);
  });

  it("without force a target above the committed offset keeps the committed one", () => {
    const { f, mq } = rig("4.9");
    f.updateOffset(11 * S, mq, 4);
    const a = broker2ClientResetOffset(f.broker, [mq], req({ timestampUs: -1, force: false }), () => {});
    expect([...a.offsetTable]).toEqual([[mq, 4]]);
    const back = broker2ClientResetOffset(f.broker, [mq], req({ timestampUs: 2 * S, force: false }), () => {});
    expect([...back.offsetTable]).toEqual([[mq, 1]]);
  });

  it("with no channel of the group: CONSUMER_NOT_ONLINE; the fallback (resetOffsetByTimeOld) commits at the broker", () => {
    const { f, mq } = rig("4.9");
    f.updateOffset(11 * S, mq, 8);
    f.unregister(11 * S, 0);
    const a = broker2ClientResetOffset(f.broker, [mq], req({ timestampUs: -1 }), () => {});
    expect(a.code).toBe(ResponseCode.CONSUMER_NOT_ONLINE);
    const assigned: [number, number][] = [];
    resetOffsetOld(f.broker, [mq], req({ timestampUs: -1 }), "4.9", f.ctx.nowUs, (q, o) => assigned.push([q, o]));
    expect(f.broker.offsets.queryOffset(0, mq)).toBe(10);
    expect(assigned).toEqual([[mq, 10]]);
  });
});

describe("resetOffsetInner (5.x server-side reset)", () => {
  it("overwrites the committed offset and answers the group's next pull PULL_OFFSET_MOVED to the reset offset, once", () => {
    const { f, mq } = rig("5.x");
    f.updateOffset(11 * S, mq, 8);
    const assigned: [number, number][] = [];
    // 2.5 s: the first message at or after it is the one born at 3 s, offset 2.
    const a = serverSideResetOffset(f.broker, [mq], req({ timestampUs: 2_500 * MS }), f.ctx.nowUs, (q, o) => assigned.push([q, o]));
    expect(a.code).toBe(ResponseCode.SUCCESS);
    expect(assigned).toEqual([[mq, 2]]);
    expect(f.broker.offsets.queryOffset(0, mq)).toBe(2);
    const first = f.pull(12 * S, { offset: 8 });
    expect(f.answers(first).map((x) => [x.code, x.nextBeginOffset])).toEqual([[ResponseCode.PULL_OFFSET_MOVED, 2]]);
    const second = f.pull(13 * S, { offset: 2 });
    expect(f.answers(second).map((x) => [x.code, x.count])).toEqual([[ResponseCode.SUCCESS, 8]]);
  });

  it("a group with no committed offset here gets the pending reset only", () => {
    const { f, mq } = rig("5.x");
    serverSideResetOffset(f.broker, [mq], req({ timestampUs: -1 }), f.ctx.nowUs, () => {});
    expect(f.broker.offsets.queryOffset(0, mq)).toBe(-1);
    expect(f.broker.processor.pendingOffsetMoved.size).toBe(1);
  });
});

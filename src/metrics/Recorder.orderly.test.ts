// Recorder, orderly consumption (issue 12, spec §8): head blocks from orderlySuspended / orderlyCommitted /
// consumed, and each owner's lock state from lockRefreshed / lockLost / queueClosed. Unit tests call the
// observer interface as the consumers do; times in µs.
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import type { ClientObserver } from "../client/ClientObserver.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { LOCK_MAX_LIVE_US, lockTimeline } from "./Ownership.ts";
import { Recorder } from "./Recorder.ts";

const S = 1_000_000;

/**
 * Topic T (two queues). Group O: ORDERLY, CLUSTERING, instances A and B (slots 0, 1). Group P: ORDERLY,
 * BROADCASTING, instances P0 and P1 (slots 2, 3: subjects 1 and 2).
 */
function recorder() {
  const model = normalizeScenario({
    name: "orderly",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 2, produce: { rate: 1 } }],
    groups: [
      { name: "O", instances: 2, subscribe: { T: "*" }, consumeMode: "ORDERLY" },
      { name: "P", instances: 2, subscribe: { T: "*" }, consumeMode: "ORDERLY", messageModel: "BROADCASTING" },
    ],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const client: ClientObserver = rec; // the consumers call it through their observer interface
  return { rec, client, mq: routes.topicQueues(0)[0]!, mq1: routes.topicQueues(0)[1]! };
}
const O = 0;
const P = 1;
const A = clientAddr(0, 0);
const B = clientAddr(1, 0);
const P0 = clientAddr(2, 0);
const P1 = clientAddr(3, 0);

describe("Recorder.orderlySuspended / orderlyCommitted: how long a queue's head stayed blocked", () => {
  it("counts every suspend; a block runs from the first suspend of its offset to the commit past it", () => {
    const { rec, client, mq } = recorder();
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.orderlySuspended(O, mq, 5, A, 2 * S);
    client.orderlySuspended(O, mq, 5, A, 3 * S);
    client.orderlyCommitted(O, mq, 6, A, 3.5 * S);
    // Blocked from 1 s to 3.5 s: 2.5 s.
    expect(rec.orderly.suspends(O, mq)).toBe(3);
    expect(rec.orderly.longestBlockUs(O, mq, 100 * S)).toBe(2.5 * S);
    expect(rec.orderly.blockedOffset(O, mq)).toBe(-1);
  });

  it("a commit up to the blocked offset (the head still to consume) does not end the block; a suspend of another offset does not restart it", () => {
    const { rec, client, mq } = recorder();
    client.orderlyCommitted(O, mq, 5, A, 0);
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.orderlyCommitted(O, mq, 5, A, 2 * S);
    client.orderlySuspended(O, mq, 7, A, 3 * S);
    expect(rec.orderly.blockedOffset(O, mq)).toBe(5);
    client.orderlyCommitted(O, mq, 8, A, 9 * S);
    // One block, 1 s → 9 s.
    expect(rec.orderly.longestBlockUs(O, mq, 9 * S)).toBe(8 * S);
    expect(rec.orderly.suspends(O, mq)).toBe(2);
  });

  it("a block also ends when the blocked message is consumed; the longest of several blocks is kept", () => {
    const { rec, client, mq } = recorder();
    for (let o = 0; o < 6; o++) rec.messageStored(mq, o, -1);
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.consumed(O, mq, 4, messageKey(mq, 4), 0, A, 2 * S); // not the blocked one
    client.consumed(O, mq, 5, messageKey(mq, 5), 0, A, 4 * S); // 3 s
    client.orderlySuspended(O, mq, 6, A, 10 * S);
    client.orderlyCommitted(O, mq, 7, A, 11 * S); // 1 s
    expect(rec.orderly.longestBlockUs(O, mq, 20 * S)).toBe(3 * S);
  });

  it("a block still open counts up to now", () => {
    const { rec, client, mq } = recorder();
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.orderlyCommitted(O, mq, 6, A, 2 * S); // 1 s
    client.orderlySuspended(O, mq, 6, A, 10 * S);
    expect(rec.orderly.longestBlockUs(O, mq, 12 * S)).toBe(2 * S);
    expect(rec.orderly.longestBlockUs(O, mq, 30 * S)).toBe(20 * S);
  });

  it("the head stays blocked across a hand-over: suspended by A, then by the new owner B, committed by B", () => {
    const { rec, client, mq } = recorder();
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.orderlySuspended(O, mq, 5, B, 10 * S);
    client.orderlyCommitted(O, mq, 6, B, 12 * S);
    expect(rec.orderly.longestBlockUs(O, mq, 12 * S)).toBe(11 * S);
  });

  it("keeps each queue apart", () => {
    const { rec, client, mq, mq1 } = recorder();
    client.orderlySuspended(O, mq, 5, A, 1 * S);
    client.orderlyCommitted(O, mq1, 9, A, 2 * S);
    expect(rec.orderly.blockedOffset(O, mq)).toBe(5);
    expect(rec.orderly.suspends(O, mq1)).toBe(0);
  });

  it("in a broadcasting group each instance has its own head: P1's commit does not end P0's block", () => {
    const { rec, client, mq } = recorder();
    const p0 = rec.fates.subjectOf(P, P0);
    const p1 = rec.fates.subjectOf(P, P1);
    client.orderlySuspended(P, mq, 5, P0, 1 * S);
    client.orderlySuspended(P, mq, 5, P1, 1 * S);
    client.orderlyCommitted(P, mq, 6, P1, 2 * S);
    expect(rec.orderly.longestBlockUs(p1, mq, 10 * S)).toBe(1 * S);
    expect(rec.orderly.longestBlockUs(p0, mq, 10 * S)).toBe(9 * S);
    expect(rec.orderly.suspends(p0, mq) + rec.orderly.suspends(p1, mq)).toBe(2);
  });
});

describe("Recorder.lockRefreshed / lockLost / queueClosed: an owner's lock at the broker (§3.5, §8.5)", () => {
  it("an owner is not locked until its first refresh, held while refreshed within 30 s, not locked after lockLost, until it closes", () => {
    const { rec, client, mq } = recorder();
    client.queueOpened(O, mq, A, "a", 0);
    client.lockRefreshed(O, mq, A, 1 * S);
    client.lockRefreshed(O, mq, A, 21 * S); // lockAll every 20 s
    client.lockRefreshed(O, mq, A, 41 * S);
    client.lockLost(O, mq, A, 50 * S);
    client.queueClosed(O, mq, A, 60 * S);
    expect(lockTimeline(rec.ownership.intervals(O, mq)[0]!, 100 * S)).toEqual([
      { state: "not locked", fromUs: 0, toUs: 1 * S },
      { state: "held", fromUs: 1 * S, toUs: 50 * S },
      { state: "not locked", fromUs: 50 * S, toUs: 60 * S },
    ]);
  });

  it("a lock not refreshed for more than 30 s reads expired from 30 s after its last refresh, until the next refresh", () => {
    const { rec, client, mq } = recorder();
    client.queueOpened(O, mq, A, "a", 0);
    client.lockRefreshed(O, mq, A, 0);
    client.lockRefreshed(O, mq, A, 10 * S);
    client.lockRefreshed(O, mq, A, 50 * S); // 40 s after the last: it had expired at 40 s
    // Still open at 100 s: refreshed last at 50 s, expired since 80 s.
    expect(lockTimeline(rec.ownership.intervals(O, mq)[0]!, 100 * S)).toEqual([
      { state: "held", fromUs: 0, toUs: 40 * S },
      { state: "expired", fromUs: 40 * S, toUs: 50 * S },
      { state: "held", fromUs: 50 * S, toUs: 80 * S },
      { state: "expired", fromUs: 80 * S, toUs: null },
    ]);
    expect(LOCK_MAX_LIVE_US).toBe(30 * S);
  });

  it("a refresh exactly 30 s after the last is still in time (expired means more than 30 s)", () => {
    const { rec, client, mq } = recorder();
    client.queueOpened(O, mq, A, "a", 0);
    client.lockRefreshed(O, mq, A, 0);
    client.lockRefreshed(O, mq, A, 30 * S);
    expect(lockTimeline(rec.ownership.intervals(O, mq)[0]!, 60 * S)).toEqual([{ state: "held", fromUs: 0, toUs: null }]);
    expect(lockTimeline(rec.ownership.intervals(O, mq)[0]!, 61 * S)).toEqual([
      { state: "held", fromUs: 0, toUs: 60 * S },
      { state: "expired", fromUs: 60 * S, toUs: null },
    ]);
  });

  it("an owner that never locked reads not locked throughout; lockLost without a lock changes nothing", () => {
    const { rec, client, mq } = recorder();
    client.queueOpened(O, mq, A, "a", 2 * S);
    client.lockLost(O, mq, A, 3 * S);
    client.queueClosed(O, mq, A, 9 * S);
    const iv = rec.ownership.intervals(O, mq)[0]!;
    expect(iv.lock).toBeUndefined();
    expect(lockTimeline(iv, 10 * S)).toEqual([{ state: "not locked", fromUs: 2 * S, toUs: 9 * S }]);
  });

  it("each owner interval keeps its own lock: the old owner's ends when it closes, the new one's starts not locked", () => {
    const { rec, client, mq } = recorder();
    client.queueOpened(O, mq, A, "a", 0);
    client.lockRefreshed(O, mq, A, 1 * S);
    client.queueOpened(O, mq, B, "b", 5 * S); // B takes over before A lets go
    client.lockRefreshed(O, mq, B, 5 * S); // the broker refuses B until A unlocks… here it granted at once
    client.queueClosed(O, mq, A, 6 * S);
    const [a, b] = rec.ownership.intervals(O, mq);
    expect(lockTimeline(a!, 10 * S)).toEqual([
      { state: "not locked", fromUs: 0, toUs: 1 * S },
      { state: "held", fromUs: 1 * S, toUs: 6 * S },
    ]);
    // A refresh at the instant the interval opened leaves no "not locked" stretch of no length.
    expect(lockTimeline(b!, 10 * S)).toEqual([{ state: "held", fromUs: 5 * S, toUs: null }]);
  });

  it("lock reports about a queue the consumer does not hold (closed, or never opened) are ignored", () => {
    const { rec, client, mq, mq1 } = recorder();
    client.queueOpened(O, mq, A, "a", 0);
    client.queueClosed(O, mq, A, 1 * S);
    client.lockRefreshed(O, mq, A, 2 * S);
    client.lockRefreshed(O, mq1, A, 2 * S);
    expect(rec.ownership.intervals(O, mq)[0]!.lock).toBeUndefined();
    expect(rec.ownership.intervals(O, mq1)).toEqual([]);
  });
});

// MessageStore: the commit-log tail and page cache, retention by age, deletion, the timestamp search,
// the start-at-0 rule (spec §10.6, §13.2, §13.7) and memory reclamation. The store is the fixture
// broker's (testBroker.ts), so deletions reach the recording observer and the captured trace; messages
// are appended straight into it, as Broker#putMessage and the retry path do.
import { describe, expect, it } from "vitest";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import { CHUNK } from "./QueueStore.ts";
import { BrokerFixture, S, type RigInput } from "./testBroker.ts";

const G = 0;

/** A fixture with `count` messages of 100 B on T's queue, the k-th (k = 1…count) born at k seconds. */
function filled(count: number, input: RigInput = {}) {
  const fx = new BrokerFixture(input);
  const mq = fx.queueOf(0);
  for (let k = 1; k <= count; k++) fx.broker.store.append(mq, k * S, 100, -1, -1, 0, 0);
  return { fx, store: fx.broker.store, mq, q: fx.store(mq) };
}

describe("MessageStore.append: the commit log and the page cache", () => {
  it("advances the commit-log tail by each message's stored size and records where each one ends", () => {
    const { store, q } = filled(3);
    const size = 100 + "T".length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
    expect(store.storedSize(100, "T")).toBe(size);
    expect(store.commitLogTail).toBe(3 * size);
    expect([q.clPos(0), q.clPos(1), q.clPos(2)]).toEqual([size, 2 * size, 3 * size]);
  });

  it("counts a message as hot while the tail is at most hotBytes past it", () => {
    const { store, q } = filled(10, { broker: { hotBytes: 1000 } });
    const size = store.storedSize(100, "T"); // 256 B: the last 4 messages (tail − clPos ≤ 768) are hot
    expect(size).toBe(256);
    expect(Array.from({ length: 10 }, (_, i) => store.isHot(q.clPos(i)))).toEqual([false, false, false, false, false, false, true, true, true, true]);
  });
});

describe("MessageStore.applyRetention: deletion by age (rocketmq-broker.md §2)", () => {
  it("deletes the messages born before now − retention, in order, and tells the observer and the trace", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 13_500_000); // cutoff 3.5 s: messages born at 1, 2, 3 s
    expect(q.minOffset).toBe(3);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 3]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: 13_500_000, mq, minOffset: 3 }]);
  });

  it("keeps a message born exactly at the cutoff, and does nothing when nothing is old enough", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 14 * S); // cutoff 4 s: the message born at 4 s stays
    expect(q.minOffset).toBe(3);
    store.applyRetention(mq, 14 * S);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 3]]);
  });

  it("may delete everything (minOffset = maxOffset), and then nothing more", () => {
    const { fx, store, mq, q } = filled(10, { topic: { retention: "10s" } });
    store.applyRetention(mq, 100 * S);
    store.applyRetention(mq, 200 * S);
    expect([q.minOffset, q.maxOffset]).toEqual([10, 10]);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 10]]);
  });

  it("keeps retry and DLQ messages whatever their age", () => {
    const { fx, store } = filled(0, { topic: { retention: "10s" } });
    for (const mq of [fx.retryQueue(G), fx.dlqQueue(G)]) {
      store.append(mq, 0, 100, -1, 7, 0, 1);
      store.applyRetention(mq, 1000 * S);
      expect(fx.store(mq).minOffset).toBe(0);
    }
    expect(fx.observer.of("messagesDeleted")).toEqual([]);
  });
});

describe("MessageStore.deleteUpTo", () => {
  it("moves minOffset up and tells the observer which messages are gone; never moves it down", () => {
    const { fx, store, mq, q } = filled(10);
    store.deleteUpTo(mq, 4, 5 * S);
    store.deleteUpTo(mq, 2, 6 * S);
    store.deleteUpTo(mq, 4, 7 * S);
    expect(q.minOffset).toBe(4);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 4]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: 5 * S, mq, minOffset: 4 }]);
  });
});

describe("MessageStore.searchOffset (§10.6 CONSUME_FROM_TIMESTAMP)", () => {
  it("answers the first offset born at or after the timestamp", () => {
    const { store, mq } = filled(10);
    expect(store.searchOffset(mq, 3 * S)).toBe(2);
    expect(store.searchOffset(mq, 3 * S + 1)).toBe(3);
  });

  it("answers minOffset for a timestamp older than every message, maxOffset for one newer", () => {
    const { store, mq } = filled(10);
    expect(store.searchOffset(mq, -1000 * S)).toBe(0);
    store.deleteUpTo(mq, 5, 0);
    expect(store.searchOffset(mq, -1000 * S)).toBe(5);
    expect(store.searchOffset(mq, 1000 * S)).toBe(10);
  });

  it("answers 0 on an empty queue", () => {
    const { store, mq } = filled(0);
    expect(store.searchOffset(mq, 0)).toBe(0);
  });
});

describe("MessageStore.startAtZero (§13.7: no stored offset, message 0 in memory)", () => {
  it("is true for a queue never truncated whose message 0 is hot", () => {
    const { store, mq } = filled(10);
    expect(store.startAtZero(mq)).toBe(true);
  });

  it("is false for an empty queue, a truncated one, and one whose message 0 is cold", () => {
    const empty = filled(0);
    expect(empty.store.startAtZero(empty.mq)).toBe(false);
    const truncated = filled(10);
    truncated.store.deleteUpTo(truncated.mq, 1, 0);
    expect(truncated.store.startAtZero(truncated.mq)).toBe(false);
    const cold = filled(10, { broker: { hotBytes: 1000 } });
    expect(cold.store.startAtZero(cold.mq)).toBe(false);
  });

  it("is false once message 0's memory was reclaimed", () => {
    const { store, mq } = filled(CHUNK + 1);
    store.reclaimBelow(mq, CHUNK);
    expect(store.startAtZero(mq)).toBe(false);
  });
});

describe("MessageStore.reclaimBelow: giving back memory nobody can read any more", () => {
  it("frees whole chunks below the offset and tells the observer the first offset still stored", () => {
    const { fx, store, mq, q } = filled(2 * CHUNK + 10);
    store.reclaimBelow(mq, CHUNK + 5);
    expect(q.physicalMin).toBe(CHUNK);
    expect(q.chunksHeld).toBe(2);
    expect(() => q.bodyBytes(CHUNK - 1)).toThrow(RangeError);
    expect(q.bodyBytes(CHUNK)).toBe(100);
    expect(fx.observer.of("storageReclaimed")).toEqual([[mq, CHUNK]]);
  });

  it("leaves minOffset, maxOffset and the timestamp search as they were", () => {
    const { store, mq, q } = filled(2 * CHUNK);
    store.deleteUpTo(mq, CHUNK + 100, 0);
    const before = store.searchOffset(mq, (CHUNK + 500) * S);
    store.reclaimBelow(mq, CHUNK + 100);
    expect([q.minOffset, q.maxOffset]).toEqual([CHUNK + 100, 2 * CHUNK]);
    expect(store.searchOffset(mq, (CHUNK + 500) * S)).toBe(before);
  });

  it("tells the observer 0 when no whole chunk could be freed", () => {
    const { fx, store, mq } = filled(10);
    store.reclaimBelow(mq, 5);
    expect(fx.observer.of("storageReclaimed")).toEqual([[mq, 0]]);
  });
});

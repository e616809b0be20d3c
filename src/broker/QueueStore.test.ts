// QueueStore: one consume queue's messages in column chunks — appends, column reads, copies into a pull
// answer's batch, freeing whole chunks below an offset — and the message key that names an original
// message across its retry copies.
import { describe, expect, it } from "vitest";
import { MessageBatch } from "../protocol/commands.ts";
import { CHUNK, keyOffset, keyQueue, messageKey, QueueStore } from "./QueueStore.ts";

describe("QueueStore.append and column reads", () => {
  it("returns consecutive offsets and reads every column back", () => {
    const store = new QueueStore(7, "T", "b", 2);
    expect(store.append(100, 5000, 321, 3, -1, 0, 0)).toBe(0);
    expect(store.append(200, 6000, 654, -1, messageKey(1, 42), 50, 4)).toBe(1);
    expect(store.maxOffset).toBe(2);
    expect([store.bornUs(0), store.clPos(0), store.bodyBytes(0), store.tag(0), store.reconsumeTimes(0)]).toEqual([100, 5000, 321, 3, 0]);
    expect([store.bornUs(1), store.clPos(1), store.bodyBytes(1), store.tag(1), store.reconsumeTimes(1)]).toEqual([200, 6000, 654, -1, 4]);
  });

  it("makes an original message its own origin, and keeps a retry copy's origin", () => {
    const store = new QueueStore(7, "T", "b", 2);
    store.append(100, 0, 1, 0, -1, 0, 0);
    store.append(200, 0, 1, 0, messageKey(1, 42), 50, 1);
    expect(store.originKey(0)).toBe(messageKey(7, 0));
    expect(store.originBornUs(0)).toBe(100);
    expect(store.originKey(1)).toBe(messageKey(1, 42));
    expect(store.originBornUs(1)).toBe(50);
  });

  it("copies every column of a message into a row of a pull answer's batch", () => {
    const store = new QueueStore(7, "T", "b", 2);
    store.append(100, 5000, 321, 3, -1, 0, 0);
    store.append(200, 6000, 654, -1, messageKey(1, 42), 50, 4);
    const batch = new MessageBatch(2);
    store.copyTo(1, batch, 0);
    store.copyTo(0, batch, 1);
    const row = (i: number) => [batch.offsets[i], batch.bodyBytes[i], batch.tag[i], batch.originKey[i], batch.originBornUs[i], batch.reconsumeTimes[i]];
    expect(row(0)).toEqual([1, 654, -1, messageKey(1, 42), 50, 4]);
    expect(row(1)).toEqual([0, 321, 3, messageKey(7, 0), 100, 0]);
  });

  it("throws a RangeError for an offset not yet written", () => {
    const store = new QueueStore(0, "T", "b", 0);
    store.append(0, 0, 1, 0, -1, 0, 0);
    expect(() => store.bodyBytes(1)).toThrow(RangeError);
    expect(() => store.bodyBytes(-1)).toThrow(RangeError);
  });
});

describe("QueueStore.freeBelow", () => {
  function filled(n: number): QueueStore {
    const store = new QueueStore(0, "T", "broker-a", 3);
    for (let i = 0; i < n; i++) store.append(i, i * 10, i % 1000, 0, -1, 0, 0);
    return store;
  }

  it("frees only whole 4096-message chunks below the offset", () => {
    const store = filled(3 * CHUNK);
    store.freeBelow(CHUNK - 1);
    expect(store.chunksHeld).toBe(3);
    expect(store.bodyBytes(0)).toBe(0);
    store.freeBelow(CHUNK + 100);
    expect(store.chunksHeld).toBe(2);
    expect(store.physicalMin).toBe(CHUNK);
    expect(store.bodyBytes(CHUNK)).toBe(CHUNK % 1000);
    expect(store.bodyBytes(CHUNK + 50)).toBe((CHUNK + 50) % 1000);
  });

  it("reading a freed offset throws a RangeError naming the stored range", () => {
    const store = filled(2 * CHUNK + 10);
    store.freeBelow(2 * CHUNK);
    expect(() => store.bodyBytes(CHUNK)).toThrow(RangeError);
    expect(() => store.clPos(5)).toThrow(`stored ${2 * CHUNK}..${2 * CHUNK + 10}`);
    expect(() => store.clPos(5)).toThrow(/T@broker-a#3: offset 5 is not stored/);
  });

  it("never frees past maxOffset, and the queue keeps accepting appends afterwards", () => {
    const store = filled(CHUNK + 10);
    store.freeBelow(10 * CHUNK);
    expect(store.physicalMin).toBe(CHUNK);
    expect(store.bodyBytes(CHUNK + 9)).toBe((CHUNK + 9) % 1000);
    expect(store.append(0, 0, 77, 0, -1, 0, 0)).toBe(CHUNK + 10);
    expect(store.bodyBytes(CHUNK + 10)).toBe(77);
  });

  it("does nothing for an offset at or below what is already freed", () => {
    const store = filled(3 * CHUNK);
    store.freeBelow(2 * CHUNK);
    store.freeBelow(CHUNK);
    expect(store.physicalMin).toBe(2 * CHUNK);
    expect(store.chunksHeld).toBe(1);
  });

  it("frees an exact chunk boundary before any message of the next chunk exists", () => {
    const store = filled(CHUNK);
    store.freeBelow(CHUNK);
    expect(store.chunksHeld).toBe(0);
    expect(store.append(0, 0, 5, 0, -1, 0, 0)).toBe(CHUNK);
    expect(store.bodyBytes(CHUNK)).toBe(5);
  });
});

describe("messageKey", () => {
  it("round-trips queue index and offset", () => {
    const key = messageKey(123, 4_000_000_000);
    expect(keyQueue(key)).toBe(123);
    expect(keyOffset(key)).toBe(4_000_000_000);
  });
});

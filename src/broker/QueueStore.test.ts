// QueueStore: one consume queue's messages in column chunks — appends, column reads, copies into a pull
// answer's batch, freeing whole chunks below an offset — and the message key that names an original
// message across its retry copies.
import { describe, expect, it } from "vitest";
import { MessageBatch } from "../protocol/commands.ts";
import { CHUNK, keyGen, keyOffset, keyQueue, messageKey, QueueStore, type Regenerator } from "./QueueStore.ts";

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

  it("keeps reconsume times above 255 (maxReconsumeTimes goes up to 16 384), here and in a pull's batch", () => {
    const store = new QueueStore(7, "T", "b", 2);
    store.append(100, 0, 1, 0, messageKey(1, 42), 50, 300);
    expect(store.reconsumeTimes(0)).toBe(300);
    const batch = new MessageBatch(1);
    store.copyTo(0, batch, 0);
    expect(batch.reconsumeTimes[0]).toBe(300);
  });

  it("throws a RangeError for an offset not yet written", () => {
    const store = new QueueStore(0, "T", "b", 0);
    store.append(0, 0, 1, 0, -1, 0, 0);
    expect(() => store.bodyBytes(1)).toThrow(RangeError);
    expect(() => store.bodyBytes(-1)).toThrow(RangeError);
  });
});

describe("QueueStore.reclaimBelow: reclaimed messages read back exactly (issue 11)", () => {
  /** A regenerator that re-creates message i as the test stored it: born i, body i % 1000, tag i % 3. */
  class Replayer implements Regenerator {
    calls: [number, number, number][] = [];
    regenerate(mq: number, draw: number, count: number, bornUs: Float64Array, bodyBytes: Int32Array, tag: Int16Array): void {
      this.calls.push([mq, draw, count]);
      for (let i = 0; i < count; i++) {
        bornUs[i] = draw + i;
        bodyBytes[i] = (draw + i) % 1000;
        tag[i] = (draw + i) % 3;
      }
    }
  }
  /** n messages; message i: born i µs, commit-log end 10·(i+1), body i % 1000, tag i % 3, producer draw i. */
  function filled(n: number, draws = true) {
    const store = new QueueStore(5, "T", "broker-a", 3);
    const rep = new Replayer();
    store.regenerator = rep;
    for (let i = 0; i < n; i++) store.append(i, 10 * (i + 1), i % 1000, i % 3, -1, 0, 0, draws ? i : -1);
    return { store, rep };
  }
  const row = (s: QueueStore, o: number) => [s.bornUs(o), s.bodyBytes(o), s.tag(o), s.originKey(o), s.originBornUs(o), s.reconsumeTimes(o)];

  it("reclaims only whole chunks below the offset, and reading one back replays its first draw", () => {
    const { store, rep } = filled(3 * CHUNK);
    store.reclaimBelow(CHUNK + 100);
    expect(store.chunksHeld).toBe(2);
    expect(rep.calls).toEqual([]);
    expect(row(store, 7)).toEqual([7, 7, 1, messageKey(5, 7), 7, 0]);
    expect(rep.calls).toEqual([[5, 0, CHUNK]]); // one replay for the whole chunk
    expect(row(store, CHUNK - 1)).toEqual([CHUNK - 1, (CHUNK - 1) % 1000, (CHUNK - 1) % 3, messageKey(5, CHUNK - 1), CHUNK - 1, 0]);
    expect(rep.calls.length).toBe(1);
    expect(store.bodyBytes(CHUNK)).toBe(CHUNK % 1000); // still held
    expect([store.minOffset, store.maxOffset]).toEqual([0, 3 * CHUNK]);
  });

  it("a chunk opened after a reclaim reuses the reclaimed columns: both read back exactly", () => {
    const { store } = filled(CHUNK);
    store.reclaimBelow(CHUNK);
    for (let i = CHUNK; i < 2 * CHUNK; i++) store.append(i, 10 * (i + 1), i % 1000, i % 3, -1, 0, 0, i);
    expect(row(store, CHUNK + 5)).toEqual([CHUNK + 5, (CHUNK + 5) % 1000, (CHUNK + 5) % 3, messageKey(5, CHUNK + 5), CHUNK + 5, 0]);
    expect(row(store, 5)).toEqual([5, 5, 2, messageKey(5, 5), 5, 0]);
    expect(store.pagePos(CHUNK + 300)).toBe(10 * (CHUNK + 257));
    expect(store.pagePos(300)).toBe(10 * 257);
  });

  it("keeps the columns of a chunk whose messages are not consecutive draws (a seeded backlog, a redirect)", () => {
    const { store, rep } = filled(2 * CHUNK, false);
    store.reclaimBelow(2 * CHUNK);
    expect(row(store, CHUNK + 3)).toEqual([CHUNK + 3, (CHUNK + 3) % 1000, (CHUNK + 3) % 3, messageKey(5, CHUNK + 3), CHUNK + 3, 0]);
    expect(rep.calls).toEqual([]);
  });

  it("a refused write breaks the open chunk's draws, not the next chunk's", () => {
    const store = new QueueStore(5, "T", "b", 0);
    const rep = new Replayer();
    store.regenerator = rep;
    for (let i = 0; i < CHUNK; i++) store.append(i, i, 1, 0, -1, 0, 0, i);
    store.breakDraws(); // at a chunk boundary: nothing is open
    for (let i = CHUNK; i < 2 * CHUNK + 10; i++) {
      store.append(i, i, 1, 0, -1, 0, 0, i);
      if (i === CHUNK + 5) store.breakDraws(); // the producer's next message for this queue went elsewhere
    }
    store.reclaimBelow(2 * CHUNK);
    store.bornUs(0);
    store.bornUs(CHUNK);
    expect(rep.calls).toEqual([[5, 0, CHUNK]]); // chunk 1 was kept, not replayed
  });

  it("keeps two rebuilt chunks, most recently read first", () => {
    const { store } = filled(4 * CHUNK);
    store.reclaimBelow(3 * CHUNK);
    store.bornUs(0);
    store.bornUs(CHUNK);
    store.bornUs(1);
    expect(store.rebuilds).toBe(2);
    store.bornUs(2 * CHUNK); // evicts chunk 1 (least recently read)
    store.bornUs(2);
    expect(store.rebuilds).toBe(3);
    store.bornUs(CHUNK + 1);
    expect(store.rebuilds).toBe(4);
  });

  it("judges a message by its page position (its block of 256's first message), the same before and after reclaiming", () => {
    const { store } = filled(2 * CHUNK);
    // Positions are 10·(i+1): message o's page position is that of ⌊o / 256⌋ × 256.
    const pages = (offsets: number[]) => offsets.map((o) => store.pagePos(o));
    const offsets = [0, 1, 255, 256, 1000, CHUNK - 1, CHUNK + 300];
    const before = pages(offsets);
    expect(before).toEqual([10, 10, 10, 2570, 7690, 10 * (15 * 256 + 1), 10 * (CHUNK + 256 + 1)]);
    expect(store.clPos(1000)).toBe(10_010); // exact while held
    store.reclaimBelow(CHUNK);
    expect(pages(offsets)).toEqual(before);
  });

  it("never reclaims past maxOffset or a partly filled chunk, and keeps accepting appends", () => {
    const { store } = filled(CHUNK + 10);
    store.reclaimBelow(10 * CHUNK);
    expect(store.chunksHeld).toBe(1);
    expect(store.append(0, 0, 77, 0, -1, 0, 0)).toBe(CHUNK + 10);
    expect(store.bodyBytes(CHUNK + 10)).toBe(77);
  });
});

describe("QueueStore: reclaimed chunks read back as they were held, across retention and a truncate", () => {
  class Replayer implements Regenerator {
    regenerate(_mq: number, draw: number, count: number, bornUs: Float64Array, bodyBytes: Int32Array, tag: Int16Array): void {
      for (let i = 0; i < count; i++) {
        bornUs[i] = draw + i;
        bodyBytes[i] = (draw + i) % 1000;
        tag[i] = (draw + i) % 3;
      }
    }
  }
  /** Every column a reader sees of message o, and its page position. */
  const read = (s: QueueStore, o: number) => [s.bornUs(o), s.bodyBytes(o), s.tag(o), s.originKey(o), s.originBornUs(o), s.reconsumeTimes(o), s.pagePos(o)];

  /**
   * Appends messages [from, to) (message i: born i, at commit-log end pos(i), body i % 1000, tag i % 3,
   * draw i) and reclaims each chunk as soon as it is full, after reading `every`-th message of it (and
   * its first and last): what those read while held, by offset.
   */
  function appendReclaiming(store: QueueStore, from: number, to: number, pos: (i: number) => number, every = 251): Map<number, unknown[]> {
    const held = new Map<number, unknown[]>();
    for (let i = from; i < to; i++) {
      store.append(i, pos(i), i % 1000, i % 3, -1, 0, 0, i);
      if (((i + 1) & (CHUNK - 1)) !== 0 && i + 1 !== to) continue;
      const start = i & ~(CHUNK - 1);
      const first = Math.max(from, start);
      for (let o = first; o <= i; o++) if (o % every === 0 || o === first || o === i || o % 256 === 0) held.set(o, read(store, o));
      store.reclaimBelow(i + 1);
    }
    return held;
  }
  function expectSame(store: QueueStore, held: Map<number, unknown[]>, from = 0, to = Infinity): void {
    let n = 0;
    for (const [o, row] of held) if (o >= from && o < to) (n++, expect(read(store, o)).toEqual(row));
    expect(n).toBeGreaterThan(0);
  }

  it("over 300 chunks (more than one block of per-chunk columns), a retention drop past a block, and a truncate", () => {
    const store = new QueueStore(5, "T", "b", 0);
    store.regenerator = new Replayer();
    const n = 300 * CHUNK + 10;
    const held = appendReclaiming(store, 0, n, (i) => 10 * (i + 1));
    expect(store.chunksHeld).toBe(1); // only the open chunk
    expectSame(store, held);
    // Retention: chunkBase moves to chunk 7, then past the first block of 256 chunks.
    store.minOffset = 7 * CHUNK + 3;
    store.dropBelowMin();
    expect(() => store.bornUs(7 * CHUNK - 1)).toThrow(RangeError);
    expect(store.lowestDraw()).toBe(7 * CHUNK);
    expect(store.firstBornAtOrAfter(store.minOffset, 200 * CHUNK + 5)).toBe(200 * CHUNK + 5);
    expectSame(store, held, 7 * CHUNK);
    store.minOffset = 260 * CHUNK;
    store.dropBelowMin();
    expect(store.lowestDraw()).toBe(260 * CHUNK);
    expectSame(store, held, 260 * CHUNK);
    // A crash cuts into reclaimed chunk 290: it is rebuilt and held; later chunks go; the offsets are given out again.
    const cut = 290 * CHUNK + 100;
    expect(store.truncateTo(cut)).toBe(1);
    expect(store.chunksHeld).toBe(1);
    expectSame(store, held, 260 * CHUNK, cut);
    const again = appendReclaiming(store, cut, 295 * CHUNK + 7, (i) => 10 * (i + 1) + 3);
    expect(again.get(cut)![3]).toBe(messageKey(5, cut, 1)); // a new generation
    expectSame(store, held, 260 * CHUNK, cut);
    expectSame(store, again);
    expect(store.lowestDraw()).toBe(260 * CHUNK);
    store.minOffset = 291 * CHUNK;
    store.dropBelowMin();
    expect(store.lowestDraw()).toBe(291 * CHUNK); // chunk 290 (cut) was not replayable; 291 is again
    expectSame(store, again, 291 * CHUNK);
  });

  it("keeps page positions exactly when a chunk spans 4 GiB of commit log or a position goes back", () => {
    const store = new QueueStore(5, "T", "b", 0);
    store.regenerator = new Replayer();
    // Chunk 0 spans 2^33 bytes of commit log; in chunk 1 the positions of pages 6.. go back below its first; chunk 2 is ordinary.
    const pos = (i: number) => (i < CHUNK ? 5e9 + i * 2 ** 21 : i < 2 * CHUNK ? 1e12 + (i >= CHUNK + 1536 ? -1e6 : 0) + i : 2e12 + 3 * i);
    const held = appendReclaiming(store, 0, 3 * CHUNK + 1, pos);
    expect(store.pagePos(CHUNK - 1)).toBe(5e9 + (CHUNK - 256) * 2 ** 21);
    expectSame(store, held);
    // A truncate into the fallback chunk rebuilds it from the exact positions; reclaimed again, it reads the same.
    expect(store.truncateTo(CHUNK + 2000)).toBe(1);
    expectSame(store, held, 0, CHUNK + 2000);
    const again = appendReclaiming(store, CHUNK + 2000, 2 * CHUNK + 1, pos);
    expectSame(store, held, 0, CHUNK + 2000);
    expectSame(store, again);
  });
});

describe("QueueStore.dropBelowMin and firstBornAtOrAfter", () => {
  it("drops whole chunks below minOffset's chunk for good; reads there throw naming the stored range", () => {
    const store = new QueueStore(0, "T", "broker-a", 3);
    for (let i = 0; i < 2 * CHUNK + 10; i++) store.append(i, i, 1, 0, -1, 0, 0);
    store.minOffset = 2 * CHUNK - 1;
    store.dropBelowMin();
    expect(store.bornUs(CHUNK)).toBe(CHUNK); // minOffset's chunk stays whole
    store.minOffset = 2 * CHUNK;
    store.dropBelowMin();
    expect(() => store.clPos(5)).toThrow(`stored ${2 * CHUNK}..${2 * CHUNK + 10}`);
    expect(() => store.clPos(5)).toThrow(/T@broker-a#3: offset 5 is not stored/);
  });

  it("reads the first message's commit-log position without a rebuild while offset 0 is stored, and throws once it is gone", () => {
    const store = new QueueStore(0, "T", "broker-a", 3);
    expect(() => store.firstClPos()).toThrow(RangeError);
    for (let i = 0; i < CHUNK + 1; i++) store.append(i, 500 + i, 1, 0, -1, 0, 0);
    store.reclaimBelow(CHUNK);
    expect(store.firstClPos()).toBe(500);
    expect(store.rebuilds).toBe(0);
    store.minOffset = CHUNK;
    store.dropBelowMin();
    expect(() => store.firstClPos()).toThrow(RangeError);
  });

  it("finds the first offset born at or after a time across chunks (born times never decrease)", () => {
    const store = new QueueStore(0, "T", "b", 0);
    // Messages born two by two: offset i is born at ⌊i/2⌋·10 µs.
    for (let i = 0; i < 3 * CHUNK; i++) store.append(Math.floor(i / 2) * 10, i, 1, 0, -1, 0, 0);
    expect(store.firstBornAtOrAfter(0, 0)).toBe(0);
    expect(store.firstBornAtOrAfter(0, 5)).toBe(2);
    expect(store.firstBornAtOrAfter(0, (CHUNK / 2) * 10)).toBe(CHUNK); // the first message of chunk 1
    expect(store.firstBornAtOrAfter(0, (CHUNK / 2) * 10 - 1)).toBe(CHUNK);
    expect(store.firstBornAtOrAfter(0, 1e12)).toBe(3 * CHUNK);
    expect(store.firstBornAtOrAfter(CHUNK + 7, 0)).toBe(CHUNK + 7);
  });
});

describe("messageKey", () => {
  it("round-trips queue index and offset", () => {
    const key = messageKey(123, 4_000_000_000);
    expect(keyQueue(key)).toBe(123);
    expect(keyOffset(key)).toBe(4_000_000_000);
  });

  it("decodes the largest queue, offset and generation", () => {
    const key = messageKey(65_535, 2 ** 32 - 1, 31);
    expect([keyQueue(key), keyOffset(key), keyGen(key)]).toEqual([65_535, 2 ** 32 - 1, 31]);
  });
});

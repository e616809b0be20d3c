// FateColumn's plain chunks: a compact chunk with no exceptions is the one shared chunk of its base fate,
// and a write to it gives that chunk its own copy. Asserted through what every column reads: a write
// through one column changes neither another column's chunks of the same base nor the column's others.
import { describe, expect, it } from "vitest";
import { FATE_FILTERED, FATE_LOST, FATE_RETRYING, FateColumn, isAwaiting, type AwaitingCount } from "./FateColumn.ts";

const CHUNK = 4096;

/** A column of `chunks` whole chunks whose every message has `fate` (0 appended, then written). */
function column(chunks: number, fate: number): FateColumn {
  const col = new FateColumn();
  for (let o = 0; o < chunks * CHUNK; o++) col.append(o, 0);
  for (let o = 0; o < chunks * CHUNK; o++) col.set(o, fate);
  return col;
}

function awaiting(col: FateColumn): AwaitingCount {
  const out = { awaiting: 0, retrying: 0 };
  col.countAwaiting(out);
  return out;
}

/** The awaited messages counted one by one, against the column's counters. */
function awaitingByWalk(col: FateColumn): number {
  let n = 0;
  for (let o = 0; o < col.max; o++) if (isAwaiting(col.get(o))) n++;
  return n;
}

/** Offsets in [0, max) whose fate is not `fate`. */
function otherThan(col: FateColumn, fate: number): number[] {
  const out: number[] = [];
  for (let o = 0; o < col.max; o++) if (col.get(o) !== fate) out.push(o);
  return out;
}

describe("FateColumn plain chunks: one shared compact chunk per base fate, copied on write", () => {
  it("a chunk written to becomes its own; the other chunks of its column and another column's are unchanged", () => {
    const a = column(3, 1);
    const b = column(3, 1);
    expect(a.stats()).toEqual({ full: 0, compact: 3, dense: 0, exceptions: 0 });
    expect(a.consume(CHUNK + 5)).toBe(1);
    a.set(2 * CHUNK + 7, 1 | FATE_RETRYING);
    expect(otherThan(a, 1)).toEqual([CHUNK + 5, 2 * CHUNK + 7]);
    expect([a.get(CHUNK + 5), a.get(2 * CHUNK + 7)]).toEqual([2, 1 | FATE_RETRYING]);
    expect(a.stats()).toEqual({ full: 0, compact: 3, dense: 0, exceptions: 2 });
    expect(otherThan(b, 1)).toEqual([]);
    expect(b.stats()).toEqual({ full: 0, compact: 3, dense: 0, exceptions: 0 });
  });

  it("writing a plain chunk's base to it changes nothing", () => {
    const a = column(1, 1);
    a.set(9, 1);
    expect(a.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    expect(otherThan(a, 1)).toEqual([]);
  });

  it("a plain chunk of an awaited base counts all its 4096 messages awaited; a write to one column's moves only its count", () => {
    const a = column(2, FATE_RETRYING);
    const b = column(2, FATE_RETRYING);
    expect(awaiting(a)).toEqual({ awaiting: 2 * CHUNK, retrying: 2 * CHUNK });
    a.consume(3); // a copy of it succeeded
    expect(awaiting(a)).toEqual({ awaiting: 2 * CHUNK - 1, retrying: 2 * CHUNK - 1 });
    expect(awaitingByWalk(a)).toBe(2 * CHUNK - 1);
    expect(awaiting(b)).toEqual({ awaiting: 2 * CHUNK, retrying: 2 * CHUNK });
    expect(otherThan(b, FATE_RETRYING)).toEqual([]);
  });

  it("a chunk whose last exception is written back to the base is plain again, and can be written again", () => {
    const a = column(1, FATE_RETRYING);
    const b = column(1, FATE_RETRYING);
    a.set(3, FATE_RETRYING | FATE_LOST);
    expect(a.stats().exceptions).toBe(1);
    a.set(3, FATE_RETRYING);
    expect(a.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    expect(awaiting(a).awaiting).toBe(CHUNK);
    a.set(4, FATE_RETRYING | FATE_LOST);
    expect(otherThan(a, FATE_RETRYING)).toEqual([4]);
    expect(awaiting(a).awaiting).toBe(awaitingByWalk(a));
    expect(otherThan(b, FATE_RETRYING)).toEqual([]);
  });

  it("a dense chunk whose exceptions all go turns plain, and a write to it makes it its own again", () => {
    const a = column(1, 1);
    const b = column(1, 1);
    for (let o = 0; o < CHUNK; o++) a.consume(o); // a replay: dense past 256 exceptions, then base 2
    expect(a.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    expect(otherThan(a, 2)).toEqual([]);
    a.consume(0);
    expect(otherThan(a, 2)).toEqual([0]);
    expect(otherThan(b, 1)).toEqual([]);
    const c = column(1, 2); // shares a's former plain chunk of base 2
    expect(otherThan(c, 2)).toEqual([]);
  });

  it("a dense chunk that comes to an awaited base turns plain with every message awaited", () => {
    const a = column(2, FATE_LOST); // deleted unconsumed, then every one sent back after all
    for (let o = 0; o < CHUNK; o++) a.set(o, FATE_RETRYING);
    expect(a.stats()).toEqual({ full: 0, compact: 2, dense: 0, exceptions: 0 });
    expect(awaiting(a).awaiting).toBe(CHUNK);
    a.truncate(0, 1); // both chunks dropped: the column's counts go with them
    expect(a.stats()).toEqual({ full: 0, compact: 0, dense: 0, exceptions: 0 });
    for (let o = 0; o < 2 * CHUNK; o++) a.setFate(o, 0, FATE_LOST);
    expect(awaiting(a).awaiting).toBe(0);
  });

  it("a chunk its group filters out entirely is plain with base FATE_FILTERED, and nothing awaited", () => {
    const a = new FateColumn();
    a.append(CHUNK - 1, FATE_FILTERED); // the offsets skipped on the way are filtered too
    expect(a.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    expect(a.get(0)).toBe(FATE_FILTERED);
    expect(awaiting(a).awaiting).toBe(0);
  });
});

describe("FateColumn.truncate through plain chunks", () => {
  it("truncating within a plain chunk gives the column its own full chunk; the others sharing it are unchanged", () => {
    const a = column(2, 1);
    const b = column(2, 1);
    a.truncate(CHUNK + 100, 1);
    expect(a.max).toBe(CHUNK + 100);
    expect(a.stats()).toEqual({ full: 1, compact: 1, dense: 0, exceptions: 0 });
    expect(otherThan(a, 1)).toEqual([]);
    expect(a.fateOf(CHUNK + 100, 0)).toBe(1); // the superseded message keeps its fate
    // New messages refill the chunk, which turns compact again once all are in and resolved.
    for (let o = CHUNK + 100; o < 2 * CHUNK; o++) a.append(o, 0);
    expect(a.stats().full).toBe(1);
    for (let o = CHUNK + 100; o < 2 * CHUNK; o++) a.set(o, 3);
    expect(a.stats()).toEqual({ full: 0, compact: 2, dense: 0, exceptions: 100 });
    expect(otherThan(b, 1)).toEqual([]);
    expect(b.stats()).toEqual({ full: 0, compact: 2, dense: 0, exceptions: 0 });
  });

  it("truncating at a chunk's start drops the plain chunks above it, and their awaited counts", () => {
    const a = column(3, FATE_RETRYING);
    const b = column(3, FATE_RETRYING);
    a.truncate(CHUNK, 1);
    expect(a.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    // The superseded messages of the lost tail are still awaited: their copies live on in the retry chain.
    expect(awaiting(a).awaiting).toBe(3 * CHUNK);
    for (let o = CHUNK; o < 3 * CHUNK; o++) a.setFate(o, 0, FATE_RETRYING | FATE_LOST | 1);
    expect(awaiting(a)).toEqual({ awaiting: CHUNK, retrying: CHUNK });
    expect(awaitingByWalk(a)).toBe(CHUNK);
    expect(awaiting(b).awaiting).toBe(3 * CHUNK);
    expect(otherThan(b, FATE_RETRYING)).toEqual([]);
  });

  it("truncating within a plain chunk of an awaited base keeps the column's awaited count right", () => {
    const a = column(2, FATE_RETRYING);
    a.truncate(CHUNK + 10, 1);
    for (let o = CHUNK + 10; o < 2 * CHUNK; o++) a.setFate(o, 0, FATE_LOST | 1);
    expect(awaiting(a).awaiting).toBe(CHUNK + 10);
    expect(awaitingByWalk(a)).toBe(CHUNK + 10);
    for (let o = CHUNK + 10; o < 2 * CHUNK; o++) a.append(o, FATE_LOST); // refilled, arriving lost
    expect(a.stats()).toEqual({ full: 0, compact: 2, dense: 0, exceptions: 10 });
    expect(awaiting(a).awaiting).toBe(CHUNK + 10);
    expect(awaitingByWalk(a)).toBe(CHUNK + 10);
  });
});

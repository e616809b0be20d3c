// ReplayBooks: each duplicate put down to one cause. Hand-fed reports for one group (0) and a few
// queues; `duplicate` is what the fates would say (the message was consumed before).
import { describe, expect, it } from "vitest";
import { ReplayBooks } from "./ReplayBooks.ts";

const G = 0;
const Q = 1; // an ordinary queue
const RQ = 3; // a retry queue
const [A, B] = [1_000, 1_001]; // consumer addresses
const ZERO = { rollback: 0, reset: 0, rebalance: 0, retryReplay: 0 };

/** Consumes offsets [from, to) of `mq` by `consumer`, origin key = offset; returns the duplicates fed. */
function consume(books: ReplayBooks, mq: number, from: number, to: number, consumer: number, duplicate: boolean): number {
  for (let o = from; o < to; o++) books.consumed(G, mq, o, o, consumer, duplicate);
  return duplicate ? to - from : 0;
}

/** A consumed 0..519, committed 500 (its pulls' piggy-backed offsets): the state every case starts from. */
function consumedTo520(): ReplayBooks {
  const books = new ReplayBooks(1, 4);
  books.started(G, Q, 0, false, A);
  consume(books, Q, 0, 520, A, false);
  books.committed(G, Q, 400);
  books.committed(G, Q, 500);
  return books;
}

describe("ReplayBooks: the owner segment's cause", () => {
  it("started from the newest stored offset: the consumed-but-uncommitted tail 500..519 is replayed as rebalance (20)", () => {
    const books = consumedTo520();
    books.started(G, Q, 500, true, B);
    const dups = consume(books, Q, 500, 520, B, true);
    expect(dups).toBe(20);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rebalance: 20 });
  });

  it("started from a stale table's 300 (some node stored 500): 300..519 replayed as rollback (220)", () => {
    const books = consumedTo520();
    books.started(G, Q, 300, true, B);
    consume(books, Q, 300, 520, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rollback: 220 });
  });

  it("the highest commit counts, not the last: a stale 450 stored after 500 does not make 450 the newest", () => {
    const books = consumedTo520();
    books.committed(G, Q, 450);
    books.started(G, Q, 450, true, B);
    consume(books, Q, 450, 520, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rollback: 70 });
  });

  it("started without a stored offset at 0, below what was consumed: 0..519 replayed as reset (520)", () => {
    const books = consumedTo520();
    books.started(G, Q, 0, false, B);
    consume(books, Q, 0, 520, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, reset: 520 });
  });

  it("a start without a stored offset past everything consumed replays nothing by itself (a group's first start): rebalance", () => {
    const books = new ReplayBooks(1, 4);
    books.started(G, Q, 0, false, A);
    // A duplicate in that segment has another cause; none is known here, so the catch-all.
    books.consumed(G, Q, 0, 0, A, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rebalance: 1 });
  });

  it("an OFFSET_ILLEGAL fix back to 100 (≤ 519 consumed) makes the next start a reset, though stored and below 500", () => {
    const books = consumedTo520();
    books.skipped(G, Q, 100);
    books.started(G, Q, 100, true, B);
    consume(books, Q, 100, 520, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, reset: 420 });
    // The mark is used up: the start after it is judged on its own.
    books.started(G, Q, 500, true, A);
    consume(books, Q, 500, 510, A, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, reset: 420, rebalance: 10 });
  });

  it("a fix forward (to 600, past 519) marks nothing", () => {
    const books = consumedTo520();
    books.skipped(G, Q, 600);
    books.started(G, Q, 300, true, B);
    consume(books, Q, 300, 310, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rollback: 10 });
  });

  it("a truncation to 400 forgets commits and consumption past it: a start at the stored 400 is the newest (rebalance)", () => {
    const books = consumedTo520();
    books.truncated(Q, 400);
    books.started(G, Q, 400, true, B);
    books.consumed(G, Q, 400, 9_999, B, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rebalance: 1 });
    // …and a fix to 401 is forward: of the offsets past 400 only 400 was consumed since.
    books.skipped(G, Q, 401);
    books.started(G, Q, 401, true, A);
    books.consumed(G, Q, 401, 9_998, A, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rebalance: 2 });
  });

  it("each owner's duplicates take its own segment's cause; an owner that never started a segment counts rebalance", () => {
    const books = consumedTo520();
    books.started(G, Q, 300, true, B); // rollback
    books.started(G, Q, 500, true, A); // A's new segment: rebalance
    consume(books, Q, 300, 305, B, true);
    consume(books, Q, 500, 502, A, true);
    books.consumed(G, Q, 510, 510, 1_002, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, rollback: 5, rebalance: 3 });
  });
});

describe("ReplayBooks: replayed retries", () => {
  it("a duplicate at an offset a replayed delivery stored is the replay's, whatever the segment", () => {
    const books = consumedTo520();
    books.started(G, RQ, 300, true, A); // RQ has no commit: a rebalance segment
    books.retryReplayed(RQ, 7);
    books.consumed(G, RQ, 7, 70, A, true);
    books.consumed(G, RQ, 6, 60, A, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, retryReplay: 1, rebalance: 1 });
  });

  it("a replayed copy consumed first: the other copy's later success is the replay's duplicate — once", () => {
    const books = new ReplayBooks(1, 4);
    books.retryReplayed(RQ, 8);
    books.consumed(G, RQ, 8, 77, A, false); // the replayed copy (origin key 77) first
    books.consumed(G, RQ, 3, 77, A, true); // then the copy the old master delivered
    books.consumed(G, RQ, 12, 77, A, true); // a third success of 77 is not the replay's
    expect(books.countsOf(G)).toEqual({ ...ZERO, retryReplay: 1, rebalance: 1 });
  });

  it("with the origin key the replay is followed by message: a copy sent back again and consumed elsewhere still counts", () => {
    const books = new ReplayBooks(1, 4);
    books.retryReplayed(RQ, 8, G, 77);
    books.retryReplayed(RQ, 9, G, 78);
    // 77's replayed copy failed and was sent back: its success comes at offset 40, after the original's.
    books.consumed(G, RQ, 3, 77, A, false);
    books.consumed(G, RQ, 40, 77, A, true);
    // 78's replayed copy first, the original after it.
    books.consumed(G, RQ, 9, 78, A, false);
    books.consumed(G, RQ, 4, 78, A, true);
    books.consumed(G, RQ, 41, 78, A, true);
    expect(books.countsOf(G)).toEqual({ ...ZERO, retryReplay: 2, rebalance: 1 });
  });

  it("the causes sum to the duplicates fed, group by group", () => {
    const books = new ReplayBooks(2, 4);
    books.started(0, Q, 0, false, A);
    books.started(1, Q, 0, false, B);
    for (let o = 0; o < 50; o++) books.consumed(0, Q, o, o, A, false);
    books.committed(0, Q, 50);
    books.started(0, Q, 10, true, B); // rollback for group 0
    for (let o = 10; o < 50; o++) books.consumed(0, Q, o, o, B, true);
    for (let o = 0; o < 5; o++) books.consumed(1, Q, o, o, B, true);
    const total = (g: number) => Object.values(books.countsOf(g)).reduce((a, b) => a + b, 0);
    expect([total(0), total(1)]).toEqual([40, 5]);
    expect(books.countsOf(0).rollback).toBe(40);
  });
});

// MessageFates: the few bits per (group, original message) that say what became of it — consumed (how
// often), sent back into the retry chain, dead-lettered, lost, filtered out — kept in chunked columns
// per (group, scenario queue), and freed chunk by chunk once the broker no longer stores the messages.
// Pure unit tests: a MessageFates over the routes of a two-topic scenario and its own GroupFates
// counters; every call is what the Recorder makes when a broker or a consumer reports.
import { describe, expect, it } from "vitest";
import { CHUNK, messageKey } from "../broker/QueueStore.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { FATE_COUNT_MASK, FATE_DLQ, FATE_FILTERED, FATE_LOST, FATE_RETRYING, MessageFates } from "./MessageFates.ts";
import { GroupFates } from "./MessageFates.ts";

/**
 * Topic T (two queues, tags A and B) and topic U (one queue, no tags). Group G takes only tag A of T;
 * group H takes everything of T and U. Routes: T's queues are 0 and 1, U's is 2.
 */
function fates() {
  const model = normalizeScenario({
    name: "fates",
    brokers: [{ name: "b" }],
    topics: [
      { name: "T", brokers: ["b"], queuesPerBroker: 2, produce: { rate: 1, tags: { A: 1, B: 1 } } },
      { name: "U", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1 } },
    ],
    groups: [
      { name: "G", subscribe: { T: "A" } },
      { name: "H", subscribe: { T: "*", U: "*" } },
    ],
  });
  const routes = new Routes(model);
  const counters = model.groups.map(() => new GroupFates());
  const f = new MessageFates(model, routes, counters);
  return { f, counters, g: counters[G]!, h: counters[H]!, t: routes.topicQueues(0)[0]!, u: routes.topicQueues(1)[0]! };
}
const G = 0;
const H = 1;
/** Tag indexes of T, in the order the scenario names them. */
const TAG_A = 0;
const TAG_B = 1;
const NO_TAG = -1;

/** Stores `n` messages of tag A on `mq`, offsets 0 … n − 1, as a producer would. */
function storeA(f: MessageFates, mq: number, n: number): void {
  for (let o = 0; o < n; o++) f.stored(mq, o, TAG_A);
}
/** One successful consume of each message of [from, to) by `group`. */
function consumeRange(f: MessageFates, group: number, mq: number, from: number, to: number): void {
  for (let o = from; o < to; o++) f.recordConsumed(group, messageKey(mq, o));
}
/** Successful consumes recorded in a fate. */
const countOf = (fate: number) => fate & FATE_COUNT_MASK;

describe("MessageFates.stored: a producer's message reaches every group subscribing its topic", () => {
  it("counts it produced for every subscribing group, and filtered (FATE_FILTERED) where the group's tag filter excludes it", () => {
    const { f, g, h, t } = fates();
    f.stored(t, 0, TAG_A);
    f.stored(t, 1, TAG_B);
    // G takes A only: both produced, offset 1 filtered. H takes everything: nothing filtered.
    expect(g).toMatchObject({ produced: 2, filtered: 1 });
    expect(h).toMatchObject({ produced: 2, filtered: 0 });
    expect([f.fateAt(G, t, 0), f.fateAt(G, t, 1)]).toEqual([0, FATE_FILTERED]);
    expect([f.fateAt(H, t, 0), f.fateAt(H, t, 1)]).toEqual([0, 0]);
    expect(f.column(G, t)!.max).toBe(2);
  });

  it("a message without a tag is filtered out by a tag subscription and delivered to a '*' one", () => {
    const { f, g, h, t } = fates();
    f.stored(t, 0, NO_TAG);
    expect(g.filtered).toBe(1);
    expect(f.fateAt(G, t, 0)).toBe(FATE_FILTERED);
    expect(h.filtered).toBe(0);
    expect(f.fateAt(H, t, 0)).toBe(0);
  });

  it("a queue of a topic the group does not subscribe has no column: nothing is counted and fateAt reads −1", () => {
    const { f, g, h, u } = fates();
    f.stored(u, 0, NO_TAG);
    expect(g.produced).toBe(0);
    expect(f.column(G, u)).toBeUndefined();
    expect(f.fateAt(G, u, 0)).toBe(-1);
    expect(h.produced).toBe(1);
    expect(f.fateAt(H, u, 0)).toBe(0);
  });
});

describe("MessageFates.recordConsumed: a successful listener call for a message", () => {
  it("the first one counts the message consumed (and consumeOk) and is not a duplicate", () => {
    const { f, g, t } = fates();
    storeA(f, t, 3);
    expect(f.recordConsumed(G, messageKey(t, 1))).toBe(false);
    expect(g).toMatchObject({ consumed: 1, duplicates: 0, consumeOk: 1 });
    expect(countOf(f.fateAt(G, t, 1))).toBe(1);
    expect(f.fateAt(G, t, 0)).toBe(0);
  });

  it("later ones are duplicates (returning true), each counts consumeOk, and the count saturates at 31", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    const key = messageKey(t, 0);
    f.recordConsumed(G, key);
    expect(f.recordConsumed(G, key)).toBe(true);
    for (let i = 0; i < 38; i++) f.recordConsumed(G, key);
    // 40 successes: 1 consumed + 39 duplicates; the 5-bit count stops at FATE_COUNT_MASK = 31.
    expect(g).toMatchObject({ consumed: 1, duplicates: 39, consumeOk: 40 });
    expect(countOf(f.fateAt(G, t, 0))).toBe(FATE_COUNT_MASK);
    expect(f.recordConsumed(G, key)).toBe(true);
  });

  it("undoes a LOST verdict: a message deleted by retention while cached, consumed afterwards, counts consumed and not lost", () => {
    const { f, g, t } = fates();
    storeA(f, t, 2);
    f.markLost(G, t, 0, 2);
    expect(g.lost).toBe(2);
    expect(f.recordConsumed(G, messageKey(t, 0))).toBe(false);
    expect(g).toMatchObject({ lost: 1, consumed: 1 });
    expect(f.fateAt(G, t, 0) & FATE_LOST).toBe(0);
  });

  it("undoes a DLQ verdict: a dead-lettered message consumed by a late copy counts consumed and not dead-lettered", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    const key = messageKey(t, 0);
    f.markRetrying(G, key);
    f.markDlq(G, key);
    expect(g.dlq).toBe(1);
    f.recordConsumed(G, key);
    expect(g).toMatchObject({ dlq: 0, consumed: 1 });
    expect(f.fateAt(G, t, 0) & FATE_DLQ).toBe(0);
  });

  it("undoes a verdict only once: the second success of a once-lost message is a plain duplicate", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markLost(G, t, 0, 1);
    const key = messageKey(t, 0);
    f.recordConsumed(G, key);
    f.recordConsumed(G, key);
    expect(g).toMatchObject({ lost: 0, consumed: 1, duplicates: 1 });
  });
});

describe("MessageFates.markRetrying: a message sent back into the retry chain", () => {
  it("marks a message never consumed FATE_RETRYING and touches no counter", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markRetrying(G, messageKey(t, 0));
    expect(f.fateAt(G, t, 0)).toBe(FATE_RETRYING);
    expect(g).toMatchObject({ produced: 1, consumed: 0, dlq: 0, lost: 0 });
  });

  it("marks a consumed message whose duplicate was sent back, without unsettling it: it stays consumed once", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.recordConsumed(G, messageKey(t, 0));
    f.markRetrying(G, messageKey(t, 0));
    // Still consumed (count 1); RETRYING now says copies of it may come back, which matters once its
    // chunk is freed (see reclaimed below). Accounting reads RETRYING only on unconsumed messages.
    expect(f.fateAt(G, t, 0)).toBe(FATE_RETRYING | 1);
    expect(g.consumed).toBe(1);
  });
});

describe("MessageFates.markDropped: the broker discarded a sent-back message (retryQueueNums 0)", () => {
  it("counts it lost once, however often it is discarded", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markDropped(G, messageKey(t, 0));
    f.markDropped(G, messageKey(t, 0));
    expect(g.lost).toBe(1);
    expect(f.fateAt(G, t, 0)).toBe(FATE_LOST);
  });

  it("does not count a consumed, a dead-lettered or an already lost message", () => {
    const { f, g, t } = fates();
    storeA(f, t, 3);
    f.recordConsumed(G, messageKey(t, 0));
    f.markDlq(G, messageKey(t, 1));
    f.markLost(G, t, 2, 3);
    for (let o = 0; o < 3; o++) f.markDropped(G, messageKey(t, o));
    expect(g).toMatchObject({ consumed: 1, dlq: 1, lost: 1 });
    expect(f.fateAt(G, t, 0)).toBe(1);
    expect(f.fateAt(G, t, 1)).toBe(FATE_DLQ);
  });
});

describe("MessageFates.markDlq: a sent-back message went to %DLQ%<group>", () => {
  it("counts it dead-lettered once, keeping the RETRYING bit its earlier send-backs set", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    const key = messageKey(t, 0);
    f.markRetrying(G, key);
    f.markDlq(G, key);
    f.markDlq(G, key);
    expect(g.dlq).toBe(1);
    expect(f.fateAt(G, t, 0)).toBe(FATE_RETRYING | FATE_DLQ);
  });

  it("does not count a consumed message", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.recordConsumed(G, messageKey(t, 0));
    f.markDlq(G, messageKey(t, 0));
    expect(g.dlq).toBe(0);
    expect(f.fateAt(G, t, 0) & FATE_DLQ).toBe(0);
  });
});

describe("MessageFates.markLost: [from, to) of a queue will never be read again", () => {
  /** Ten messages of T for G: offset 1 tagged B (filtered), 2 consumed, 3 sent back, 4 dead-lettered, 5 dropped. */
  function settledMix() {
    const x = fates();
    const { f, t } = x;
    for (let o = 0; o < 10; o++) f.stored(t, o, o === 1 ? TAG_B : TAG_A);
    f.recordConsumed(G, messageKey(t, 2));
    f.markRetrying(G, messageKey(t, 3));
    f.markDlq(G, messageKey(t, 4));
    f.markDropped(G, messageKey(t, 5));
    return x;
  }

  it("marks only unsettled messages: consumed, retrying, dead-lettered, lost and filtered ones are skipped, `to` excluded", () => {
    const { f, g, t } = settledMix();
    expect(g.lost).toBe(1); // offset 5
    f.markLost(G, t, 0, 8);
    // Unsettled in [0, 8): offsets 0, 6 and 7 → 1 + 3 = 4 lost.
    expect(g.lost).toBe(4);
    const lost = [];
    for (let o = 0; o < 10; o++) if (f.fateAt(G, t, o) & FATE_LOST) lost.push(o);
    expect(lost).toEqual([0, 5, 6, 7]);
    expect([f.fateAt(G, t, 1), f.fateAt(G, t, 2), f.fateAt(G, t, 3), f.fateAt(G, t, 4)]).toEqual([FATE_FILTERED, 1, FATE_RETRYING, FATE_DLQ]);
  });

  it("marking the same range again counts nothing more", () => {
    const { f, g, t } = settledMix();
    f.markLost(G, t, 0, 8);
    f.markLost(G, t, 0, 8);
    expect(g.lost).toBe(4);
  });

  it("clamps to what is stored: a range past the column's max marks only up to it", () => {
    const { f, g, t } = settledMix();
    f.markLost(G, t, 6, 1000);
    // Offsets 6 … 9 (10 stored) plus offset 5, dropped before.
    expect(g.lost).toBe(5);
    expect(f.column(G, t)!.max).toBe(10);
    expect(f.fateAt(G, t, 10)).toBe(-1);
  });

  it("clamps to the column's min once chunks were freed", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK + 4);
    consumeRange(f, G, t, 0, CHUNK);
    f.reclaimed(t, CHUNK);
    expect(f.column(G, t)!.min).toBe(CHUNK);
    f.markLost(G, t, 0, CHUNK + 2);
    // Only CHUNK and CHUNK + 1 are held and unsettled.
    expect(g.lost).toBe(2);
  });

  it("does nothing for a group without a column on the queue", () => {
    const { f, g, u } = fates();
    f.stored(u, 0, NO_TAG);
    f.markLost(G, u, 0, 1);
    expect(g.lost).toBe(0);
  });
});

describe("MessageFates.deleted: retention or a truncation deleted [from, to) of a queue", () => {
  it("marks the range lost for every subscribing group that had not settled it", () => {
    const { f, g, h, t } = fates();
    const tags = [TAG_A, TAG_B, TAG_A, TAG_A, TAG_B, TAG_A];
    tags.forEach((tag, o) => f.stored(t, o, tag));
    f.recordConsumed(G, messageKey(t, 2));
    f.recordConsumed(H, messageKey(t, 0));
    f.deleted(t, 0, 4);
    // G: offsets 0, 2, 3 are A; 2 consumed → 0 and 3 lost. H: 0 consumed → 1, 2, 3 lost.
    expect(g.lost).toBe(2);
    expect(h.lost).toBe(3);
    expect(f.fateAt(G, t, 4)).toBe(FATE_FILTERED);
    expect(f.fateAt(H, t, 4)).toBe(0);
  });
});

describe("MessageFates.reclaimed: the broker no longer stores a queue's messages below an offset", () => {
  /** Three whole chunks and 10 more messages of tag A on T's first queue. */
  const N = 3 * CHUNK + 10;

  it("frees nothing below one whole chunk, and never the chunk holding the broker's offset", () => {
    const { f, t } = fates();
    storeA(f, t, N);
    consumeRange(f, G, t, 0, N);
    f.reclaimed(t, CHUNK - 1);
    expect(f.column(G, t)!.min).toBe(0);
    f.reclaimed(t, 2 * CHUNK + 5);
    // Chunks 0 and 1 lie wholly below 2 × CHUNK + 5; chunk 2 holds it and stays.
    expect(f.column(G, t)!.min).toBe(2 * CHUNK);
    let held = 0;
    f.forEachHeld(G, t, () => held++);
    expect(held).toBe(N - 2 * CHUNK);
  });

  it("keeps every chunk from the first unresolved message on, and frees them once it is resolved", () => {
    const { f, t } = fates();
    storeA(f, t, N);
    consumeRange(f, G, t, 0, CHUNK + 7);
    consumeRange(f, G, t, CHUNK + 8, N);
    f.reclaimed(t, N);
    expect(f.column(G, t)!.min).toBe(CHUNK);
    f.recordConsumed(G, messageKey(t, CHUNK + 7));
    // The broker reports its reclaimed offset again at its next tick: now ⌊N / CHUNK⌋ = 3 chunks go.
    f.reclaimed(t, N);
    expect(f.column(G, t)!.min).toBe(3 * CHUNK);
  });

  it("frees each group's column on its own", () => {
    const { f, t } = fates();
    storeA(f, t, 2 * CHUNK);
    consumeRange(f, H, t, 0, 2 * CHUNK);
    consumeRange(f, G, t, 1, 2 * CHUNK); // G has not resolved offset 0
    f.reclaimed(t, 2 * CHUNK);
    expect(f.column(H, t)!.min).toBe(2 * CHUNK);
    expect(f.column(G, t)!.min).toBe(0);
  });

  it("counts filtered, lost and dead-lettered messages as resolved", () => {
    const { f, t } = fates();
    for (let o = 0; o < CHUNK; o++) f.stored(t, o, o % 2 === 0 ? TAG_A : TAG_B); // G filters the odd ones
    for (let o = 0; o < CHUNK; o += 2) {
      if (o % 4 === 0) f.markDlq(G, messageKey(t, o));
      else f.markLost(G, t, o, o + 1);
    }
    f.reclaimed(t, CHUNK);
    expect(f.column(G, t)!.min).toBe(CHUNK);
    expect(f.retryFates.size).toBe(0);
  });

  it("moves every message ever sent back (RETRYING, consumed, dead-lettered or not) to retryFates, where fate() finds them", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK);
    const k = (o: number) => messageKey(t, o);
    for (const o of [3, 4, 5]) f.markRetrying(G, k(o));
    f.markDlq(G, k(4)); // its chain ended in the DLQ
    consumeRange(f, G, t, 5, 6); // its retry copy was consumed
    consumeRange(f, G, t, 0, 3);
    consumeRange(f, G, t, 6, CHUNK);
    f.reclaimed(t, CHUNK);
    expect(f.column(G, t)!.min).toBe(CHUNK);
    // 3 is still in the chain; 4's chain ended in the DLQ and 5's copy was consumed, but a later copy
    // of either could still be consumed, so their fates must survive the free too.
    expect([...f.retryFates]).toEqual([
      [G * 2 ** 40 + k(3), FATE_RETRYING],
      [G * 2 ** 40 + k(4), FATE_RETRYING | FATE_DLQ],
      [G * 2 ** 40 + k(5), FATE_RETRYING | 1],
    ]);
    expect(f.fate(G, k(3))).toBe(FATE_RETRYING);
    // The chain goes on after the chunk is gone: its copy is consumed, then counted and remembered.
    const consumed = g.consumed;
    expect(f.recordConsumed(G, k(3))).toBe(false);
    expect(g.consumed).toBe(consumed + 1);
    expect(f.fate(G, k(3))).toBe(FATE_RETRYING | 1);
    expect(f.recordConsumed(G, k(3))).toBe(true);
  });

  it("a retry-chain message moved to retryFates can still end in the DLQ, counted once", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK);
    const key = messageKey(t, 9);
    f.markRetrying(G, key);
    consumeRange(f, G, t, 0, 9);
    consumeRange(f, G, t, 10, CHUNK);
    f.reclaimed(t, CHUNK);
    f.markDlq(G, key);
    f.markDlq(G, key);
    expect(g.dlq).toBe(1);
    expect(f.fate(G, key)).toBe(FATE_RETRYING | FATE_DLQ);
  });

  it("fate() of a freed message outside retryFates reads FATE_RETRYING, and fateAt reads −1", () => {
    // Why that is safe: reclaimed(mq, o) comes from the broker only below the offset nobody may read
    // (StorageReclaimer's floor: every committed offset, cache, worker and pull), and a chunk goes only
    // once all its messages are resolved; so no consumer will deliver these originals again and the
    // only fate events still to come are those of retry copies — which exist for the RETRYING messages
    // kept in retryFates (every message ever sent back: see the next test). FATE_RETRYING carries no count, DLQ or
    // LOST bit, so it reads as "settled elsewhere" for the walks and adds to no counter by itself.
    const { f, t } = fates();
    storeA(f, t, CHUNK + 1);
    consumeRange(f, G, t, 0, CHUNK);
    expect(countOf(f.fate(G, messageKey(t, 6)))).toBe(1);
    f.reclaimed(t, CHUNK);
    expect(f.fate(G, messageKey(t, 6))).toBe(FATE_RETRYING);
    expect(f.fateAt(G, t, 6)).toBe(-1);
    expect(f.fateAt(G, t, CHUNK)).toBe(0);
  });

  // A message consumed once (count 1) can still have a retry copy on its way: a duplicate delivery
  // of it (rebalance overlap) failed and was sent back. Its fate must survive the free of its chunk,
  // or the copy's success would count as a first consumption (consumed + 1 instead of duplicates + 1)
  // and fail the conservation check — as scenarios/consumer-crash.json with a listener failing half
  // its attempts did before markRetrying marked consumed messages and compact() kept them.
  it("a consumed message whose duplicate was sent back counts its retry copy's success as a duplicate after its chunk is freed", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK);
    consumeRange(f, G, t, 0, CHUNK);
    const key = messageKey(t, 9);
    f.markRetrying(G, key); // a second owner's delivery of offset 9 failed and was sent back
    f.reclaimed(t, CHUNK);
    expect(f.recordConsumed(G, key)).toBe(true); // the retry copy succeeds: a duplicate
    expect(g).toMatchObject({ consumed: CHUNK, duplicates: 1 });
  });
});

describe("MessageFates.forEachHeld, fateAt and column(): what the end-of-run walks read", () => {
  it("forEachHeld walks [column.min, column.max) in offset order with each fate; fateAt reads −1 outside", () => {
    const { f, t } = fates();
    storeA(f, t, CHUNK + 3);
    consumeRange(f, G, t, 0, CHUNK);
    f.markRetrying(G, messageKey(t, CHUNK + 1));
    f.reclaimed(t, CHUNK + 3);
    const col = f.column(G, t)!;
    expect([col.min, col.max]).toEqual([CHUNK, CHUNK + 3]);
    const walked: [number, number][] = [];
    f.forEachHeld(G, t, (o, fate) => walked.push([o, fate]));
    expect(walked).toEqual([[CHUNK, 0], [CHUNK + 1, FATE_RETRYING], [CHUNK + 2, 0]]);
    expect(f.fateAt(G, t, CHUNK - 1)).toBe(-1);
    expect(f.fateAt(G, t, CHUNK + 3)).toBe(-1);
  });

  it("walks nothing for a group without a column on the queue", () => {
    const { f, u } = fates();
    f.stored(u, 0, NO_TAG);
    let calls = 0;
    f.forEachHeld(G, u, () => calls++);
    expect(calls).toBe(0);
    f.forEachHeld(H, u, () => calls++);
    expect(calls).toBe(1);
  });
});

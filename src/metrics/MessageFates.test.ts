// MessageFates: the few bits per (group, original message) that say what became of it — consumed (how
// often), sent back into the retry chain, dead-lettered, lost, skipped at the group's start, filtered
// out — kept in columns of 4096-message chunks per (group, scenario queue); a chunk whose messages are
// all resolved turns compact (a base fate and its exceptions) and every fate stays answerable.
// Pure unit tests: a MessageFates over the routes of a two-topic scenario and its own GroupFates
// counters; every call is what the Recorder makes when a broker or a consumer reports.
import { describe, expect, it } from "vitest";
import { CHUNK, messageKey } from "../broker/QueueStore.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { FATE_COUNT_MASK, FATE_DLQ, FATE_DROPPED, FATE_FILTERED, FATE_LOST, FATE_RETRYING, FATE_SKIPPED, MessageFates } from "./MessageFates.ts";

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
  const f = new MessageFates(model, routes);
  const counters = f.subjects.map((s) => s.counters);
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
    // Still consumed (count 1); RETRYING now says copies of it may come back, whose success is then a
    // duplicate. Accounting reads RETRYING only on unsettled messages.
    expect(f.fateAt(G, t, 0)).toBe(FATE_RETRYING | 1);
    expect(g.consumed).toBe(1);
  });
});

describe("MessageFates.markDropped: a failed message was dropped (a broadcasting instance, or the broker with retryQueueNums 0)", () => {
  it("counts it lost and dropped once, however often it is dropped, and marks FATE_LOST | FATE_DROPPED", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markDropped(G, messageKey(t, 0));
    f.markDropped(G, messageKey(t, 0));
    expect(g).toMatchObject({ lost: 1, dropped: 1 });
    expect(f.fateAt(G, t, 0)).toBe(FATE_LOST | FATE_DROPPED);
  });

  it("a dropped message consumed after all (a rewind re-delivers it) counts consumed, no longer lost nor dropped", () => {
    const { f, g, t } = fates();
    storeA(f, t, 2);
    f.markDropped(G, messageKey(t, 0));
    f.markDropped(G, messageKey(t, 1));
    f.recordConsumed(G, messageKey(t, 0));
    // Offset 0: dropped, then consumed → consumed 1; offset 1 stays lost and dropped.
    expect(g).toMatchObject({ consumed: 1, lost: 1, dropped: 1 });
    expect(f.fateAt(G, t, 0)).toBe(1);
  });

  it("a message lost by retention before its drop is lost but not dropped", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markLost(G, t, 0, 1);
    f.markDropped(G, messageKey(t, 0));
    expect(g).toMatchObject({ lost: 1, dropped: 0 });
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

  it("starts at the column's first unresolved message: the resolved chunk below is left as it is", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK + 4);
    consumeRange(f, G, t, 0, CHUNK);
    f.markLost(G, t, 0, CHUNK + 2);
    // Only CHUNK and CHUNK + 1 are unsettled in [0, CHUNK + 2).
    expect(g.lost).toBe(2);
    expect(f.column(G, t)!.firstUnresolved()).toBe(CHUNK + 2);
    expect(f.fateAt(G, t, 0)).toBe(1);
  });

  it("marks the unresolved messages scattered over full and compact chunks, and nothing else", () => {
    const { f, g, t } = fates();
    storeA(f, t, 3 * CHUNK);
    consumeRange(f, G, t, 0, 5);
    consumeRange(f, G, t, 6, 2 * CHUNK + 3);
    consumeRange(f, G, t, 2 * CHUNK + 4, 3 * CHUNK);
    // Chunk 1 is compact; chunks 0 and 2 are full, each with one unresolved message: 5 and 2 × CHUNK + 3.
    expect(f.column(G, t)!.stats()).toMatchObject({ full: 2, compact: 1 });
    f.markLost(G, t, 0, 3 * CHUNK);
    expect(g.lost).toBe(2);
    expect([f.fateAt(G, t, 5), f.fateAt(G, t, 2 * CHUNK + 3)]).toEqual([FATE_LOST, FATE_LOST]);
    expect(f.column(G, t)!.stats()).toMatchObject({ full: 0, compact: 3 });
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

describe("MessageFates.markSkippedAtStart: a new group started a queue above messages it had not settled (§10.6)", () => {
  /** Ten messages of T for G: offset 1 tagged B (filtered), 2 consumed, 3 sent back, 4 dead-lettered, 5 dropped. */
  function mix() {
    const x = fates();
    const { f, t } = x;
    for (let o = 0; o < 10; o++) f.stored(t, o, o === 1 ? TAG_B : TAG_A);
    f.recordConsumed(G, messageKey(t, 2));
    f.markRetrying(G, messageKey(t, 3));
    f.markDlq(G, messageKey(t, 4));
    f.markDropped(G, messageKey(t, 5));
    return x;
  }

  it("marks FATE_SKIPPED and counts skippedAtStart — not lost — the unsettled messages below the start offset", () => {
    const { f, g, h, t } = mix();
    f.markSkippedAtStart(G, t, 8);
    // Unsettled in [0, 8): 0, 6, 7. Offset 5 stays lost (dropped), 8 and 9 are at or above the start.
    expect(g).toMatchObject({ skippedAtStart: 3, lost: 1 });
    const skipped = [];
    for (let o = 0; o < 10; o++) if (f.fateAt(G, t, o) & FATE_SKIPPED) skipped.push(o);
    expect(skipped).toEqual([0, 6, 7]);
    expect(h.skippedAtStart).toBe(0);
  });

  it("marking again, or below an earlier start, counts nothing more", () => {
    const { f, g, t } = mix();
    f.markSkippedAtStart(G, t, 8);
    f.markSkippedAtStart(G, t, 8);
    f.markSkippedAtStart(G, t, 3);
    expect(g.skippedAtStart).toBe(3);
  });

  it("a skipped message consumed after all (an earlier owner still held it) counts consumed and no longer skipped", () => {
    const { f, g, t } = mix();
    f.markSkippedAtStart(G, t, 8);
    expect(f.recordConsumed(G, messageKey(t, 6))).toBe(false);
    expect(g).toMatchObject({ skippedAtStart: 2, consumed: 2 });
    expect(f.fateAt(G, t, 6)).toBe(1);
  });

  it("a skipped message the earlier owner sent back is in the retry chain, and its dead-lettering counts once", () => {
    const { f, g, t } = mix();
    f.markSkippedAtStart(G, t, 8);
    f.markRetrying(G, messageKey(t, 7));
    expect(g.skippedAtStart).toBe(2);
    expect(f.fateAt(G, t, 7)).toBe(FATE_RETRYING);
    f.markDlq(G, messageKey(t, 7));
    expect(g).toMatchObject({ skippedAtStart: 2, dlq: 2 });
  });

  it("a skipped message dropped by the broker (retryQueueNums 0) counts lost (and dropped) instead", () => {
    const { f, g, t } = mix();
    f.markSkippedAtStart(G, t, 8);
    f.markDropped(G, messageKey(t, 0));
    // Skipped 0, 6, 7, then 0 dropped: skipped 6 and 7; lost and dropped 5 (mix) and 0.
    expect(g).toMatchObject({ skippedAtStart: 2, lost: 2, dropped: 2 });
    expect(f.fateAt(G, t, 0)).toBe(FATE_LOST | FATE_DROPPED);
  });
});

// Issue 11, defect 5c: a message deleted from its queue (retention, a truncate) while a consumer still
// held it is counted lost; the consumer then fails it and sends it back. Its copy lives on in the retry
// chain, and when that chain ends in the DLQ markDlq used to count it dead-lettered without taking back
// the loss: counted twice, the conservation gap equal to `lost` of those messages.
describe("MessageFates: a message counted lost while a consumer held it, then sent back (defect 5c)", () => {
  it("markDlq takes back the LOST verdict: the message counts dead-lettered once and not lost", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    f.markLost(G, t, 0, 1);
    f.markDlq(G, messageKey(t, 0)); // maxReconsumeTimes 0: the first send-back dead-letters it
    expect(g).toMatchObject({ lost: 0, dlq: 1 });
    expect(f.fateAt(G, t, 0)).toBe(FATE_DLQ);
  });

  it("markRetrying takes back the LOST verdict: the message is in the retry chain, and a later DLQ counts once", () => {
    const { f, g, t } = fates();
    storeA(f, t, 1);
    const key = messageKey(t, 0);
    f.markLost(G, t, 0, 1);
    f.markRetrying(G, key);
    expect(g.lost).toBe(0);
    expect(f.awaiting(G)).toEqual({ awaiting: 1, retrying: 1 });
    f.markDlq(G, key);
    expect(g).toMatchObject({ lost: 0, dlq: 1 });
    expect(f.awaiting(G)).toEqual({ awaiting: 0, retrying: 0 });
  });
});

describe("FateColumn compact chunks: 4096 resolved messages kept as a base fate and its exceptions", () => {
  it("a chunk turns compact once its 4096 messages are in and resolved; the chunk being appended to stays full", () => {
    const { f, t } = fates();
    storeA(f, t, 2 * CHUNK + 10);
    consumeRange(f, G, t, 0, 2 * CHUNK + 10);
    // Chunks 0 and 1 are complete and consumed once each: base 1, no exception. Chunk 2 holds 10 of 4096.
    expect(f.column(G, t)!.stats()).toEqual({ full: 1, compact: 2, dense: 0, exceptions: 0 });
    expect(f.column(G, t)!.firstUnresolved()).toBe(2 * CHUNK + 10);
  });

  it("a chunk with one unresolved message stays full until that message is resolved, then turns compact", () => {
    const { f, t } = fates();
    storeA(f, t, 2 * CHUNK);
    consumeRange(f, G, t, 0, CHUNK + 7);
    consumeRange(f, G, t, CHUNK + 8, 2 * CHUNK);
    expect(f.column(G, t)!.stats()).toMatchObject({ full: 1, compact: 1 });
    expect(f.column(G, t)!.firstUnresolved()).toBe(CHUNK + 7);
    f.recordConsumed(G, messageKey(t, CHUNK + 7));
    expect(f.column(G, t)!.stats()).toMatchObject({ full: 0, compact: 2 });
  });

  it("each group's column turns compact on its own", () => {
    const { f, t } = fates();
    storeA(f, t, CHUNK);
    consumeRange(f, H, t, 0, CHUNK);
    consumeRange(f, G, t, 1, CHUNK); // G has not resolved offset 0
    expect(f.column(H, t)!.stats().compact).toBe(1);
    expect(f.column(G, t)!.stats().compact).toBe(0);
  });

  it("reads return each message's own fate: the base, or its exception", () => {
    const { f, t } = fates();
    storeA(f, t, CHUNK);
    const k = (o: number) => messageKey(t, o);
    f.markRetrying(G, k(3)); // still in the retry chain
    f.markRetrying(G, k(4));
    f.markDlq(G, k(4)); // its chain ended in the DLQ
    f.markLost(G, t, 5, 6);
    consumeRange(f, G, t, 0, 3);
    consumeRange(f, G, t, 6, CHUNK);
    f.recordConsumed(G, k(9)); // a duplicate
    const col = f.column(G, t)!;
    // Base 1 (consumed once): exceptions 3, 4, 5 and 9.
    expect(col.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 4 });
    expect([3, 4, 5, 9, 10].map((o) => f.fateAt(G, t, o))).toEqual([FATE_RETRYING, FATE_RETRYING | FATE_DLQ, FATE_LOST, 2, 1]);
  });

  it("a message of a compact chunk consumed again (a replay) is a duplicate, and a retry copy's first success undoes its DLQ verdict", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK);
    const key4 = messageKey(t, 4);
    f.markRetrying(G, key4);
    f.markDlq(G, key4);
    consumeRange(f, G, t, 0, 4);
    consumeRange(f, G, t, 5, CHUNK);
    expect(f.column(G, t)!.stats().compact).toBe(1);
    consumeRange(f, G, t, 0, 10); // a rewind to 0 re-reads the first ten
    // Nine were consumed before: duplicates. Offset 4's first success: consumed, and no longer in the DLQ.
    expect(g).toMatchObject({ consumed: CHUNK, duplicates: 9, dlq: 0 });
    expect(f.fateAt(G, t, 4)).toBe(FATE_RETRYING | 1);
    expect(f.column(G, t)!.stats().exceptions).toBe(10); // 0–3 and 5–9 count 2, 4 carries RETRYING
  });

  it("a replay of a whole chunk goes dense past 256 exceptions and sparse again once the new count covers all but 128", () => {
    const { f, g, t } = fates();
    storeA(f, t, CHUNK);
    consumeRange(f, G, t, 0, CHUNK);
    const col = f.column(G, t)!;
    consumeRange(f, G, t, 0, 256);
    expect(col.stats()).toMatchObject({ dense: 0, exceptions: 256 });
    consumeRange(f, G, t, 256, 257); // the 257th exception
    expect(col.stats()).toMatchObject({ dense: 1, exceptions: 0 });
    // Count 2 overtakes count 1 at 2049 messages and covers all but 128 at 4096 − 128 = 3968.
    consumeRange(f, G, t, 257, 3967);
    expect(col.stats().dense).toBe(1);
    consumeRange(f, G, t, 3967, 3968);
    expect(col.stats()).toMatchObject({ dense: 0, exceptions: 128 });
    consumeRange(f, G, t, 3968, CHUNK);
    expect(col.stats()).toMatchObject({ dense: 0, exceptions: 0 });
    expect(g).toMatchObject({ consumed: CHUNK, duplicates: CHUNK });
    expect([0, 2048, CHUNK - 1].map((o) => f.fateAt(G, t, o))).toEqual([2, 2, 2]);
  });

  it("counts the sent-back messages it holds as awaited, in the retry chain, until their copies settle", () => {
    const { f, t } = fates();
    storeA(f, t, CHUNK);
    const k = (o: number) => messageKey(t, o);
    for (const o of [3, 4, 5]) f.markRetrying(G, k(o));
    consumeRange(f, G, t, 0, 3);
    consumeRange(f, G, t, 6, CHUNK);
    expect(f.column(G, t)!.stats().compact).toBe(1);
    expect(f.awaiting(G)).toEqual({ awaiting: 3, retrying: 3 });
    f.recordConsumed(G, k(3));
    f.markDlq(G, k(4));
    expect(f.awaiting(G)).toEqual({ awaiting: 1, retrying: 1 });
  });

  it("a filtered message reads as the base, unless the base is an awaited fate: then it stays FATE_FILTERED", () => {
    // G filters out tag B (odd offsets). Nothing ever asks a filtered message's fate, so it need not be
    // kept; but where most delivered messages are awaited (all in the retry chain) it must not read as one.
    const { f, t } = fates();
    for (let o = 0; o < 2 * CHUNK; o++) f.stored(t, o, o % 2 === 0 ? TAG_A : TAG_B);
    for (let o = 0; o < CHUNK; o += 2) f.recordConsumed(G, messageKey(t, o));
    for (let o = CHUNK; o < 2 * CHUNK; o += 2) f.markRetrying(G, messageKey(t, o));
    expect(f.column(G, t)!.stats()).toEqual({ full: 0, compact: 2, dense: 1, exceptions: 0 });
    expect(f.fateAt(G, t, 1)).toBe(1);
    // Chunk 1: 2048 retrying and 2048 filtered, too many exceptions for a sparse chunk: it stays dense.
    expect(f.fateAt(G, t, CHUNK + 1)).toBe(FATE_FILTERED);
    expect(f.awaiting(G)).toEqual({ awaiting: CHUNK / 2, retrying: CHUNK / 2 });
  });

  it("a chunk G filters out entirely is compact with nothing awaited", () => {
    const { f, g, t } = fates();
    for (let o = 0; o < CHUNK; o++) f.stored(t, o, TAG_B);
    expect(g.filtered).toBe(CHUNK);
    expect(f.column(G, t)!.stats()).toEqual({ full: 0, compact: 1, dense: 0, exceptions: 0 });
    expect(f.awaiting(G)).toEqual({ awaiting: 0, retrying: 0 });
  });
});

describe("MessageFates.awaiting: the messages a group still awaits, for the conservation check", () => {
  it("equals produced − filtered − consumed − dlq − lost − skippedAtStart, over compact and full chunks", () => {
    const { f, g, t } = fates();
    for (let o = 0; o < 3 * CHUNK; o++) f.stored(t, o, o % 7 === 0 ? TAG_B : TAG_A);
    const k = (o: number) => messageKey(t, o);
    for (let o = 1; o < 2 * CHUNK; o++) if (o % 7 !== 0 && o % 100 !== 0) f.recordConsumed(G, k(o));
    for (let o = 100; o < 2 * CHUNK; o += 100) if (o % 7 !== 0) f.markRetrying(G, k(o));
    f.markDlq(G, k(200));
    f.markLost(G, t, 2 * CHUNK, 2 * CHUNK + 50);
    f.markSkippedAtStart(G, t, 2 * CHUNK + 60);
    const counted = g.produced - g.filtered - g.consumed - g.dlq - g.lost - g.skippedAtStart;
    const a = f.awaiting(G);
    expect(a.awaiting).toBe(counted);
    // Retrying: offsets 100, 200, …, 8100 not divisible by 7 (81 − 11 = 70), less 200 (dead-lettered).
    expect(a.retrying).toBe(69);
    expect(f.column(G, t)!.stats()).toMatchObject({ compact: 2, full: 1 });
  });
});

describe("MessageFates.truncated: a crash lost the commit-log tail [from, to) and `from` will be reused", () => {
  it("a compact chunk holding `from` turns full again: fates below stay, new messages append at `from` and arrive lost below `to`", () => {
    const { f, g, t } = fates();
    storeA(f, t, 2 * CHUNK);
    consumeRange(f, G, t, 0, 2 * CHUNK);
    f.truncated(t, CHUNK + 100, 2 * CHUNK, 1);
    const col = f.column(G, t)!;
    // Every message of the lost tail was consumed: none is counted lost. Chunk 1 keeps [CHUNK, CHUNK + 100).
    expect(g.lost).toBe(0);
    expect(col.max).toBe(CHUNK + 100);
    expect(col.stats()).toMatchObject({ compact: 1, full: 1 });
    expect(f.fateAt(G, t, CHUNK + 99)).toBe(1);
    expect(f.fateAt(G, t, CHUNK + 100)).toBe(-1);
    f.stored(t, CHUNK + 100, TAG_A);
    expect(g).toMatchObject({ produced: 2 * CHUNK + 1, lost: 1 });
    expect(f.fateAt(G, t, CHUNK + 100)).toBe(FATE_LOST);
    expect(f.awaiting(G).awaiting).toBe(0);
  });

  it("a message of the lost tail a consumer still held keeps its fate until its offset is refilled", () => {
    const { f, g, t } = fates();
    storeA(f, t, 10);
    consumeRange(f, G, t, 0, 5);
    f.truncated(t, 5, 10, 1);
    expect(g.lost).toBe(5); // 5 … 9
    f.recordConsumed(G, messageKey(t, 7)); // it was cached before the crash: consumed, no longer lost
    expect(g).toMatchObject({ consumed: 6, lost: 4 });
    expect(f.awaiting(G)).toEqual({ awaiting: 0, retrying: 0 });
    // A new message refills offset 5: it arrives lost (below 10, which a consumer may have read past).
    f.stored(t, 5, TAG_A);
    expect(g).toMatchObject({ produced: 11, lost: 5 });
    expect(f.fateAt(G, t, 5)).toBe(FATE_LOST);
  });

  it("a held message stays itself after its offset is refilled: generation 0 keeps its fate, the refill (generation 1) its own", () => {
    // Found by the random-scenario corpus (run 3170): a role swap cut offset 19 while a listener held it;
    // a filtered message refilled 19, and the held one's consumption was booked on the refill.
    const { f, g, t } = fates();
    storeA(f, t, 10);
    consumeRange(f, G, t, 0, 5);
    f.truncated(t, 5, 10, 1);
    expect(g.lost).toBe(5);
    f.stored(t, 5, TAG_A); // the refill of 5: generation 1, lost on arrival (below 10)
    f.stored(t, 6, TAG_A);
    expect(g).toMatchObject({ produced: 12, lost: 7 });
    // The listener that held the old message 6 (generation 0) finishes: the old one is consumed, not the refill.
    f.recordConsumed(G, messageKey(t, 6, 0));
    expect(g).toMatchObject({ consumed: 6, lost: 6 });
    expect(f.fate(G, messageKey(t, 6, 0))).toBe(1);
    expect(f.fate(G, messageKey(t, 6, 1))).toBe(FATE_LOST);
    // The refill is consumed later (a consumer that rewinds): its own first consumption, not a duplicate.
    f.recordConsumed(G, messageKey(t, 6, 1));
    expect(g).toMatchObject({ consumed: 7, duplicates: 0, lost: 5 });
    expect(() => f.fate(G, messageKey(t, 6, 2))).toThrow(RangeError);
  });

  it("counts the unsettled messages of the lost tail lost, and forgets whole chunks above `from`", () => {
    const { f, g, t } = fates();
    storeA(f, t, 2 * CHUNK + 5);
    consumeRange(f, G, t, 0, CHUNK - 10);
    f.truncated(t, CHUNK - 20, 2 * CHUNK + 5, 1);
    // Unsettled in [CHUNK − 20, 2 × CHUNK + 5): the 10 at CHUNK − 10 … CHUNK − 1, then CHUNK + 5 more.
    expect(g.lost).toBe(10 + CHUNK + 5);
    expect(f.column(G, t)!.stats()).toMatchObject({ compact: 0, full: 1 });
    expect(f.column(G, t)!.firstUnresolved()).toBe(CHUNK - 20);
  });
});

describe("MessageFates.fateAt and column(): what the checks read", () => {
  it("fateAt reads every stored message's fate, −1 outside [0, max)", () => {
    const { f, t } = fates();
    storeA(f, t, CHUNK + 3);
    consumeRange(f, G, t, 0, CHUNK);
    f.markRetrying(G, messageKey(t, CHUNK + 1));
    expect([0, CHUNK - 1, CHUNK, CHUNK + 1, CHUNK + 2].map((o) => f.fateAt(G, t, o))).toEqual([1, 1, 0, FATE_RETRYING, 0]);
    expect(f.fateAt(G, t, CHUNK + 3)).toBe(-1);
    expect(f.fateAt(G, t, -1)).toBe(-1);
  });

  it("a fate appended below the column's max is refused: a crash that reuses offsets must truncate first", () => {
    const { f, t } = fates();
    storeA(f, t, 3);
    expect(() => f.stored(t, 1, TAG_A)).toThrow(RangeError);
  });
});

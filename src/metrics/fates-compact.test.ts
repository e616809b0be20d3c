// MessageFates over a long run: memory follows the backlog, not the history (issue 11). A million
// messages on one queue, consumed 2 000 behind production, one in 200 sent back and its copy consumed
// 10 000 messages later — then a replay of the first 100 000. Asserts the form the chunks take (the
// measure of memory that does not depend on the garbage collector) and that every fate stays answerable.
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { MessageFates } from "./MessageFates.ts";

const N = 1_000_000;
const LAG = 2_000;
const COPY_LAG = 10_000;
const G = 0;

function longRun() {
  const model = normalizeScenario({
    name: "long", brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1 } }],
    groups: [{ name: "G", subscribe: { T: "*" } }],
  });
  const routes = new Routes(model);
  const f = new MessageFates(model, routes);
  const counters = f.subjects.map((s) => s.counters);
  const mq = routes.topicQueues(0)[0]!;
  const k = (o: number) => messageKey(mq, o);
  for (let o = 0; o < N; o++) {
    f.stored(mq, o, -1);
    const c = o - LAG;
    if (c < 0) continue;
    if (c % 200 === 7) f.markRetrying(G, k(c)); // the consumer failed it: a copy goes round the retry chain
    else f.recordConsumed(G, k(c));
    if (c % 200 === 7 && c >= COPY_LAG) f.recordConsumed(G, k(c - COPY_LAG)); // the copy of one sent back 10 000 ago succeeds
  }
  return { f, g: counters[G]!, col: f.column(G, mq)!, k, mq };
}

describe("MessageFates over a million messages: memory follows the backlog", () => {
  const { f, g, col, k, mq } = longRun();

  it("every chunk below the first unconsumed message is compact; only its chunk and the one being appended to are full", () => {
    // Consumed up to N − LAG = 998 000, in chunk 243 (995 328 … 999 423); chunk 244 is being appended to.
    // Chunks 0 … 242 are compact, sent-back messages and all (those are resolved).
    expect(col.stats()).toMatchObject({ full: 2, compact: 243, dense: 0 });
    // Their exceptions to "consumed once" are the sent-back messages (RETRYING, or RETRYING | 1 once
    // their copy succeeded): 7, 207, … below 243 × 4096 = 995 328, i.e. ⌊(995 327 − 7) / 200⌋ + 1.
    expect(col.stats().exceptions).toBe(4977);
  });

  it("the fates' awaited messages equal the counters', counted by compact chunks and the few full ones", () => {
    const a = f.awaiting(G);
    expect(a.awaiting).toBe(g.produced - g.consumed);
    // Awaited: the last LAG unconsumed, plus the sent-back ones whose copies are still out: one in 200
    // of the 10 000 before N − LAG (50), as the copies come 10 000 later.
    expect(a.awaiting).toBe(LAG + COPY_LAG / 200);
    expect(a.retrying).toBe(COPY_LAG / 200);
  });

  it("a replay of the first 100 000 counts each one a duplicate and leaves the chunks compact and sparse", () => {
    const consumed = g.consumed;
    const duplicates = g.duplicates;
    for (let o = 0; o < 100_000; o++) f.recordConsumed(G, k(o));
    expect(g.consumed).toBe(consumed);
    expect(g.duplicates).toBe(duplicates + 100_000);
    // Every chunk of [0, 24 × 4096) went dense past 256 exceptions and sparse again with base 2 once
    // only 128 differed; chunk 24 (98 304 …) holds 1 696 replayed and 2 400 not: it stays dense.
    expect(col.stats()).toMatchObject({ compact: 243, dense: 1 });
    expect([0, 50_000, 99_999, 100_000].map((o) => f.fateAt(G, mq, o))).toEqual([2, 2, 2, 1]);
  });
});

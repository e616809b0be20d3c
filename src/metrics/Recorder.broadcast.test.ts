// Recorder, BROADCASTING groups (issue 12, spec §10.3, §12.2): every instance consumes every message, so
// each instance slot keeps its own fates; consumer reports land in the reporting instance's books, and
// the group's counters are the sums of its instances'. Unit tests call the observer interface directly.
import { describe, expect, it } from "vitest";
import type { BrokerObserver } from "../broker/BrokerObserver.ts";
import { messageKey } from "../broker/QueueStore.ts";
import type { ClientObserver } from "../client/ClientObserver.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { FATE_DROPPED, FATE_LOST } from "./MessageFates.ts";
import { Recorder } from "./Recorder.ts";

const S = 1_000_000;

/** Topic T (one queue, offsets 0–9 stored). Group C: CLUSTERING, one instance (slot 0). Group B:
 * BROADCASTING, instances X and Y (slots 1, 2: subjects 1 and 2). */
function recorder() {
  const model = normalizeScenario({
    name: "broadcast",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1 } }],
    groups: [
      { name: "C", subscribe: { T: "*" } },
      { name: "B", instances: 2, subscribe: { T: "*" }, messageModel: "BROADCASTING" },
    ],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const mq = routes.topicQueues(0)[0]!;
  for (let o = 0; o < 10; o++) rec.messageStored(mq, o, -1);
  const client: ClientObserver = rec;
  const broker: BrokerObserver = rec;
  return { rec, client, broker, mq, x: rec.fates.subjectOf(B, X), y: rec.fates.subjectOf(B, Y) };
}
const C = 0;
const B = 1;
const X = clientAddr(1, 0);
const Y = clientAddr(2, 0);

describe("Recorder.consumed in a broadcasting group", () => {
  it("each instance consuming the message once is no duplicate; the group's counters sum its instances'", () => {
    const { rec, client, mq, x, y } = recorder();
    client.queueOpened(B, mq, X, "x", 0);
    client.queueOpened(B, mq, Y, "y", 0);
    client.consumed(B, mq, 0, messageKey(mq, 0), 0, X, S);
    client.consumed(B, mq, 0, messageKey(mq, 0), 0, Y, S);
    client.consumed(B, mq, 0, messageKey(mq, 0), 0, Y, 2 * S); // Y again: its duplicate
    expect(rec.fates.subjects[x]!.counters).toMatchObject({ produced: 10, consumed: 1, duplicates: 0 });
    expect(rec.fates.subjects[y]!.counters).toMatchObject({ produced: 10, consumed: 1, duplicates: 1 });
    // B: 10 messages × 2 instances produced; 2 consumed, 1 duplicate, 3 successful calls.
    expect(rec.groups[B]).toMatchObject({ produced: 20, consumed: 2, duplicates: 1, consumeOk: 3 });
    expect(rec.consumeOkTotal).toBe(3);
    expect(rec.ownership.intervals(B, mq).map((iv) => [iv.clientId, iv.duplicates])).toEqual([["x", 0], ["y", 1]]);
    expect(rec.groups[C]).toMatchObject({ produced: 10, consumed: 0 });
  });
});

describe("Recorder.consumeDropped: a broadcasting instance's listener call failed and the message was dropped (§7.3)", () => {
  it("counts the message lost and dropped for that instance only, once", () => {
    const { rec, client, mq, x, y } = recorder();
    client.consumeDropped(B, mq, 3, messageKey(mq, 3), Y, S);
    client.consumeDropped(B, mq, 3, messageKey(mq, 3), Y, S);
    expect(rec.fates.subjects[y]!.counters).toMatchObject({ lost: 1, dropped: 1 });
    expect(rec.fates.fate(y, messageKey(mq, 3))).toBe(FATE_LOST | FATE_DROPPED);
    expect(rec.fates.subjects[x]!.counters).toMatchObject({ lost: 0, dropped: 0 });
    expect(rec.groups[B]).toMatchObject({ lost: 1, dropped: 1 });
  });

  it("a message the instance had consumed before stays consumed (a failed re-delivery is no loss)", () => {
    const { rec, client, mq, y } = recorder();
    client.consumed(B, mq, 3, messageKey(mq, 3), 0, Y, S);
    client.consumeDropped(B, mq, 3, messageKey(mq, 3), Y, 2 * S);
    expect(rec.fates.subjects[y]!.counters).toMatchObject({ consumed: 1, lost: 0, dropped: 0 });
  });
});

describe("Recorder.startOffsetChosen / offsetSkipped with the reporting instance", () => {
  it("a broadcasting instance starting without a local offset skips for itself only", () => {
    const { rec, client, mq, x, y } = recorder();
    client.consumed(B, mq, 2, messageKey(mq, 2), 0, X, S);
    rec.startOffsetChosen(B, mq, 8, false, X);
    // Below 8, X had consumed 2: 0, 1, 3 … 7 skipped (7).
    expect(rec.fates.subjects[x]!.counters.skippedAtStart).toBe(7);
    expect(rec.fates.subjects[y]!.counters.skippedAtStart).toBe(0);
  });

  it("from its local offset file nothing is skipped", () => {
    const { rec, x, mq } = recorder();
    rec.startOffsetChosen(B, mq, 8, true, X);
    expect(rec.fates.subjects[x]!.counters.skippedAtStart).toBe(0);
  });

  it("an OFFSET_ILLEGAL fix by one instance loses what it had not settled below the new offset, for it only", () => {
    const { rec, mq, x, y } = recorder();
    rec.offsetSkipped(B, mq, 4, Y);
    expect(rec.fates.subjects[y]!.counters.lost).toBe(4);
    expect(rec.fates.subjects[x]!.counters.lost).toBe(0);
  });

  it("a broadcasting report without its instance is refused (the books cannot tell whose it is)", () => {
    const { rec, mq } = recorder();
    expect(() => rec.startOffsetChosen(B, mq, 8, false)).toThrow(/BROADCASTING group 1/);
    expect(() => rec.offsetSkipped(B, mq, 8)).toThrow(/BROADCASTING group 1/);
  });

  it("a clustering group's reports need no instance (the default −1)", () => {
    const { rec, mq } = recorder();
    rec.startOffsetChosen(C, mq, 8, false);
    expect(rec.groups[C]!.skippedAtStart).toBe(8);
  });
});

describe("broker reports about a broadcasting group go to every instance", () => {
  it("deadLettered (should a broker ever report one) counts for each instance slot", () => {
    const { rec, broker, mq, x, y } = recorder();
    broker.deadLettered(B, messageKey(mq, 0));
    expect(rec.fates.subjects[x]!.counters.dlq).toBe(1);
    expect(rec.fates.subjects[y]!.counters.dlq).toBe(1);
    expect(rec.groups[B]!.dlq).toBe(2);
  });

  it("retention deletes a message for each instance that had not consumed it", () => {
    const { rec, client, mq } = recorder();
    client.consumed(B, mq, 0, messageKey(mq, 0), 0, X, S);
    rec.messagesDeleted(mq, 0, 2);
    // X consumed 0: loses 1. Y loses 0 and 1. C loses both.
    expect(rec.groups[B]!.lost).toBe(3);
    expect(rec.groups[C]!.lost).toBe(2);
  });
});

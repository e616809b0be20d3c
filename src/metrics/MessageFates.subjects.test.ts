// MessageFates' fate subjects (issue 12): a CLUSTERING group keeps one set of fates, a BROADCASTING group
// one per instance slot, since each of its instances consumes every message of its topics (spec §10.3:
// every instance takes every queue). Pure unit tests over the routes of a one-queue scenario.
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { FATE_DROPPED, FATE_LOST, MessageFates } from "./MessageFates.ts";

/**
 * Topic T (one queue). Group C (CLUSTERING, 2 instances: slots 0, 1), group B (BROADCASTING, 2 instances:
 * slots 2, 3), group D (CLUSTERING, 1 instance: slot 4). Subjects: C → 0, B's slot 2 → 1 (B's index),
 * D → 2, B's slot 3 → 3 (after the groups).
 */
function fates() {
  const model = normalizeScenario({
    name: "subjects",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 1 } }],
    groups: [
      { name: "C", instances: 2, subscribe: { T: "*" } },
      { name: "B", instances: 2, subscribe: { T: "*" }, messageModel: "BROADCASTING" },
      { name: "D", subscribe: { T: "*" } },
    ],
  });
  const routes = new Routes(model);
  const f = new MessageFates(model, routes);
  return { f, t: routes.topicQueues(0)[0]! };
}
const C = 0;
const B = 1;
const D = 2;
const B0 = clientAddr(2, 0);
const B1 = clientAddr(3, 0);
/** B's instance slot 3 in its second incarnation (a restarted JVM): the same subject. */
const B1_RESTARTED = clientAddr(3, 1);

describe("MessageFates subjects: who is due every message once", () => {
  it("numbers a clustering group by its group index, a broadcasting group's slot 0 by its index and its other slots after the groups", () => {
    const { f } = fates();
    expect(f.subjects.map((s) => [s.index, s.group, s.slot, s.instance])).toEqual([
      [0, C, -1, -1],
      [1, B, 2, 0],
      [2, D, -1, -1],
      [3, B, 3, 1],
    ]);
    expect(f.subjectsOf(C)).toEqual([0]);
    expect(f.subjectsOf(B)).toEqual([1, 3]);
    expect(f.subjectsOf(D)).toEqual([2]);
  });

  it("subjectOf: a clustering group's report goes to the group whoever made it; a broadcasting one's to the reporting slot, any incarnation", () => {
    const { f } = fates();
    expect(f.subjectOf(C, clientAddr(1, 0))).toBe(C);
    expect(f.subjectOf(D, -1)).toBe(D);
    expect(f.subjectOf(B, B0)).toBe(1);
    expect(f.subjectOf(B, B1)).toBe(3);
    expect(f.subjectOf(B, B1_RESTARTED)).toBe(3);
  });

  it("subjectOf refuses a broadcasting report without its instance, or from another group's instance", () => {
    const { f } = fates();
    expect(() => f.subjectOf(B, -1)).toThrow(/BROADCASTING group 1: consumer address -1/);
    expect(() => f.subjectOf(B, clientAddr(0, 0))).toThrow(RangeError); // slot 0 is C's
  });
});

describe("MessageFates with a broadcasting group: each instance slot has its own fates", () => {
  it("a stored message is produced once per instance slot, and once for each clustering group", () => {
    const { f, t } = fates();
    f.stored(t, 0, -1);
    f.stored(t, 1, -1);
    expect(f.subjects.map((s) => s.counters.produced)).toEqual([2, 2, 2, 2]);
  });

  it("the same message consumed by each instance counts consumed once for each, with no duplicate; again by one instance, one duplicate there", () => {
    const { f, t } = fates();
    f.stored(t, 0, -1);
    const key = messageKey(t, 0);
    expect(f.recordConsumed(f.subjectOf(B, B0), key)).toBe(false);
    expect(f.recordConsumed(f.subjectOf(B, B1), key)).toBe(false);
    expect(f.recordConsumed(f.subjectOf(B, B1_RESTARTED), key)).toBe(true); // slot 3 re-reads it after a restart
    expect(f.subjects[1]!.counters).toMatchObject({ consumed: 1, duplicates: 0, consumeOk: 1 });
    expect(f.subjects[3]!.counters).toMatchObject({ consumed: 1, duplicates: 1, consumeOk: 2 });
    // The clustering groups did not consume it.
    expect(f.subjects[C]!.counters.consumed).toBe(0);
  });

  it("a drop by one instance is lost and dropped for it only; the other still awaits the message", () => {
    const { f, t } = fates();
    f.stored(t, 0, -1);
    f.markDropped(f.subjectOf(B, B1), messageKey(t, 0));
    expect(f.subjects[3]!.counters).toMatchObject({ lost: 1, dropped: 1 });
    expect(f.fateAt(3, t, 0)).toBe(FATE_LOST | FATE_DROPPED);
    expect(f.subjects[1]!.counters).toMatchObject({ lost: 0, dropped: 0 });
    expect(f.awaiting(1)).toEqual({ awaiting: 1, retrying: 0 });
    expect(f.awaiting(3)).toEqual({ awaiting: 0, retrying: 0 });
  });

  it("retention deletes for every subject: each instance slot not having consumed a message loses it", () => {
    const { f, t } = fates();
    for (let o = 0; o < 3; o++) f.stored(t, o, -1);
    f.recordConsumed(1, messageKey(t, 0));
    f.deleted(t, 0, 3);
    // Slot 2 (subject 1) consumed offset 0: loses 1 and 2. Slot 3 and the clustering groups lose all 3.
    expect(f.subjects.map((s) => s.counters.lost)).toEqual([3, 2, 3, 3]);
  });

  it("a start without a stored offset skips for the starting instance only", () => {
    const { f, t } = fates();
    for (let o = 0; o < 5; o++) f.stored(t, o, -1);
    f.markSkippedAtStart(f.subjectOf(B, B0), t, 5);
    expect(f.subjects[1]!.counters.skippedAtStart).toBe(5);
    expect(f.subjects[3]!.counters.skippedAtStart).toBe(0);
  });
});

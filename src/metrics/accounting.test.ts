// accountMessages (issue 12): a BROADCASTING group is accounted per instance slot — each slot its own
// conservation check, counting only its own incarnation's in-flight and cached messages — and its group
// account is the sum over its slots (started or not). The books are driven through the observer
// interface on a cluster that is built but, unless said, not started (so no consumer holds anything).
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import { Cluster } from "../model/Cluster.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { accountMessages, ConservationError } from "./accounting.ts";
import { Recorder } from "./Recorder.ts";

const S = 1_000_000;

/** Topic T, one queue, no producer. Group B: BROADCASTING, instances X, Y (slots 0, 1). Group C: CLUSTERING, ORDERLY (slot 2). */
function books(extra: Partial<ScenarioInput> = {}, bInstances = 2) {
  const model = normalizeScenario({
    name: "accounts",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0 } }],
    groups: [
      { name: "B", instances: bInstances, subscribe: { T: "*" }, messageModel: "BROADCASTING" },
      { name: "C", subscribe: { T: "*" }, consumeMode: "ORDERLY" },
    ],
    ...extra,
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const cl = new Cluster(model, rec, { routes });
  return { rec, cl, mq: routes.topicQueues(0)[0]! };
}
const B = 0;
const X = clientAddr(0, 0);
const Y = clientAddr(1, 0);

describe("accountMessages: a broadcasting group, per instance slot", () => {
  it("each instance's account holds its own fates; the group's is their sum, with messageModel and consumeMode", () => {
    const { rec, cl, mq } = books();
    for (let o = 0; o < 5; o++) rec.messageStored(mq, o, -1);
    rec.consumed(B, mq, 0, messageKey(mq, 0), 0, X, S);
    rec.consumed(B, mq, 0, messageKey(mq, 0), 0, Y, S);
    rec.consumeDropped(B, mq, 1, messageKey(mq, 1), Y, S);
    const [b, c] = accountMessages(cl, rec);
    const zero = { filtered: 0, duplicates: 0, dlq: 0, skippedAtStart: 0, inFlight: 0, cached: 0, retrying: 0 };
    // X: 5 produced, consumed 0, the other 4 never pulled. Y: consumed 0, dropped 1, 3 unpulled.
    expect(b!.instances).toEqual([
      { clientId: cl.consumers[0]!.clientId, started: false, produced: 5, consumed: 1, lost: 0, dropped: 0, unpulled: 4, ...zero },
      { clientId: cl.consumers[1]!.clientId, started: false, produced: 5, consumed: 1, lost: 1, dropped: 1, unpulled: 3, ...zero },
    ]);
    expect(b).toMatchObject({ group: "B", messageModel: "BROADCASTING", consumeMode: "CONCURRENTLY", produced: 10, consumed: 2, lost: 1, dropped: 1, unpulled: 7 });
    // C (clustering) has no instances list, and the message consumed by B's instances is still its.
    expect(c).toMatchObject({ group: "C", messageModel: "CLUSTERING", consumeMode: "ORDERLY", produced: 5, unpulled: 5, instances: null });
  });

  it("a conservation violation on one instance names the group, the instance and its slot", () => {
    const { rec, cl, mq } = books();
    rec.messageStored(mq, 0, -1);
    // A mutant: Y's counters claim a consumption its fates never saw.
    rec.fates.subjects[rec.fates.subjectOf(B, Y)]!.counters.consumed++;
    expect(() => accountMessages(cl, rec)).toThrow(ConservationError);
    expect(() => accountMessages(cl, rec)).toThrow(`message conservation violated for group B (instance ${cl.consumers[1]!.clientId}, slot 1): counters say 0 awaiting`);
  });

  it("a slot a scale fault has not started yet is an account of its own that awaits everything; started tells them apart", () => {
    // B runs 1 instance and may scale to 2 at 100 s: slot 1 exists from the start but has not run by 5 s.
    const { rec, cl } = books({ faults: [{ kind: "scale", at: "100s", target: "B", instances: 2 }] }, 1);
    cl.start();
    cl.sched.runUntil(5 * S);
    const mq = cl.routes.topicQueues(0)[0]!;
    for (let o = 0; o < 3; o++) rec.messageStored(mq, o, -1);
    const [b] = accountMessages(cl, rec);
    expect(b!.instances!.map((i) => i.started)).toEqual([true, false]);
    expect(b!.instances![1]).toMatchObject({ produced: 3, unpulled: 3 });
    expect(b!.produced).toBe(6); // 3 messages × 2 instance slots
  });
});

describe("accountMessages through a run: a broadcasting group whose listener fails", () => {
  it("every instance consumes or drops every message once, and each instance's books balance", () => {
    // 20 messages already in one queue; two broadcasting instances consuming from the first offset,
    // failing a quarter of their calls: a failure is dropped, never retried (§7.3). simulate() checks
    // conservation per instance at the end.
    const r = simulate({
      name: "broadcast-drops", seed: 3, duration: "20s", network: { latency: "1ms" },
      brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0, backlog: 20 } }],
      groups: [{
        name: "B", instances: 2, subscribe: { T: "*" }, messageModel: "BROADCASTING", consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
        listener: { consumeTime: "1ms", failureProbability: 0.25 },
      }],
    });
    const b = r.summary.groups[0]!;
    for (const i of b.instances!) {
      expect(i.produced).toBe(20);
      expect(i.consumed + i.dropped).toBe(20);
      expect(i.lost).toBe(i.dropped);
      expect(i.duplicates).toBe(0);
    }
    expect(b.dropped).toBeGreaterThan(0);
    expect(r.summary.messages).toMatchObject({ produced: 40, sentBack: 0, retrying: 0, dlq: 0 });
    expect(r.summary.messages.dropped).toBe(b.dropped);
  });
});

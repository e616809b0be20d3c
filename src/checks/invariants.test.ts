// checkCommittedOffsets for a BROADCASTING group (issue 12): the broker holds no offset for it, so each
// running instance's local offset (spec §12.2) is checked against that instance's own fates. The
// cluster is built with a backlog and not started; stand-ins play the running instances.
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import type { PushConsumer } from "../client/PushConsumer.ts";
import { Cluster } from "../model/Cluster.ts";
import { Recorder } from "../metrics/Recorder.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { checkCommittedOffsets, InvariantError } from "./invariants.ts";

const X = clientAddr(0, 0);
const Y = clientAddr(1, 0);

/** Topic T: one queue holding offsets 0–4. Group B: BROADCASTING, instances x and y (slots 0, 1), both running with local offset 3. */
function setup() {
  const model = normalizeScenario({
    name: "local-offsets",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 0, backlog: 5 } }],
    groups: [{ name: "B", instances: 2, subscribe: { T: "*" }, messageModel: "BROADCASTING" }],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const real = new Cluster(model, rec, { routes });
  real.settle();
  const running = (addr: number, clientId: string) =>
    ({ group: 0, alive: true, state: "RUNNING", addr, clientId, offsetStore: { readOffset: () => 3 } }) as unknown as PushConsumer;
  const cl = { model: real.model, routes: real.routes, brokers: real.brokers, consumers: [running(X, "x"), running(Y, "y")] } as unknown as Cluster;
  return { rec, cl, mq: routes.topicQueues(0)[0]! };
}

describe("checkCommittedOffsets: a broadcasting instance's local offset never runs ahead of its own consumption", () => {
  it("passes when everything below each instance's offset is settled for it — consumed, or dropped", () => {
    const { rec, cl, mq } = setup();
    expect(rec.groups[0]!.produced).toBe(10); // the backlog, 5 messages × 2 instances
    for (const o of [0, 1, 2]) rec.consumed(0, mq, o, messageKey(mq, o), 0, X, 0);
    for (const o of [0, 1]) rec.consumed(0, mq, o, messageKey(mq, o), 0, Y, 0);
    rec.consumeDropped(0, mq, 2, messageKey(mq, 2), Y, 0);
    expect(() => checkCommittedOffsets(cl, rec)).not.toThrow();
  });

  it("fails for the instance whose offset passed a message it never settled, though the other consumed it", () => {
    const { rec, cl, mq } = setup();
    for (const o of [0, 1, 2]) rec.consumed(0, mq, o, messageKey(mq, o), 0, X, 0);
    for (const o of [0, 1]) rec.consumed(0, mq, o, messageKey(mq, o), 0, Y, 0);
    expect(() => checkCommittedOffsets(cl, rec)).toThrow(InvariantError);
    expect(() => checkCommittedOffsets(cl, rec)).toThrow("group B instance y local offset 3 on T@b#0 but message 2 was never consumed, sent back, deleted or skipped");
  });
});

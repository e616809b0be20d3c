// The summary's issue-12 figures: per group its messageModel, consumeMode and dropped; per ORDERLY
// queue its suspends, longest head block and lock state; the run's orderly totals; a BROADCASTING
// group's committed offsets and lags from its instances' local offsets. Books are driven through the
// observer interface on a built cluster (not started unless said), then summarised as the run does.
import { describe, expect, it } from "vitest";
import { messageKey } from "../broker/QueueStore.ts";
import type { PushConsumer } from "../client/PushConsumer.ts";
import { Cluster } from "../model/Cluster.ts";
import { clientAddr } from "../protocol/address.ts";
import { Routes } from "../protocol/routes.ts";
import { simulate } from "../run/simulate.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import { accountMessages } from "./accounting.ts";
import { broadcastCommittedOffset, broadcastNextOffset } from "./broadcastOffsets.ts";
import { Recorder } from "./Recorder.ts";
import { Sampler } from "./Sampler.ts";
import { buildSummary } from "./summary.ts";

const S = 1_000_000;

/** Topic T (two queues). Group O: ORDERLY CLUSTERING, instances A, B (slots 0, 1). Group K: CONCURRENTLY (slot 2). */
function run() {
  const model = normalizeScenario({
    name: "orderly-summary",
    brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 2, produce: { rate: 0 } }],
    groups: [
      { name: "O", instances: 2, subscribe: { T: "*" }, consumeMode: "ORDERLY" },
      { name: "K", subscribe: { T: "*" } },
    ],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const cl = new Cluster(model, rec, { routes });
  const [q0, q1] = routes.topicQueues(0) as [number, number];
  /** The summary at `atUs` (the clock moves there: nothing is scheduled on a cluster not started). */
  const summarise = (atUs: number) => {
    cl.sched.runUntil(atUs);
    return buildSummary(cl, rec, new Sampler(cl, rec), accountMessages(cl, rec), true, "");
  };
  return { rec, cl, q0, q1, summarise };
}
const O = 0;
const A = clientAddr(0, 0);
const B = clientAddr(1, 0);

describe("buildSummary: orderly queues", () => {
  it("an orderly queue's row has its suspends, longest head block (an open one to the end of the run) and lock state; the totals sum and max them", () => {
    const { rec, q0, q1, summarise } = run();
    rec.queueOpened(O, q0, A, "a", 0);
    rec.lockRefreshed(O, q0, A, 1 * S);
    rec.orderlySuspended(O, q0, 0, A, 2 * S);
    rec.orderlySuspended(O, q0, 0, A, 3 * S);
    rec.orderlyCommitted(O, q0, 1, A, 4.5 * S); // 2.5 s
    rec.queueOpened(O, q1, B, "b", 0);
    rec.orderlySuspended(O, q1, 7, B, 6 * S); // still blocked at 10 s: 4 s
    const s = summarise(10 * S);
    const row = (group: string, mq: number) => s.perQueue.find((q) => q.group === group && q.queueId === mq - q0)!;
    expect(row("O", q0).orderly).toEqual({
      suspends: 2, longestHeadBlockMs: 2500, lockState: "held",
      locks: [{ clientId: "a", state: "not locked", fromMs: 0, toMs: 1000 }, { clientId: "a", state: "held", fromMs: 1000, toMs: null }],
    });
    // B never locked q1: not locked, all along.
    expect(row("O", q1).orderly).toEqual({
      suspends: 1, longestHeadBlockMs: 4000, lockState: "not locked", locks: [{ clientId: "b", state: "not locked", fromMs: 0, toMs: null }],
    });
    expect(s.orderly).toEqual({ suspends: 3, longestHeadBlockMs: 4000 });
    // A concurrently consuming group's rows carry null.
    expect(row("K", q0).orderly).toBeNull();
  });

  it("lockState is the best among the current owners, expired 30 s after the last refresh, and none with no owner", () => {
    const { rec, q0, q1, summarise } = run();
    rec.queueOpened(O, q0, A, "a", 0);
    rec.lockRefreshed(O, q0, A, 0); // never refreshed again: expired after 30 s
    rec.queueOpened(O, q0, B, "b", 40 * S); // overlapping owner, not locked
    rec.queueOpened(O, q1, A, "a", 0);
    rec.lockRefreshed(O, q1, A, 0);
    rec.queueClosed(O, q1, A, 5 * S);
    const s = summarise(50 * S);
    const q0row = s.perQueue.find((q) => q.group === "O" && q.queueId === 0)!;
    expect(q0row.orderly!.lockState).toBe("expired");
    expect(q0row.orderly!.locks.map((l) => [l.clientId, l.state, l.fromMs, l.toMs])).toEqual([
      ["a", "held", 0, 30_000], ["a", "expired", 30_000, null], ["b", "not locked", 40_000, null],
    ]);
    expect(s.perQueue.find((q) => q.group === "O" && q.queueId === 1)!.orderly!.lockState).toBe("none");
  });

  it("a group entry names its messageModel and consumeMode, counts dropped, and has no instances list when clustering", () => {
    const { rec, q0, summarise } = run();
    rec.messageStored(q0, 0, -1);
    rec.discarded(O, messageKey(q0, 0)); // the broker dropped a send-back (retryQueueNums 0)
    const s = summarise(1 * S);
    expect(s.groups.map((g) => [g.group, g.messageModel, g.consumeMode, g.dropped, g.lost, g.instances])).toEqual([
      ["O", "CLUSTERING", "ORDERLY", 1, 1, null],
      ["K", "CLUSTERING", "CONCURRENTLY", 0, 0, null],
    ]);
    expect(s.messages).toMatchObject({ lost: 1, dropped: 1 });
  });
});

/** A stand-in for a running broadcasting instance: its local offset and next pull offset on every queue. */
function instance(offset: number, next: number | null): PushConsumer {
  return {
    offsetStore: { readOffset: () => offset },
    rebalance: { pullRequestOf: () => (next === null ? undefined : { nextOffset: next }) },
  } as unknown as PushConsumer;
}

describe("broadcastCommittedOffset / broadcastNextOffset: a broadcasting group is as far as its slowest running instance", () => {
  it("the least local offset, −1 if an instance has none or none runs", () => {
    expect(broadcastCommittedOffset([instance(7, 9), instance(3, 4)], 0)).toBe(3);
    expect(broadcastCommittedOffset([instance(7, 9), instance(-1, null)], 0)).toBe(-1);
    expect(broadcastCommittedOffset([], 0)).toBe(-1);
  });

  it("the least next pull offset, −1 if an instance has no pull request for the queue or none runs", () => {
    expect(broadcastNextOffset([instance(7, 9), instance(3, 4)], 0)).toBe(4);
    expect(broadcastNextOffset([instance(7, 9), instance(3, null)], 0)).toBe(-1);
    expect(broadcastNextOffset([], 0)).toBe(-1);
  });
});

describe("buildSummary: a broadcasting group's offsets come from its instances", () => {
  it("once both instances consumed the backlog, the committed offset is the queue's max and the lags are 0 (the broker holds none for the group)", () => {
    const r = simulate({
      name: "broadcast-offsets", seed: 1, duration: "10s", network: { latency: "1ms" },
      brokers: [{ name: "b" }],
      topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 2, produce: { rate: 0, backlog: 20 } }],
      groups: [{ name: "B", instances: 2, subscribe: { T: "*" }, messageModel: "BROADCASTING", consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", listener: { consumeTime: "1ms" } }],
    });
    const ordinary = r.summary.perQueue.filter((q) => q.topic === "T");
    expect(ordinary.map((q) => [q.committedOffset, q.maxOffset])).toEqual([[20, 20], [20, 20]]);
    const mq = r.cluster.routes.topicQueues(0)[0]!;
    expect(r.cluster.brokers[0]!.offsets.queryOffset(0, mq)).toBe(-1);
    expect([r.summary.lag.committed.final, r.summary.lag.unpulled.final]).toEqual([0, 0]);
    expect(r.summary.groups[0]!.instances!.map((i) => i.consumed)).toEqual([40, 40]);
  });
});

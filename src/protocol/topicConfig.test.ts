// TopicConfigs (the brokers' TopicConfigManager tables), the queue layout Routes allocates for them, and a
// consumer's subscribe set (RouteView, topicRouteData2TopicSubscribeInfo) copied at start and route polls.
import { describe, expect, it } from "vitest";
import { RouteView } from "../client/RouteView.ts";
import { ClientTimer } from "../client/timers.ts";
import { TestContext } from "../net/testContext.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { ScenarioInput } from "../scenario/types.ts";
import { Routes } from "./routes.ts";
import { isReadable, isWriteable, PermName, PERM_RW, TopicConfigs } from "./topicConfig.ts";

describe("TopicConfigs", () => {
  it("starts empty with perm 6 (read and write), stores each (topic, broker) apart and bumps its version per change", () => {
    const tc = new TopicConfigs(2, 3);
    expect(PERM_RW).toBe(6);
    expect([tc.readQueueNums(1, 2), tc.writeQueueNums(1, 2), tc.perm(1, 2), tc.version]).toEqual([0, 0, 6, 0]);
    tc.update(1, 2, 8, 4, PermName.PERM_READ);
    expect([tc.readQueueNums(1, 2), tc.writeQueueNums(1, 2), tc.perm(1, 2), tc.version]).toEqual([8, 4, 4, 1]);
    // Neighbours are untouched.
    expect([tc.readQueueNums(1, 1), tc.readQueueNums(0, 2), tc.perm(0, 2)]).toEqual([0, 0, 6]);
    tc.update(1, 2, 8, 4, PermName.PERM_READ); // the same values: no change, no new version
    expect(tc.version).toBe(1);
    tc.update(1, 2, 4, 4, PermName.PERM_READ);
    expect(tc.version).toBe(2);
  });

  it("PermName bits: r = 4 readable only, w = 2 writable only, 6 both, 0 neither", () => {
    expect([isReadable(4), isWriteable(4), isReadable(2), isWriteable(2), isReadable(6), isWriteable(6), isReadable(0), isWriteable(0)])
      .toEqual([true, false, false, true, true, true, false, false]);
  });
});

function scenario(topic: Record<string, unknown>, faults: unknown[] = []): ScenarioInput {
  return {
    name: "tc", duration: "5m",
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 4, ...topic }],
    groups: [{ name: "G", subscribe: { T: "*" } }],
    faults,
  } as ScenarioInput;
}
const perBroker = (r: Routes, topic: number, broker: number) => r.topicQueues(topic).filter((q) => r.brokerOf(q) === broker).length;

describe("Routes: the queue layout and the configs the run starts with", () => {
  it("without config fields: queuesPerBroker queues per broker, all readable and writable (retry: retryQueueNums = 1, DLQ: 1)", () => {
    const r = new Routes(normalizeScenario(scenario({})));
    expect([perBroker(r, 0, 0), perBroker(r, 0, 1)]).toEqual([4, 4]);
    const tc = r.topicConfigs;
    expect([tc.readQueueNums(0, 0), tc.writeQueueNums(0, 1), tc.perm(0, 1), tc.version]).toEqual([4, 4, 6, 0]);
    const retry = r.retryTopic(0);
    expect([tc.readQueueNums(retry, 1), tc.writeQueueNums(retry, 1), tc.perm(retry, 1)]).toEqual([1, 1, 6]);
  });

  it("the topic's readQueueNums / writeQueueNums / perm apply on each of its brokers; the layout holds the larger count", () => {
    const r = new Routes(normalizeScenario(scenario({ readQueueNums: 6, writeQueueNums: 2, perm: "r" })));
    // max(queuesPerBroker 4, read 6, write 2) = 6 queues per broker.
    expect([perBroker(r, 0, 0), perBroker(r, 0, 1)]).toEqual([6, 6]);
    for (const b of [0, 1]) expect([r.topicConfigs.readQueueNums(0, b), r.topicConfigs.writeQueueNums(0, b), r.topicConfigs.perm(0, b)]).toEqual([6, 2, 4]);
  });

  it("updateTopic faults grow the layout of their broker only, to the largest count they ever set", () => {
    const r = new Routes(normalizeScenario(scenario({}, [
      { kind: "updateTopic", at: "10s", target: "T@broker-b", writeQueueNums: 12 },
      { kind: "updateTopic", at: "20s", target: "T@broker-b", readQueueNums: 16 },
      { kind: "updateTopic", at: "30s", target: "T@broker-a", readQueueNums: 2 },
    ])));
    expect([perBroker(r, 0, 0), perBroker(r, 0, 1)]).toEqual([4, 16]);
    // The configs start as the scenario says; the faults change them at their time.
    expect([r.topicConfigs.readQueueNums(0, 1), r.topicConfigs.writeQueueNums(0, 1)]).toEqual([4, 4]);
    // MessageQueue order: broker-a's 0–3, then broker-b's 0–15.
    expect(r.topicQueues(0).map((q) => r.label(q))).toEqual([
      ...[0, 1, 2, 3].map((i) => `T@broker-a#${i}`), ...Array.from({ length: 16 }, (_, i) => `T@broker-b#${i}`),
    ]);
  });
});

describe("RouteView.subscribeQueues (topicRouteData2TopicSubscribeInfo)", () => {
  function view() {
    const routes = new Routes(normalizeScenario(scenario({})));
    const ctx = new TestContext(5);
    const rv = new RouteView(ctx, routes, null, 30_000);
    return { routes, ctx, rv, labels: () => rv.subscribeQueues(0).map((q) => routes.label(q)) };
  }

  it("is the route's own list while every broker reads all its queues", () => {
    const { routes, rv } = view();
    rv.start();
    expect(rv.subscribeQueues(0)).toBe(routes.topicQueues(0));
  });

  it("follows a change only at the next route poll (start + 10 ms + k × 30 s): queueIds < readQueueNums of readable brokers", () => {
    const { routes, ctx, rv, labels } = view();
    rv.start();
    ctx.nowUs = 45_000_000;
    routes.topicConfigs.update(0, 1, 2, 4, PermName.PERM_READ); // broker-b: 2 readable queues
    rv.topicConfigChanged();
    expect(labels()).toHaveLength(8); // not yet
    // The poll is due at 10 ms + 2 × 30 s = 60.01 s (the first at or after 45 s).
    const polls = ctx.timers.filter((t) => t.code === ClientTimer.ROUTE_POLL);
    expect(polls.map((t) => t.atUs)).toEqual([60_010_000]);
    ctx.nowUs = 60_010_000;
    rv.onPoll();
    expect(labels()).toEqual(["T@broker-a#0", "T@broker-a#1", "T@broker-a#2", "T@broker-a#3", "T@broker-b#0", "T@broker-b#1"]);
    // perm "w" (write only) on broker-a: its queues leave the set at the next poll.
    routes.topicConfigs.update(0, 0, 4, 4, PermName.PERM_WRITE);
    rv.topicConfigChanged();
    ctx.nowUs = 90_010_000;
    rv.onPoll();
    expect(labels()).toEqual(["T@broker-b#0", "T@broker-b#1"]);
  });

  it("a consumer starting after a change starts with the current set (its start fetches the route)", () => {
    const { routes, rv, labels } = view();
    routes.topicConfigs.update(0, 0, 1, 4, PERM_RW);
    rv.start();
    expect(labels()).toEqual(["T@broker-a#0", ...[0, 1, 2, 3].map((i) => `T@broker-b#${i}`)]);
  });
});

describe("unreadable spans (a retired queue is not an orphan)", () => {
  const S = 1_000_000;
  it("a readQueueNums shrink at 60 s and a grow back at 90 s: queueIds ≥ 4 unreadable in [60 s, 90 s), the rest never", () => {
    const tc = new TopicConfigs(1, 2);
    tc.update(0, 0, 8, 8, PERM_RW); // the run's initial config (at 0: no history)
    tc.update(0, 1, 8, 8, PERM_RW);
    tc.update(0, 0, 4, 8, PERM_RW, 60 * S);
    expect(tc.unreadableSpans(0, 0, 5, 80 * S)).toEqual([60 * S, 80 * S]); // still unreadable at 80 s
    tc.update(0, 0, 8, 8, PERM_RW, 90 * S);
    expect(tc.unreadableSpans(0, 0, 5, 120 * S)).toEqual([60 * S, 90 * S]);
    expect(tc.unreadableSpans(0, 0, 3, 120 * S)).toEqual([]);
    expect(tc.unreadableSpans(0, 1, 5, 120 * S)).toEqual([]); // the other broker's row never changed
  });

  it("a brokerPermission without read makes every topic's queues there unreadable, and registeredPerm says so", () => {
    const tc = new TopicConfigs(2, 1);
    tc.update(0, 0, 4, 4, PERM_RW);
    tc.update(1, 0, 2, 2, PermName.PERM_READ);
    tc.setBrokerPermission(0, PermName.PERM_WRITE, 10 * S);
    expect(tc.registeredPerm(1, 0)).toBe(PermName.PERM_WRITE); // registerBrokerAll: the broker's perm wins
    tc.setBrokerPermission(0, PERM_RW, 25 * S);
    expect(tc.registeredPerm(1, 0)).toBe(PermName.PERM_READ); // back to the topic's own perm
    expect(tc.unreadableSpans(0, 0, 0, 30 * S)).toEqual([10 * S, 25 * S]);
    expect(tc.unreadableSpans(1, 0, 1, 30 * S)).toEqual([10 * S, 25 * S]);
    expect(tc.unreadableSpans(1, 0, 2, 30 * S)).toEqual([0, 30 * S]); // queueId 2 ≥ readQueueNums 2 all along
  });
});

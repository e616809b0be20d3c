// PullMessageProcessor's permission checks (spec §13.1 steps 1–6, pullChecks.ts) and the client's
// reaction to each code they answer (§4.1, §4.4): the pure checks in their source order, each check's
// answer to a real PULL_MESSAGE through the broker fixture, and the consumer's onException path —
// re-scheduled after pullTimeDelayMillsWhenException (1000 ms), then pulling on once the cause is gone.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import { PermName, PERM_RW } from "../protocol/topicConfig.ts";
import type { PullMessageRequest } from "../protocol/commands.ts";
import { LATER_REASON } from "../client/trace.ts";
import { answerPull, manualPullRequest, readyConsumer, range, requestsOf } from "../client/testConsumer.ts";
import type { Profile } from "../scenario/types.ts";
import { broadcastForbidden, checkPullPermission, type PullCheckState } from "./pullChecks.ts";
import { SubscriptionGroupManager } from "./SubscriptionGroupManager.ts";
import { BrokerFixture, MS, type RigInput } from "./testBroker.ts";

const G = 0;
const TOPIC = 0;
const BROKER = 0;

/** A check state: one group, a topic with `readQueueNums` readable queues and perm `topicPerm`. */
function state(o: { brokerPermission?: number; topicPerm?: number; readQueueNums?: number; profile?: Profile } = {}): PullCheckState {
  return {
    brokerPermission: o.brokerPermission ?? PERM_RW,
    groups: new SubscriptionGroupManager(1),
    topics: { perm: () => o.topicPerm ?? PERM_RW, readQueueNums: () => o.readQueueNums ?? 4 },
    profile: o.profile ?? "4.9",
  };
}

describe("checkPullPermission: the checks of §13.1 in the source's order", () => {
  it("a broker whose brokerPermission lacks PERM_READ (write-only 2, none 0) refuses every pull NO_PERMISSION; read-only (4) serves", () => {
    expect(checkPullPermission(state({ brokerPermission: PermName.PERM_WRITE }), G, TOPIC, BROKER, 0)).toBe(ResponseCode.NO_PERMISSION);
    expect(checkPullPermission(state({ brokerPermission: 0 }), G, TOPIC, BROKER, 0)).toBe(ResponseCode.NO_PERMISSION);
    expect(checkPullPermission(state({ brokerPermission: PermName.PERM_READ }), G, TOPIC, BROKER, 0)).toBe(ResponseCode.SUCCESS);
  });

  it("a group with consumeEnable false is refused NO_PERMISSION; enabled again, it is served", () => {
    const s = state();
    s.groups.update(G, { consumeEnable: false });
    expect(checkPullPermission(s, G, TOPIC, BROKER, 0)).toBe(ResponseCode.NO_PERMISSION);
    s.groups.update(G, { consumeEnable: true });
    expect(checkPullPermission(s, G, TOPIC, BROKER, 0)).toBe(ResponseCode.SUCCESS);
  });

  it("a topic whose perm lacks PERM_READ is refused NO_PERMISSION", () => {
    expect(checkPullPermission(state({ topicPerm: PermName.PERM_WRITE }), G, TOPIC, BROKER, 0)).toBe(ResponseCode.NO_PERMISSION);
    expect(checkPullPermission(state({ topicPerm: PermName.PERM_READ }), G, TOPIC, BROKER, 0)).toBe(ResponseCode.SUCCESS);
  });

  it("queueId ≥ readQueueNums: SYSTEM_ERROR (1) in 4.7 and 4.9, INVALID_PARAMETER (29, 5.3.2+) in 5.x; queueId readQueueNums − 1 is served", () => {
    for (const [profile, code] of [["4.7", 1], ["4.9", 1], ["5.x", 29]] as const) {
      expect(checkPullPermission(state({ readQueueNums: 4, profile }), G, TOPIC, BROKER, 4)).toBe(code);
      expect(checkPullPermission(state({ readQueueNums: 4, profile }), G, TOPIC, BROKER, 3)).toBe(ResponseCode.SUCCESS);
    }
  });

  it("order: the topic's perm is checked before the queue id, the group before the topic (NO_PERMISSION, not the queue id's code)", () => {
    // Both failing: the earlier check's code is the answer.
    expect(checkPullPermission(state({ topicPerm: 0, readQueueNums: 1, profile: "5.x" }), G, TOPIC, BROKER, 3)).toBe(ResponseCode.NO_PERMISSION);
    const s = state({ readQueueNums: 1, profile: "5.x" });
    s.groups.update(G, { consumeEnable: false });
    expect(checkPullPermission(s, G, TOPIC, BROKER, 3)).toBe(ResponseCode.NO_PERMISSION);
  });

  it("broadcastForbidden: only a BROADCASTING group with consumeBroadcastEnable false that the broker knows", () => {
    const groups = new SubscriptionGroupManager(2);
    groups.load([{ index: 0, messageModel: "BROADCASTING" }, { index: 1, messageModel: "CLUSTERING" }] as never);
    const known = () => true;
    expect(broadcastForbidden(groups, 0, known)).toBe(false); // enabled by default
    groups.update(0, { consumeBroadcastEnable: false });
    groups.update(1, { consumeBroadcastEnable: false });
    expect(broadcastForbidden(groups, 0, known)).toBe(true);
    expect(broadcastForbidden(groups, 1, known)).toBe(false); // CLUSTERING
    expect(broadcastForbidden(groups, 0, () => false)).toBe(false); // no consumer info: SUBSCRIPTION_NOT_EXIST comes first
  });
});

/** A broker with T's queue holding 10 messages and G's client 0 registered (subVersion 100). */
function rig(input: RigInput = {}): BrokerFixture {
  const fx = new BrokerFixture(input);
  fx.broker.processor.checks.groups.load(fx.model.groups); // as Cluster does
  fx.seedBacklog(10);
  fx.heartbeat(0, 0, 100);
  return fx;
}

describe("processRequest: each check answers a PULL_MESSAGE before anything is read or committed", () => {
  it("brokerPermission write-only: NO_PERMISSION at once, no commit; readable again: the same pull finds the 10 messages", () => {
    const fx = rig();
    fx.broker.processor.checks.brokerPermission = PermName.PERM_WRITE;
    const denied = fx.pull(10 * MS, { offset: 0, subVersion: 100, commitOffset: 5 });
    expect(fx.answers(denied)).toMatchObject([{ atUs: 10 * MS, code: ResponseCode.NO_PERMISSION, count: 0 }]);
    expect(fx.broker.offsets.queryOffset(G, denied.mq)).toBe(-1);
    expect(fx.broker.processor.served).toBe(0);
    fx.broker.processor.checks.brokerPermission = PERM_RW;
    expect(fx.answers(fx.pull(20 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.SUCCESS, count: 10 }]);
  });

  it("consumeEnable false: NO_PERMISSION; a pull held before the change is answered NO_PERMISSION when it is replayed", () => {
    const fx = rig();
    const held = fx.pull(10 * MS, { offset: 10, subVersion: 100 }); // caught up: held (long polling)
    expect(fx.answers(held)).toEqual([]);
    fx.broker.processor.checks.groups.update(G, { consumeEnable: false });
    // The 15 s hold ends at the first 5 s hold check after 10 ms + 15 s, i.e. at 20 s (§13.4).
    fx.runUntil(21_000 * MS);
    expect(fx.answers(held)).toMatchObject([{ atUs: 20_000 * MS, code: ResponseCode.NO_PERMISSION }]);
  });

  it("the permission checks come before the subscription's: an unregistered, disabled group gets NO_PERMISSION, not SUBSCRIPTION_NOT_EXIST", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(10);
    fx.broker.processor.checks.groups.update(G, { consumeEnable: false });
    expect(fx.answers(fx.pull(10 * MS, { offset: 0 }))).toMatchObject([{ code: ResponseCode.NO_PERMISSION }]);
    fx.broker.processor.checks.groups.update(G, { consumeEnable: true });
    expect(fx.answers(fx.pull(20 * MS, { offset: 0 }))).toMatchObject([{ code: ResponseCode.SUBSCRIPTION_NOT_EXIST }]);
  });

  it("an injected offsetIllegal waits while the pull is refused, and answers the first pull that passes the checks", () => {
    const fx = rig();
    fx.broker.injectOffsetMoved(G, fx.queueOf(TOPIC), 7);
    fx.broker.processor.checks.brokerPermission = 0;
    expect(fx.answers(fx.pull(10 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.NO_PERMISSION }]);
    fx.broker.processor.checks.brokerPermission = PERM_RW;
    expect(fx.answers(fx.pull(20 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 7 }]);
  });

  it("the group from the scenario: subscriptionGroup.consumeEnable false refuses from the start", () => {
    const fx = rig({ group: { subscriptionGroup: { consumeEnable: false } } });
    expect(fx.answers(fx.pull(10 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.NO_PERMISSION }]);
  });

  it("topic perm write-only: NO_PERMISSION; queueId ≥ readQueueNums: SYSTEM_ERROR (4.9) / INVALID_PARAMETER (5.x)", () => {
    for (const [profile, code] of [["4.9", ResponseCode.SYSTEM_ERROR], ["5.x", ResponseCode.INVALID_PARAMETER]] as const) {
      const fx = rig({ profile, topic: { queuesPerBroker: 2 } });
      fx.routes.topicConfigs.update(TOPIC, BROKER, 2, 2, PermName.PERM_WRITE);
      expect(fx.answers(fx.pull(10 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.NO_PERMISSION }]);
      fx.routes.topicConfigs.update(TOPIC, BROKER, 1, 2, PERM_RW); // queue 1 no longer readable
      expect(fx.answers(fx.pull(20 * MS, { offset: 0, mq: fx.queueOf(TOPIC, 1), subVersion: 100 }))).toMatchObject([{ code }]);
      expect(fx.answers(fx.pull(30 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.SUCCESS, count: 10 }]);
    }
  });

  it("consumeBroadcastEnable false: a registered BROADCASTING group gets NO_PERMISSION, an unregistered one SUBSCRIPTION_NOT_EXIST, one pulling with the SUBSCRIPTION bit is served", () => {
    const fx = new BrokerFixture({ group: { messageModel: "BROADCASTING", subscriptionGroup: { consumeBroadcastEnable: false } } });
    fx.broker.processor.checks.groups.load(fx.model.groups);
    fx.seedBacklog(10);
    expect(fx.answers(fx.pull(10 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.SUBSCRIPTION_NOT_EXIST }]);
    fx.heartbeat(20 * MS, 0, 100);
    expect(fx.answers(fx.pull(30 * MS, { offset: 0, subVersion: 100 }))).toMatchObject([{ code: ResponseCode.NO_PERMISSION }]);
    expect(fx.answers(fx.pull(40 * MS, { offset: 0, subscription: null }))).toMatchObject([{ code: ResponseCode.SUCCESS, count: 10 }]);
  });
});

describe("the client's reaction to each refusal: onException, 1000 ms later, then pulling on (§4.1, §4.4)", () => {
  const T0 = 5000 * MS;
  it.each([
    ["NO_PERMISSION", ResponseCode.NO_PERMISSION],
    ["INVALID_PARAMETER", ResponseCode.INVALID_PARAMETER],
    ["SYSTEM_ERROR (queue id, ≤ 5.3.1)", ResponseCode.SYSTEM_ERROR],
    ["TOPIC_NOT_EXIST", ResponseCode.TOPIC_NOT_EXIST],
    ["SUBSCRIPTION_GROUP_NOT_EXIST", ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST],
    ["SUBSCRIPTION_NOT_EXIST", ResponseCode.SUBSCRIPTION_NOT_EXIST],
    ["SUBSCRIPTION_NOT_LATEST", ResponseCode.SUBSCRIPTION_NOT_LATEST],
    ["SYSTEM_BUSY", ResponseCode.SYSTEM_BUSY],
  ])("%s: the request comes back after 1000 ms at the same offset; once answered SUCCESS its messages are cached", (_name, code) => {
    const b = readyConsumer();
    const pr = manualPullRequest(b, 12);
    b.ctx.nowUs = T0;
    b.c.pull.pullMessage(pr);
    answerPull(b, pr, code, { nextBeginOffset: 0 });
    expect(b.ctx.records("pullLater").map((r) => [r.tUs, r.delayMs, r.reason])).toEqual([[T0, 1000, LATER_REASON.exception]]);
    expect(pr.nextOffset).toBe(12);
    const counted = Object.entries(b.stats.pullCodes.byCode(G)).filter(([, n]) => n > 0);
    expect(counted).toEqual([[_name.split(" ")[0]!, 1]]);
    // Not a microsecond earlier than 1000 ms; then the same offset again.
    b.ctx.runTimers(b.c, T0 + 1000 * MS - 1);
    expect(requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).length).toBe(1);
    b.ctx.runTimers(b.c, T0 + 1000 * MS);
    const sent = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).map((r) => [r.sentUs, r.msg.queueOffset]);
    expect(sent).toEqual([[T0, 12], [T0 + 1000 * MS, 12]]);
    // The cause is gone: the broker finds messages 12–15 and the consumer caches them.
    answerPull(b, pr, ResponseCode.SUCCESS, { nextBeginOffset: 16, offsets: range(12, 4) });
    expect([pr.nextOffset, pr.pq.msgCount]).toEqual([16, 4]);
  });

  it("FLOW_CONTROL is the one code with its own delay: 20 ms (4.9.5+, 5.x), the exception delay in 4.7", () => {
    for (const [profile, delayMs] of [["4.9", 20], ["5.x", 20], ["4.7", 1000]] as const) {
      const b = readyConsumer({ profile });
      const pr = manualPullRequest(b, 0);
      answerPull(b, pr, ResponseCode.FLOW_CONTROL, { nextBeginOffset: 0 });
      expect(b.ctx.records("pullLater").map((r) => r.delayMs)).toEqual([delayMs]);
    }
  });
});

// SubscriptionGroupManager: RocketMQ's SubscriptionGroupConfig defaults, the scenario's settings, an
// update and the snapshot a fault restores; and retryQueueNums deciding a send-back (§9.2).
import { describe, expect, it } from "vitest";
import { ResponseCode } from "../protocol/codes.ts";
import type { SimpleResponse } from "../protocol/commands.ts";
import { SUBSCRIPTION_GROUP_DEFAULTS, SubscriptionGroupManager } from "./SubscriptionGroupManager.ts";
import { BrokerFixture, MS } from "./testBroker.ts";

describe("SubscriptionGroupManager", () => {
  it("starts every group at SubscriptionGroupConfig's defaults: consumeEnable and consumeBroadcastEnable true, 1 retry queue, 16 retries", () => {
    const m = new SubscriptionGroupManager(3);
    expect(SUBSCRIPTION_GROUP_DEFAULTS).toEqual({ consumeEnable: true, consumeBroadcastEnable: true, retryQueueNums: 1, retryMaxTimes: 16 });
    for (const g of [0, 1, 2]) {
      expect([m.isConsumeEnable(g), m.isConsumeBroadcastEnable(g), m.getRetryQueueNums(g), m.getRetryMaxTimes(g), m.isBroadcasting(g)]).toEqual([true, true, 1, 16, false]);
    }
    expect(m.anyBroadcastDisabled).toBe(false);
    expect(new SubscriptionGroupManager(1, 0).getRetryQueueNums(0)).toBe(0); // the broker's retryQueueNums as the default
  });

  it("load: the scenario's message model and subscriptionGroup fields; update changes only the fields given; snapshot reads them back", () => {
    const m = new SubscriptionGroupManager(2);
    m.load([
      { index: 0, messageModel: "BROADCASTING", subscriptionGroup: { consumeBroadcastEnable: false, retryQueueNums: 2 } },
      { index: 1, messageModel: "CLUSTERING" },
    ] as never);
    expect([m.isBroadcasting(0), m.isConsumeBroadcastEnable(0), m.getRetryQueueNums(0), m.anyBroadcastDisabled]).toEqual([true, false, 2, true]);
    const before = m.snapshot(1, { consumeEnable: false, retryMaxTimes: 3 });
    expect(before).toEqual({ consumeEnable: true, retryMaxTimes: 16 });
    m.update(1, { consumeEnable: false, retryMaxTimes: 3 });
    expect([m.isConsumeEnable(1), m.getRetryMaxTimes(1), m.isConsumeEnable(0)]).toEqual([false, 3, true]);
    m.update(1, before);
    expect([m.isConsumeEnable(1), m.getRetryMaxTimes(1)]).toEqual([true, 16]);
    m.update(0, { consumeBroadcastEnable: true });
    expect(m.anyBroadcastDisabled).toBe(false);
  });
});

describe("consumerSendMsgBack reads the group's retryQueueNums (§9.2)", () => {
  it("a group with subscriptionGroup.retryQueueNums 0 gets SUCCESS and its message is dropped; another group's is parked", () => {
    const fx = new BrokerFixture({
      groups: [{ name: "G", subscribe: { T: "*" }, subscriptionGroup: { retryQueueNums: 0 } }, { name: "H", subscribe: { T: "*" } }],
    });
    fx.broker.processor.checks.groups.load(fx.model.groups);
    fx.seedBacklog(2);
    const mq = fx.queueOf(0);
    const dropped = fx.sendBack(10 * MS, { mq, offset: 0, group: 0 });
    const parked = fx.sendBack(20 * MS, { mq, offset: 1, group: 1 });
    expect(fx.reply<SimpleResponse>(dropped).code).toBe(ResponseCode.SUCCESS);
    expect(fx.reply<SimpleResponse>(parked).code).toBe(ResponseCode.SUCCESS);
    expect(fx.observer.of("discarded").map(([g]) => g)).toEqual([0]);
    expect(fx.observer.of("retrying").map(([g]) => g)).toEqual([1]);
  });
});

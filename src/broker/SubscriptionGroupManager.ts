// SubscriptionGroupManager (B/subscription/SubscriptionGroupManager.java): the broker's table of
// SubscriptionGroupConfig, one row per consumer group. With autoCreateSubscriptionGroup (true by default)
// any lookup creates a missing row with RocketMQ's defaults, so in the model every group has one from the
// start: the scenario's `subscriptionGroup` settings, changed later by the updateSubscriptionGroup fault
// (mqadmin updateSubGroup, which takes effect on the broker at once). Plain arrays indexed by group, so a
// pull's check costs an array read.
import type { GroupModel } from "../scenario/types.ts";
import type { SubscriptionGroupUpdate } from "../scenario/subscriptionGroup.ts";

/** SubscriptionGroupConfig's defaults (the same in 4.9.x and 5.x). */
export const SUBSCRIPTION_GROUP_DEFAULTS = { consumeEnable: true, consumeBroadcastEnable: true, retryQueueNums: 1, retryMaxTimes: 16 } as const;

export class SubscriptionGroupManager {
  private readonly consumeEnable: Uint8Array;
  private readonly consumeBroadcastEnable: Uint8Array;
  private readonly retryQueueNums: Int32Array;
  private readonly retryMaxTimes: Int32Array;
  /**
   * Whether the group's consumers are BROADCASTING: ConsumerGroupInfo#getMessageModel, learned from
   * heartbeats in RocketMQ; a group's message model is fixed in a scenario, so it is read from there.
   */
  private readonly broadcasting: Uint8Array;
  /** Whether any group has consumeBroadcastEnable false: the pull check looks further only then. */
  anyBroadcastDisabled = false;

  constructor(readonly groupCount: number, retryQueueNumsDefault: number = SUBSCRIPTION_GROUP_DEFAULTS.retryQueueNums) {
    this.consumeEnable = new Uint8Array(groupCount).fill(1);
    this.consumeBroadcastEnable = new Uint8Array(groupCount).fill(1);
    this.retryQueueNums = new Int32Array(groupCount).fill(retryQueueNumsDefault);
    this.retryMaxTimes = new Int32Array(groupCount).fill(SUBSCRIPTION_GROUP_DEFAULTS.retryMaxTimes);
    this.broadcasting = new Uint8Array(groupCount);
  }

  /** The scenario's groups: their message model and `subscriptionGroup` settings (absent: the defaults). */
  load(groups: readonly GroupModel[]): void {
    for (const g of groups) {
      if (g.index >= this.groupCount) continue;
      this.broadcasting[g.index] = g.messageModel === "BROADCASTING" ? 1 : 0;
      const s = g.subscriptionGroup;
      if (s === undefined) continue;
      if (s.retryQueueNums !== undefined) this.retryQueueNums[g.index] = s.retryQueueNums;
      this.update(g.index, s);
    }
  }

  /** updateSubGroup: the fields given change at once. */
  update(group: number, u: SubscriptionGroupUpdate): void {
    if (u.consumeEnable !== undefined) this.consumeEnable[group] = u.consumeEnable ? 1 : 0;
    if (u.consumeBroadcastEnable !== undefined) this.consumeBroadcastEnable[group] = u.consumeBroadcastEnable ? 1 : 0;
    if (u.retryMaxTimes !== undefined) this.retryMaxTimes[group] = u.retryMaxTimes;
    this.anyBroadcastDisabled = this.consumeBroadcastEnable.includes(0);
  }

  /** The group's present values of the fields `u` sets (what a fault with `for` restores at its end). */
  snapshot(group: number, u: SubscriptionGroupUpdate): SubscriptionGroupUpdate {
    const out: SubscriptionGroupUpdate = {};
    if (u.consumeEnable !== undefined) out.consumeEnable = this.isConsumeEnable(group);
    if (u.consumeBroadcastEnable !== undefined) out.consumeBroadcastEnable = this.isConsumeBroadcastEnable(group);
    if (u.retryMaxTimes !== undefined) out.retryMaxTimes = this.getRetryMaxTimes(group);
    return out;
  }

  isConsumeEnable(group: number): boolean {
    return this.consumeEnable[group] === 1;
  }
  isConsumeBroadcastEnable(group: number): boolean {
    return this.consumeBroadcastEnable[group] === 1;
  }
  isBroadcasting(group: number): boolean {
    return this.broadcasting[group] === 1;
  }
  /** %RETRY%<group> queues here; ≤ 0: a send-back is answered SUCCESS and the message dropped (§9.2). */
  getRetryQueueNums(group: number): number {
    return this.retryQueueNums[group]!;
  }
  /**
   * The DLQ threshold consumerSendMsgBack uses only when the request carries no maxReconsumeTimes
   * (clients before 3.4.9). Every push consumer since sends its own (16 for −1), which wins in 4.9.x
   * and 5.x alike (AbstractSendMessageProcessor / SendMessageProcessor), so the model never reads it.
   */
  getRetryMaxTimes(group: number): number {
    return this.retryMaxTimes[group]!;
  }
}

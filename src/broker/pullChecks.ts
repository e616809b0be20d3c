// PullMessageProcessor#processRequest's permission checks (spec §13.1 steps 1–6), in the source's order,
// which 4.7.1, 4.9.x and 5.x share (verified in rocketmq-all-4.7.1, -4.9.7, -5.1.4 and HEAD):
//   1. brokerPermission not readable                       → NO_PERMISSION
//   2. LITE_PULL_MESSAGE with litePullMessageEnable false   → NO_PERMISSION   (5.x; no lite-pull consumers here)
//   3. no SubscriptionGroupConfig                            → SUBSCRIPTION_GROUP_NOT_EXIST (never here:
//      autoCreateSubscriptionGroup, true by default, creates one on any lookup);
//      consumeEnable false                                   → NO_PERMISSION
//   4. no TopicConfig → TOPIC_NOT_EXIST (never here: a queue's pull goes to the broker that hosts it);
//      topic perm not readable                               → NO_PERMISSION
//   5. queueId < 0 or ≥ readQueueNums → SYSTEM_ERROR up to 5.3.1, INVALID_PARAMETER from 5.3.2
//      (commit b5cf3ca90a): the 4.x profiles answer SYSTEM_ERROR, 5.x (5.2+, newest) INVALID_PARAMETER.
//   6. without the SUBSCRIPTION bit: no consumer group info → SUBSCRIPTION_NOT_EXIST; a BROADCASTING
//      group with consumeBroadcastEnable false → NO_PERMISSION; (5.x: the group's per-topic read
//      forbidden → NO_PERMISSION, not modelled); no subscription → SUBSCRIPTION_NOT_EXIST; older
//      subVersion → SUBSCRIPTION_NOT_LATEST. With the SUBSCRIPTION bit the broadcast check is skipped.
// The client treats every one of these codes alike: MQBrokerException → onException → the request again
// after pullTimeDelayMillsWhenException (1000 ms, spec §4.4). Checks cost a few array reads.
import { ResponseCode } from "../protocol/codes.ts";
import { isReadable } from "../protocol/topicConfig.ts";
import type { Profile } from "../scenario/types.ts";
import type { SubscriptionGroupManager } from "./SubscriptionGroupManager.ts";

/** What the checks read of a broker's topic table (TopicConfigManager). */
export interface TopicPermView {
  perm(topic: number, broker: number): number;
  readQueueNums(topic: number, broker: number): number;
}

/** The broker-side state the checks read. */
export interface PullCheckState {
  /** BrokerConfig#brokerPermission, PermName bits (6: read and write). */
  brokerPermission: number;
  readonly groups: SubscriptionGroupManager;
  readonly topics: TopicPermView;
  readonly profile: Profile;
}

/** Steps 1–5: the code a pull of `group` on (topic, broker, queueId) is refused with, or SUCCESS (0). */
export function checkPullPermission(s: PullCheckState, group: number, topic: number, broker: number, queueId: number): number {
  if (!isReadable(s.brokerPermission)) return ResponseCode.NO_PERMISSION;
  if (!s.groups.isConsumeEnable(group)) return ResponseCode.NO_PERMISSION;
  if (!isReadable(s.topics.perm(topic, broker))) return ResponseCode.NO_PERMISSION;
  if (queueId < 0 || queueId >= s.topics.readQueueNums(topic, broker)) {
    return s.profile === "5.x" ? ResponseCode.INVALID_PARAMETER : ResponseCode.SYSTEM_ERROR;
  }
  return ResponseCode.SUCCESS;
}

/**
 * Step 6's broadcast check, for a pull without the SUBSCRIPTION bit: a BROADCASTING group the broker
 * knows (`registered`: it has the group's consumer info from heartbeats, asked only when it matters)
 * whose consumeBroadcastEnable is false.
 */
export function broadcastForbidden(groups: SubscriptionGroupManager, group: number, registered: (group: number) => boolean): boolean {
  return groups.anyBroadcastDisabled && !groups.isConsumeBroadcastEnable(group) && groups.isBroadcasting(group) && registered(group);
}

// The allocation strategies by RocketMQ name (AllocateMessageQueueStrategy#getName), spec §11, and
// the strategy a scenario's validated "allocate" setting (src/scenario/allocate.ts) names.
import type { AllocateOptions, MessageQueueName } from "../../scenario/allocate.ts";
import { allocateAveragely } from "./averagely.ts";
import { allocateAveragelyByCircle } from "./averagelyByCircle.ts";
import { allocateByConfig } from "./byConfig.ts";
import { allocateByMachineRoom } from "./byMachineRoom.ts";
import { AllocateError } from "./check.ts";
import { allocateConsistentHash } from "./consistentHash.ts";
import { allocateMachineRoomNearby } from "./machineRoomNearby.ts";

// What a strategy may know of a queue; defined with the "allocate" setting, whose CONFIG lists queues
// by it, and re-exported for the strategies here.
export type { MessageQueueName };

/**
 * The queues of mqAll that currentCid should own. Inputs arrive sorted (spec §10.3); a consumer not
 * in cidAll gets nothing; an empty currentCid, mqAll or cidAll throws AllocateError (except CONFIG).
 */
export type AllocateStrategy<T> = (currentCid: string, mqAll: readonly T[], cidAll: readonly string[]) => T[];

/**
 * Builds the strategy a validated "allocate" setting names.
 *
 * CONFIG answers the configured queues that are in the mqAll it is given, in configured order. The
 * model can only hand out queues it knows; RocketMQ returns the list as is, but its rebalance of
 * each topic ends up owning the same queues whenever the configured ones exist in the route.
 */
export function makeStrategy<T>(options: AllocateOptions, queueName: (mq: T) => MessageQueueName): AllocateStrategy<T> {
  switch (options.strategy) {
    case "AVG":
      return allocateAveragely;
    case "AVG_BY_CIRCLE":
      return allocateAveragelyByCircle;
    case "CONSISTENT_HASH":
      return allocateConsistentHash(queueName, { virtualNodeCount: options.virtualNodes });
    case "CONFIG":
      return configStrategy(options.messageQueueList, queueName);
    case "MACHINE_ROOM":
      return allocateByMachineRoom(options.consumeridcs, (mq: T) => queueName(mq).brokerName);
    case "MACHINE_ROOM_NEARBY":
      return nearbyStrategy(options, queueName);
  }
}

function configStrategy<T>(messageQueueList: readonly MessageQueueName[], queueName: (mq: T) => MessageQueueName): AllocateStrategy<T> {
  const keyOf = (q: MessageQueueName) => `${q.topic}\u0000${q.brokerName}\u0000${q.queueId}`;
  const order = new Map<string, number>();
  messageQueueList.forEach((q, i) => {
    if (!order.has(keyOf(q))) order.set(keyOf(q), i);
  });
  return (currentCid, mqAll, cidAll) => {
    const present = mqAll.filter((mq) => order.has(keyOf(queueName(mq))));
    present.sort((a, b) => order.get(keyOf(queueName(a)))! - order.get(keyOf(queueName(b)))!);
    return allocateByConfig(present)(currentCid, mqAll, cidAll);
  };
}

function nearbyStrategy<T>(
  options: Extract<AllocateOptions, { strategy: "MACHINE_ROOM_NEARBY" }>,
  queueName: (mq: T) => MessageQueueName,
): AllocateStrategy<T> {
  const inner = makeStrategy(options.inner, queueName);
  const separator = options.roomSeparator;
  // Up to the first separator, or the whole name when there is none (Java's split(sep)[0]). Not
  // split(): every consumer's rebalance resolves every cid, and the arrays made that dominate.
  const roomOf = (name: string) => {
    const end = name.indexOf(separator);
    return end < 0 ? name : name.slice(0, end);
  };
  return allocateMachineRoomNearby(inner, {
    brokerDeployIn: (mq) => {
      // Checked here too, because only here can the error name the broker rather than a queue handle.
      const q = queueName(mq);
      const room = roomOf(q.brokerName);
      if (!room) throw new AllocateError(`Machine room is null for mq ${q.topic}@${q.brokerName}#${q.queueId} (roomSeparator ${JSON.stringify(separator)})`);
      return room;
    },
    consumerDeployIn: roomOf,
  });
}

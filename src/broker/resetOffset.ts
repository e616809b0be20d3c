// The broker's side of `mqadmin resetOffsetByTime` (INVOKE_BROKER_TO_RESET_OFFSET, AdminBrokerProcessor#
// resetOffset). Verified in rocketmq-all-4.7.1, 4.9.7, 5.1.4 and HEAD:
//   4.x (and 5.x brokers with useServerSideResetOffset = false, its default until 5.2.0):
//     Broker2Client#resetOffset — per queue of the topic here, the group's committed offset must exist
//     (−1 → SYSTEM_ERROR "consumer group not exist", nothing is pushed); the target is getMaxOffsetInQueue
//     for timestamp −1, else getOffsetInQueueByTime (negative → 0); with isForce, or when the target is
//     below the committed offset, the target, else the committed offset. The broker writes nothing into
//     its ConsumerOffsetManager: it pushes RESET_CONSUMER_CLIENT_OFFSET (oneway) to every channel of the
//     group (clients older than V3_0_7 → SYSTEM_ERROR; the model has none) and answers the table; with no
//     channel it answers CONSUMER_NOT_ONLINE.
//   5.x (HEAD, useServerSideResetOffset = true since 5.2.0, commit f70862e57b): resetOffsetInner — a
//     slave refuses; every queue gets getMaxOffsetInQueue for a negative timestamp, else the timestamp's
//     offset, force or not; ConsumerOffsetManager#assignResetOffset keeps it as a pending reset (the next
//     pull of the queue is answered OFFSET_RESET → PULL_OFFSET_MOVED, spec §13.1 step 8) and overwrites
//     the committed offset if the group has an entry for the topic here. No client is told.
// The model searches by born time: producers store a message at its born instant (no send delay), so
// born time is the store time RocketMQ's search compares. Both paths take every queue of the topic on the
// broker (4.x reads writeQueueNums, 5.x readQueueNums; they are equal unless an updateTopic changed one).
// Not modelled of the 5.x pending reset: QUERY_CONSUMER_OFFSET answering it before the committed offset,
// UPDATE_CONSUMER_OFFSET being ignored while it is pending (ConsumerManageProcessor), and the reset pull's
// own commitOffset (tryCommitOffset after OFFSET_RESET). The pull that takes the reset ends the same way
// in every case — the client moves to the reset offset and persists it — they differ only if the holder
// dies before it pulls again.
import type { Profile } from "../scenario/types.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import type { Broker } from "./Broker.ts";
import { offsetKey } from "./ConsumerOffsetManager.ts";
import type { QueueStore } from "./QueueStore.ts";

/** What the operator asked for: a timestamp (−1: latest, 0: earliest) or an explicit offset. */
export interface ResetOffsetRequest {
  group: number;
  topic: number;
  /** µs of virtual time; −1 asks for the max offset (mqadmin's "latest"), −∞ for the min. Ignored with `offset`. */
  timestampUs: number;
  /** An explicit offset for every queue (clamped to [min, max]), or null. */
  offset: number | null;
  force: boolean;
}

/** The broker's answer: a ResponseCode, its remark, and the offset table (global queue index → offset). */
export interface ResetOffsetAnswer {
  code: number;
  remark: string;
  offsetTable: Map<number, number>;
  /** Clients the table was pushed to (4.x path). */
  pushedTo: number;
}

/** The part of a queue the search reads. */
type SearchableQueue = Pick<QueueStore, "minOffset" | "maxOffset" | "bornUs" | "firstBornAtOrAfter">;

/**
 * ConsumeQueue#getOffsetInQueueByTime. 4.x: a binary search for the message whose store time is nearest
 * the timestamp (ties between the two neighbours go to the earlier one; past every message, the last
 * message's offset — maxOffset − 1; before every message, the first; an empty queue, 0). 5.1.1+ (commit
 * 1818c2d507, BoundaryType.LOWER): the first message stored at or after the timestamp, maxOffset if none.
 */
export function offsetInQueueByTime(q: SearchableQueue, timestampUs: number, profile: Profile): number {
  const min = q.minOffset;
  const max = q.maxOffset;
  const first = q.firstBornAtOrAfter(min, timestampUs);
  if (profile === "5.x") return first;
  if (min >= max) return 0;
  if (first >= max) return max - 1;
  if (first === min || q.bornUs(first) === timestampUs) return first;
  const left = q.bornUs(first - 1);
  const right = q.bornUs(first);
  return Math.abs(timestampUs - left) > Math.abs(timestampUs - right) ? first : first - 1;
}

/**
 * The target offset of one queue: latest, the timestamp's offset, or an explicit offset clamped into
 * [min, max]. `max` is the consume queue's max — what the reput thread has dispatched (reput.ts); the
 * timestamp search runs over the stored messages and is clamped to it (they differ by the messages born
 * since the last reput pass, under 1 ms).
 */
export function targetOffset(q: SearchableQueue, req: ResetOffsetRequest, profile: Profile, max = q.maxOffset): number {
  if (req.offset !== null) return Math.min(Math.max(req.offset, q.minOffset), max);
  if (req.timestampUs === -1) return max;
  return Math.min(Math.max(0, offsetInQueueByTime(q, req.timestampUs, profile)), max);
}

/** The topic's queues on this broker, by queue id. */
export function queuesHere(b: Broker, topicQueues: readonly number[], brokerOf: (mq: number) => number): number[] {
  return topicQueues.filter((mq) => brokerOf(mq) === b.index);
}

/**
 * Broker2Client#resetOffset (4.x): compute the table, push RESET_CONSUMER_CLIENT_OFFSET to the group's
 * channels with `send`, answer. The caller has brought the store up to now (source.advanceTo).
 */
export function broker2ClientResetOffset(
  b: Broker, queues: readonly number[], req: ResetOffsetRequest, send: (addr: number, msg: ResetConsumerClientOffsetRequest) => void,
): ResetOffsetAnswer {
  const offsetTable = new Map<number, number>();
  for (const mq of queues) {
    const consumerOffset = b.offsets.queryOffset(req.group, mq);
    if (consumerOffset === -1) return { code: ResponseCode.SYSTEM_ERROR, remark: "the consumer group has no offset here (\"consumer group not exist\")", offsetTable: new Map(), pushedTo: 0 };
    const target = targetOffset(b.store.queue(mq), req, "4.9", b.processor.maxOf(mq));
    offsetTable.set(mq, req.force || target < consumerOffset ? target : consumerOffset);
  }
  const channels = b.consumers.channelsOf(req.group);
  if (channels.length === 0) return { code: ResponseCode.CONSUMER_NOT_ONLINE, remark: "Consumer not online, so can not reset offset", offsetTable, pushedTo: 0 };
  for (const addr of channels) send(addr, new ResetConsumerClientOffsetRequest(req.group, req.topic, req.timestampUs, offsetTable));
  return { code: ResponseCode.SUCCESS, remark: "", offsetTable, pushedTo: channels.length };
}

/**
 * AdminBrokerProcessor#resetOffsetInner (5.x server-side reset): every queue's offset becomes a pending
 * reset answered to the group's next pull, and overwrites the committed offset where the group has one
 * for the topic here (assignResetOffset). `onAssigned` is told each (mq, offset).
 */
export function serverSideResetOffset(
  b: Broker, queues: readonly number[], req: ResetOffsetRequest, nowUs: number, onAssigned: (mq: number, offset: number) => void,
): ResetOffsetAnswer {
  const offsetTable = new Map<number, number>();
  if (b.isSlave) return { code: ResponseCode.SYSTEM_ERROR, remark: "Can not reset offset in slave broker", offsetTable, pushedTo: 0 };
  for (const mq of queues) offsetTable.set(mq, targetOffset(b.store.queue(mq), req, "5.x", b.processor.maxOf(mq)));
  const hasEntry = queues.some((mq) => b.offsets.queryOffset(req.group, mq) >= 0);
  for (const [mq, offset] of offsetTable) {
    b.processor.pendingOffsetMoved.set(offsetKey(req.group, mq), offset);
    if (hasEntry) b.offsets.commitOffset(req.group, mq, offset, 0, nowUs);
    onAssigned(mq, offset);
  }
  return { code: ResponseCode.SUCCESS, remark: "", offsetTable, pushedTo: 0 };
}

/**
 * resetOffsetByTimestampOld's step per queue (the fallback mqadmin takes on CONSUMER_NOT_ONLINE): the
 * group's consumer offset (its minimum offset when the group has none for the topic here), the target,
 * and UPDATE_CONSUMER_OFFSET with the target when forced or not above the consumer offset.
 */
export function resetOffsetOld(
  b: Broker, queues: readonly number[], req: ResetOffsetRequest, profile: Profile, nowUs: number, onAssigned: (mq: number, offset: number) => void,
): Map<number, number> {
  const out = new Map<number, number>();
  const hasConsumed = queues.some((mq) => b.offsets.queryOffset(req.group, mq) >= 0);
  for (const mq of queues) {
    const q = b.store.queue(mq);
    const consumerOffset = hasConsumed ? Math.max(0, b.offsets.queryOffset(req.group, mq)) : q.minOffset;
    const target = targetOffset(q, req, profile, b.processor.maxOf(mq));
    if (!req.force && target > consumerOffset) continue;
    b.offsets.commitOffset(req.group, mq, target, 0, nowUs);
    out.set(mq, target);
    onAssigned(mq, target);
  }
  return out;
}

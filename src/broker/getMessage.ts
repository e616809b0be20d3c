// DefaultMessageStore#getMessage, spec §13.2, and the status → response code table of §13.3.
import type { BrokerConfig } from "../scenario/defaults.ts";
import type { Profile } from "../scenario/types.ts";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import type { QueueStore } from "./QueueStore.ts";
import { ResponseCode } from "../protocol/codes.ts";
import type { MessageFilter } from "./messageFilter.ts";

export const enum GetMessageStatus {
  FOUND = 0,
  NO_MATCHED_MESSAGE = 1,
  MESSAGE_WAS_REMOVING = 2,
  OFFSET_FOUND_NULL = 3,
  OFFSET_OVERFLOW_BADLY = 4,
  OFFSET_OVERFLOW_ONE = 5,
  OFFSET_TOO_SMALL = 6,
  NO_MATCHED_LOGIC_QUEUE = 7,
  NO_MESSAGE_IN_QUEUE = 8,
}

export const GET_MESSAGE_STATUS_NAMES = [
  "FOUND", "NO_MATCHED_MESSAGE", "MESSAGE_WAS_REMOVING", "OFFSET_FOUND_NULL", "OFFSET_OVERFLOW_BADLY",
  "OFFSET_OVERFLOW_ONE", "OFFSET_TOO_SMALL", "NO_MATCHED_LOGIC_QUEUE", "NO_MESSAGE_IN_QUEUE",
] as const;

/** Reusable output of getMessage; `offsets[0..count)` are the accepted messages in offset order. */
export class GetMessageResult {
  status: GetMessageStatus = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
  nextBeginOffset = 0;
  minOffset = 0;
  maxOffset = 0;
  count = 0;
  bytes = 0;
  /** Units of the scan the filter skipped (they still count toward nextBeginOffset and the scan window). */
  filtered = 0;
  /** FOUND and the last message read was no longer in memory (the master would suggest a slave). */
  coldTail = false;
  offsets: Float64Array;
  constructor(capacity = 1024) {
    this.offsets = new Float64Array(capacity);
  }
}

export interface GetMessageContext {
  config: BrokerConfig;
  /** Commit-log bytes counted as page cache. */
  hotBytes: number;
  /** Current commit-log tail position of the broker, bytes. */
  commitLogTail: number;
  /** "4.9" uses the buffer scan (next = offset + scanned), "5.x" the iterator rules. */
  profile: Profile;
  /** The queue's max offset as this node holds it (a slave's replicated copy); Infinity on a master. */
  maxCap: number;
  /**
   * The subscription's filter (ExpressionMessageFilter: tag hash codes, SQL92), in place of `tagSet`;
   * null or absent: `tagSet` decides by tag index (a broker built without the run's filter data).
   */
  filter?: MessageFilter | null;
}

/**
 * Reads up to `maxMsgNums` messages from `offset`. With `ctx.filter`, a unit is accepted when it matches
 * by consume queue (tag hash code) and by commit log (SQL92). Without, `tagSet` null accepts every
 * message; otherwise only messages whose tag index is in the set.
 */
export function getMessage(
  store: QueueStore,
  offset: number,
  maxMsgNums: number,
  tagSet: ReadonlySet<number> | null,
  ctx: GetMessageContext,
  out: GetMessageResult,
): GetMessageResult {
  const min = store.minOffset;
  const max = store.maxOffset < ctx.maxCap ? store.maxOffset : ctx.maxCap;
  out.minOffset = min;
  out.maxOffset = max;
  out.count = 0;
  out.bytes = 0;
  out.filtered = 0;
  out.coldTail = false;
  if (max === 0) {
    out.status = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
    out.nextBeginOffset = 0; // correct(offset, 0) on a master
    return out;
  }
  if (offset < min) {
    out.status = GetMessageStatus.OFFSET_TOO_SMALL;
    out.nextBeginOffset = min;
    return out;
  }
  if (offset === max) {
    out.status = GetMessageStatus.OFFSET_OVERFLOW_ONE;
    out.nextBeginOffset = offset;
    return out;
  }
  if (offset > max) {
    // Broker spec §3.1 row 4: from 4.9.4 (PR #4219) and in 5.x the consumer goes to max; before, to 0
    // while the queue was never trimmed — a full replay.
    out.status = GetMessageStatus.OFFSET_OVERFLOW_BADLY;
    out.nextBeginOffset = ctx.config.overflowBadlyToZero && min === 0 ? 0 : max;
    return out;
  }
  // Scan. At most max(16000, maxMsgNums × 20) bytes of consume-queue units are looked at.
  const unit = BROKER_CONSTANTS.CQ_UNIT_SIZE;
  const scanUnits = Math.floor(Math.max(ctx.config.maxFilterMessageSize, maxMsgNums * unit) / unit);
  const cfg = ctx.config;
  const legacy = ctx.profile !== "5.x";
  let status = GetMessageStatus.NO_MATCHED_MESSAGE;
  let count = 0;
  let bytes = 0;
  let filtered = 0;
  const filter = ctx.filter ?? null;
  const cap = Math.min(maxMsgNums, out.offsets.length);
  // The byte caps count whole stored messages (the consume-queue unit's size), not just bodies.
  const overhead = store.topic.length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
  let u = offset;
  for (; u < max && u - offset < scanUnits; u++) {
    const size = store.bodyBytes(u) + overhead;
    // The positional "in memory" test (broker spec §1.4), on the message's page position (QueueStore).
    const hot = ctx.commitLogTail - store.pagePos(u) <= ctx.hotBytes;
    if (isBatchFull(count, bytes, size, hot, cap, cfg, legacy)) break;
    // Filtered units still move nextBeginOffset (§13.2): they are skipped, not left for the next pull.
    if (filter !== null) {
      if (!filter.matchesConsumeQueue(store.tag(u)) || (filter.sql !== null && !filter.matchesCommitLog(store.originKey(u)))) {
        filtered++;
        continue;
      }
    } else if (tagSet !== null && !tagSet.has(store.tag(u))) {
      filtered++;
      continue;
    }
    out.offsets[count++] = u;
    bytes += size;
    status = GetMessageStatus.FOUND;
  }
  // 4.9.x: nextBeginOffset = offset + units scanned; 5.x: the last unit passed to the filter + 1 (filtered
  // units count). The unit that filled the batch is not scanned in either, so both give u here.
  out.status = status;
  // suggestPullingFromSlave's test (broker spec §4.4): the last message pulled is out of memory.
  out.coldTail = count > 0 && ctx.commitLogTail - store.pagePos(out.offsets[count - 1]!) > ctx.hotBytes;
  out.nextBeginOffset = u;
  out.count = count;
  out.bytes = bytes;
  out.filtered = filtered;
  return out;
}

function isBatchFull(count: number, bytes: number, size: number, hot: boolean, maxMsgNums: number, cfg: BrokerConfig, legacy: boolean): boolean {
  if (count === 0) return false; // at least one message, whatever its size
  if (count + 1 > maxMsgNums) return true;
  if (!legacy && bytes + size > BROKER_CONSTANTS.MAX_PULL_MSG_SIZE) return true;
  if (hot) {
    return bytes + size > cfg.maxTransferBytesOnMessageInMemory || count >= cfg.maxTransferCountOnMessageInMemory;
  }
  return bytes + size > cfg.maxTransferBytesOnMessageInDisk || count >= cfg.maxTransferCountOnMessageInDisk;
}

/** §13.3: GetMessageStatus → response code, given the request offset. */
export function responseCodeOf(status: GetMessageStatus, requestOffset: number): ResponseCode {
  switch (status) {
    case GetMessageStatus.FOUND:
      return ResponseCode.SUCCESS;
    case GetMessageStatus.NO_MATCHED_MESSAGE:
    case GetMessageStatus.MESSAGE_WAS_REMOVING:
      return ResponseCode.PULL_RETRY_IMMEDIATELY;
    case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
    case GetMessageStatus.NO_MATCHED_LOGIC_QUEUE:
      return requestOffset !== 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
    case GetMessageStatus.OFFSET_OVERFLOW_ONE:
    case GetMessageStatus.OFFSET_FOUND_NULL:
      return ResponseCode.PULL_NOT_FOUND;
    case GetMessageStatus.OFFSET_OVERFLOW_BADLY:
    case GetMessageStatus.OFFSET_TOO_SMALL:
      return ResponseCode.PULL_OFFSET_MOVED;
  }
}

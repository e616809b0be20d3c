// RebalancePushImpl#computePullFromWhereWithException, spec §10.6: where a newly assigned queue starts.
import type { ConsumeFromWhere } from "../scenario/types.ts";

export interface StartOffsetFacts {
  /** readOffset(READ_FROM_STORE): ≥ 0 found, −1 QUERY_NOT_FOUND, −2 any other failure. */
  stored: number;
  /** Broker max offset of the queue (next slot to be written). */
  maxOffset: number;
  /** searchOffset(consumeTimestamp) answer. */
  searchOffset: number;
}

/** Returns the start offset, or −1 where RocketMQ throws (5.x) / returns −1 (4.9.x): skip until the next rebalance. */
export function computePullFromWhere(where: ConsumeFromWhere, isRetryTopic: boolean, f: StartOffsetFacts): number {
  if (f.stored >= 0) return f.stored;
  if (f.stored !== -1) return -1;
  switch (where) {
    case "CONSUME_FROM_LAST_OFFSET":
      return isRetryTopic ? 0 : f.maxOffset;
    case "CONSUME_FROM_FIRST_OFFSET":
      return 0; // below minOffset is fixed by OFFSET_ILLEGAL
    case "CONSUME_FROM_TIMESTAMP":
      return isRetryTopic ? f.maxOffset : f.searchOffset;
  }
}

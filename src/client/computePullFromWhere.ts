// RebalancePushImpl#computePullFromWhereWithException, spec §10.6: where a newly assigned queue starts.
import { ResponseCode } from "../protocol/codes.ts";
import type { ConsumeFromWhere, Profile } from "../scenario/types.ts";

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

/**
 * readOffset(mq, READ_FROM_STORE) from QUERY_CONSUMER_OFFSET's answer (`code` null: none came, a time-out or
 * a refused connection): the offset, −1 "no offset in broker", or −2 an error. Up to 4.9.x every broker
 * error code reads as "no offset" — a first start; from 5.0 only QUERY_NOT_FOUND does (broker spec §10).
 */
export function storedOffsetOf(profile: Profile, code: number | null, offset: number): number {
  if (code === null) return -2;
  if (code === ResponseCode.SUCCESS) return offset;
  if (code === ResponseCode.QUERY_NOT_FOUND || profile !== "5.x") return -1;
  return -2;
}

// The vocabulary derive.ts shares with explain.ts: raw intervals before they get a sentence, the pull
// log that measures progress, the time constants that decide what one interval is, and which faults can
// fail pulls to a broker.
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { ReasonCode } from "./types.ts";

/** Deferrals of one kind closer than this belong to one interval (flow control re-checks every 50 ms). */
export const FLOW_GAP_US = 1_000_000;
/** Pull failures, pauses and lock waits closer than this (after their retry delay) belong to one interval. */
export const FAIL_GAP_US = 2_000_000;
/** Shorter intervals are normal churn (a rebalance hand-over, one deferral) and are not reported. */
export const INTERVAL_MIN_US = 1_000_000;
/** PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL, µs: a deferral lasts this long. */
export const FLOW_DELAY_US = 50_000;
/** CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND, µs: a pull that times out was sent this long before. */
export const PULL_TIMEOUT_US = CLIENT_CONSTANTS.CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND * 1000;
/** A pull sent before a fault fails up to CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND (30 s) later; a little more. */
export const FAULT_LOOKBACK_US = 35_000_000;

export interface RawInterval {
  group: number;
  mq: number;
  reason: ReasonCode;
  startUs: number;
  endUs: number;
  ongoing: boolean;
  figures: Record<string, number | string>;
}

/** Messages brought in by FOUND pulls, by time: what "progressing" means for a queue. */
export interface PullLog {
  tUs: number[];
  msgs: number[];
}

export function queueKey(group: number, mq: number): string {
  return `${group}:${mq}`;
}

/** Whether a fault can fail pulls to `broker`: a crash, read-only time, a partition, loss or latency there. */
export function faultTouches(f: FaultModel, broker: number): boolean {
  switch (f.kind) {
    case "brokerCrash":
    case "brokerReadOnly":
    case "roleSwap":
    case "failover":
    case "leaderChange":
      return f.broker === broker;
    case "partition":
    case "loss":
    case "latency":
      return f.brokers.includes(broker);
    default:
      return false;
  }
}

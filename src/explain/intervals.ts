// The vocabulary derive.ts shares with explain.ts: raw intervals before they get a sentence, the pull
// log that measures progress, the time constants that decide what one interval is, and which faults can
// fail pulls to a broker.
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { ReasonCode } from "./types.ts";

/**
 * The capture's bucket, µs: per-batch records (FOUND answers, repeated offsets) are thinned to one per
 * bucket, and the pool's load is summed per bucket. The filter reads the kernel's clock for it — the
 * time the record is emitted at, its own tUs.
 */
export const THIN_US = 100_000;
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
    case "brokerPermission":
    case "updateTopic":
      return f.broker === broker;
    case "updateSubscriptionGroup":
      return f.broker < 0 || f.broker === broker;
    default:
      return false;
  }
}

/** What failed the pulls, by the fault that touches the broker, or by what the failures look like. */
export function failCause(kind: FaultModel["kind"] | undefined, figures: Record<string, number | string>): string {
  switch (kind) {
    case "brokerCrash":
      return "broker down";
    case "brokerReadOnly":
      return "broker read-only";
    case "roleSwap":
    case "failover":
    case "leaderChange":
      return "master changed";
    case "partition":
      return "network partition";
    case "loss":
      return "message loss";
    case "latency":
      return "added latency";
    case "brokerPermission":
      return "broker permission changed";
    case "updateSubscriptionGroup":
      return "group config changed";
    case "updateTopic":
      return "topic config changed";
  }
  if (figures.lastErrorCode === 1 && figures.sqlRefused === 1) return "SQL92 filter refused: the broker's enablePropertyFilter is false";
  if ((figures.refused as number) > 0) return "connection refused";
  if ((figures.timeouts as number) > 0) return "no answer";
  return "error answers";
}

/**
 * A client id two live instances of the group share — pinned twice in `clientIds`, or taken by a
 * duplicateClientId fault (`applied`: the faults applied so far) — or undefined. Both instances then
 * compute the same allocation (cidAll lists the id twice, both find themselves at its first index).
 */
export function sharedClientId(g: { index: number; clientIds: readonly string[] }, applied: readonly (FaultModel | undefined)[], clientOf: (slot: number) => string): string | undefined {
  const seen = new Set<string>();
  for (const id of g.clientIds) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  for (const f of applied) if (f?.kind === "duplicateClientId" && seen.has(clientOf(f.sameAs))) return clientOf(f.sameAs);
  return undefined;
}

// The client's trace record types and the codes some of their fields take. Trace#defineType returns the
// same code for the same name, so every consumer instance defining them gets the same codes.
import type { Trace } from "../sim/Trace.ts";

export interface ClientTrace {
  pullSent: number;
  pullResult: number;
  flowControl: number;
  pullLater: number;
  consumeStart: number;
  consumeEnd: number;
  offsetUpdate: number;
  pqCreated: number;
  pqDropped: number;
  rebalance: number;
  thresholdChanged: number;
  expiredCleaned: number;
}

export function defineClientTrace(trace: Trace): ClientTrace {
  return {
    pullSent: trace.defineType("pullSent", ["mq", "consumer", "offset", "commitOffset"]),
    pullResult: trace.defineType("pullResult", ["mq", "consumer", "code", "nextBeginOffset"]),
    flowControl: trace.defineType("flowControl", ["mq", "consumer", "kind", "value"]),
    pullLater: trace.defineType("pullLater", ["mq", "consumer", "delayMs", "reason"]),
    consumeStart: trace.defineType("consumeStart", ["mq", "offset", "consumer", "worker"]),
    consumeEnd: trace.defineType("consumeEnd", ["mq", "offset", "consumer", "ok"]),
    offsetUpdate: trace.defineType("offsetUpdate", ["mq", "consumer", "offset", "increaseOnly"]),
    pqCreated: trace.defineType("pqCreated", ["mq", "consumer", "nextOffset"]),
    pqDropped: trace.defineType("pqDropped", ["mq", "consumer", "reason"]),
    rebalance: trace.defineType("rebalance", ["consumer", "queues", "changed"]),
    thresholdChanged: trace.defineType("thresholdChanged", ["consumer", "pullThresholdForQueue", "pullThresholdSizeForQueue"]),
    expiredCleaned: trace.defineType("expiredCleaned", ["mq", "offset", "consumer"]),
  };
}

/** flowControl.kind, and the index of ClientStats.flowControl. */
export const FLOW_KIND = { count: 0, size: 1, span: 2, paused: 3 } as const;

/** pqDropped.reason. */
export const DROP_REASON = { notAssigned: 0, pullExpired: 1, offsetIllegal: 2, resetOffset: 3 } as const;

/** pullLater.reason: why a pull was re-scheduled later. */
export const LATER_REASON = {
  flowControl: 0,
  notRunning: 1,
  paused: 2,
  noSubscription: 3,
  exception: 4,
  brokerFlowControl: 5,
  pullInterval: 6,
  newQueue: 7,
  /** Orderly: the ProcessQueue is not locked at its broker (§2 step 9). */
  notLocked: 8,
} as const;

// Event kinds and trace record types of the pipeline model. "consumer" in a target means the
// consumer's address (index + epoch × 2^20), so events of a crashed incarnation are recognised.
// Event kinds and trace record types of the pipeline model. Kinds are numbers handed out by the
// scheduler; this module only names them, so every component can refer to `kinds.X`.
import type { Trace } from "../sim/Trace.ts";

/** A consumer's event address is index + epoch × CONSUMER_ADDR_SPAN. */
export const CONSUMER_ADDR_SPAN = 1048576;

export interface Kinds {
  // broker side
  brokerPull: number; // target = pull request id
  holdTick: number; // target = broker
  topicArrival: number; // target = topic
  offsetUpdate: number; // target = broker, a = offset key, b = offset
  queryOffset: number; // target = broker, a = consumer, b = query slot
  heartbeat: number; // target = broker, a = consumer, b = 1 if the client waits for the reply
  sendBack: number; // target = broker, a = consumer, b = worker
  cleanSendBack: number; // target = broker, a = clean ticket, b = consumer
  scheduleDue: number; // target = broker, a = delay level
  // client side
  consumerStart: number; // target = consumer
  pullDispatch: number; // target = pull request id
  pullResponse: number; // target = pull request id, a = request serial
  pullTimeout: number; // target = pull request id, a = request serial
  offsetIllegalFix: number; // target = pull request id
  queryOffsetResponse: number; // target = consumer, a = slot, b = rebalance serial
  heartbeatResponse: number; // target = consumer
  notifyIdsChanged: number; // target = consumer
  rebalance: number; // target = consumer
  persistAll: number; // target = consumer
  heartbeatTimer: number; // target = consumer
  cleanExpired: number; // target = consumer
  consumeDone: number; // target = consumer, a = worker
  sendBackResponse: number; // target = consumer, a = worker, b = 1 ok / 0 failed
  localRetry: number; // target = consumer, a = retry ticket
  unregister: number; // target = broker, a = consumer
  consumerListRequest: number; // target = broker, a = consumer, b = serial
  consumerListResponse: number; // target = consumer, a = serial, b = 1 answered / 0 failed
  channelClosed: number; // target = broker, a = consumer
  expiryScan: number; // target = broker
  offsetFlush: number; // target = broker
  // world
  sample: number;
}

/** Trace record type codes. Field lists are documented in `defineTraceTypes`. */
export interface TraceTypes {
  pullSent: number;
  pullHeld: number;
  pullResult: number;
  flowControl: number;
  pullLater: number;
  consumeStart: number;
  consumeEnd: number;
  sendBack: number;
  retryDelivered: number;
  dlq: number;
  offsetUpdate: number;
  offsetCommit: number;
  pqCreated: number;
  pqDropped: number;
  rebalance: number;
  thresholdChanged: number;
  retention: number;
  expiredCleaned: number;
  channelExpired: number;
  fault: number;
}

export const FLOW_KIND = { count: 0, size: 1, span: 2, paused: 3 } as const;
export const DROP_REASON = { notAssigned: 0, pullExpired: 1, offsetIllegal: 2 } as const;

export function defineTraceTypes(trace: Trace): TraceTypes {
  return {
    pullSent: trace.defineType("pullSent", ["mq", "consumer", "offset", "commitOffset"]),
    pullHeld: trace.defineType("pullHeld", ["mq", "consumer", "offset"]),
    pullResult: trace.defineType("pullResult", ["mq", "consumer", "code", "nextBeginOffset"]),
    flowControl: trace.defineType("flowControl", ["mq", "consumer", "kind", "value"]),
    pullLater: trace.defineType("pullLater", ["mq", "consumer", "delayMs", "reason"]),
    consumeStart: trace.defineType("consumeStart", ["mq", "offset", "consumer", "worker"]),
    consumeEnd: trace.defineType("consumeEnd", ["mq", "offset", "consumer", "ok"]),
    sendBack: trace.defineType("sendBack", ["mq", "offset", "reconsumeTimes", "delayLevel"]),
    retryDelivered: trace.defineType("retryDelivered", ["mq", "offset", "reconsumeTimes", "group"]),
    dlq: trace.defineType("dlq", ["mq", "offset", "reconsumeTimes", "group"]),
    offsetUpdate: trace.defineType("offsetUpdate", ["mq", "consumer", "offset", "increaseOnly"]),
    offsetCommit: trace.defineType("offsetCommit", ["mq", "group", "offset", "viaPull"]),
    pqCreated: trace.defineType("pqCreated", ["mq", "consumer", "nextOffset"]),
    pqDropped: trace.defineType("pqDropped", ["mq", "consumer", "reason"]),
    rebalance: trace.defineType("rebalance", ["consumer", "queues", "changed"]),
    thresholdChanged: trace.defineType("thresholdChanged", ["consumer", "pullThresholdForQueue", "pullThresholdSizeForQueue"]),
    retention: trace.defineType("retention", ["mq", "minOffset"]),
    expiredCleaned: trace.defineType("expiredCleaned", ["mq", "offset", "consumer"]),
    channelExpired: trace.defineType("channelExpired", ["broker", "consumer"]),
    fault: trace.defineType("fault", ["index", "phase"]),
  };
}

/** Why a pull was re-scheduled later (pullLater.reason). */
export const LATER_REASON = {
  flowControl: 0,
  notRunning: 1,
  paused: 2,
  noSubscription: 3,
  exception: 4,
  brokerFlowControl: 5,
  pullInterval: 6,
  newQueue: 7,
} as const;

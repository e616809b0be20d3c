// The broker's trace record types. Trace#defineType returns the same code for the same name, so every
// broker defining them gets the same codes.
import type { Trace } from "../sim/Trace.ts";

export interface BrokerTrace {
  pullHeld: number;
  offsetCommit: number;
  sendBack: number;
  retryDelivered: number;
  dlq: number;
  retention: number;
  commitLogDeleted: number;
  tailLost: number;
  channelExpired: number;
}

export function defineBrokerTrace(trace: Trace): BrokerTrace {
  return {
    pullHeld: trace.defineType("pullHeld", ["mq", "consumer", "offset"]),
    offsetCommit: trace.defineType("offsetCommit", ["mq", "group", "offset", "viaPull"]),
    sendBack: trace.defineType("sendBack", ["mq", "offset", "reconsumeTimes", "delayLevel"]),
    retryDelivered: trace.defineType("retryDelivered", ["mq", "offset", "reconsumeTimes", "group"]),
    dlq: trace.defineType("dlq", ["mq", "offset", "reconsumeTimes", "group"]),
    retention: trace.defineType("retention", ["mq", "minOffset"]),
    commitLogDeleted: trace.defineType("commitLogDeleted", ["broker", "files", "minPhyOffset", "reason"]),
    tailLost: trace.defineType("tailLost", ["mq", "fromOffset", "count"]),
    channelExpired: trace.defineType("channelExpired", ["broker", "consumer"]),
  };
}

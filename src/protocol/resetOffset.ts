// RESET_CONSUMER_CLIENT_OFFSET (RequestCode 220): the broker's oneway push of an offset reset to a client
// of the group (Broker2Client#resetOffset, 4.x; ResetOffsetRequestHeader + ResetOffsetBody). The body is
// the offset table of the sending broker's queues of the topic: global queue index → offset.
import { RequestCode } from "./codes.ts";
import { Command } from "./commands.ts";

export class ResetConsumerClientOffsetRequest extends Command {
  code: number = RequestCode.RESET_CONSUMER_CLIENT_OFFSET;
  constructor(
    readonly consumerGroup: number,
    readonly topic: number,
    /** The timestamp the operator gave, µs (−1: latest); for the trace only, as in RocketMQ's log. */
    readonly timestampUs: number,
    /** ResetOffsetBody#offsetTable: (mq, offset) pairs sorted by mq. */
    readonly offsetTable: ReadonlyMap<number, number>,
  ) {
    super();
  }
}

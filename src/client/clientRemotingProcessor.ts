// ClientRemotingProcessor#processRequest: the requests a broker pushes to a client instance.
//   NOTIFY_CONSUMER_IDS_CHANGED → rebalanceImmediately (§10.2);
//   RESET_CONSUMER_CLIENT_OFFSET → MQClientInstance#resetOffset (src/client/resetOffset.ts).
// And updateConsumeOffsetToBroker, the offset store's way out to the broker.
import { RequestCode } from "../protocol/codes.ts";
import { UpdateConsumerOffsetRequest, type Command } from "../protocol/commands.ts";
import type { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { resetOffset } from "./resetOffset.ts";

export function processClientRequest(c: PushConsumer, msg: Command): void {
  if (msg.code === RequestCode.NOTIFY_CONSUMER_IDS_CHANGED) c.rebalance.wakeup();
  else if (msg.code === RequestCode.RESET_CONSUMER_CLIENT_OFFSET) resetOffset(c, msg as ResetConsumerClientOffsetRequest);
}

/** A oneway UPDATE_CONSUMER_OFFSET to the queue's broker. */
export function sendOffsetUpdate(c: PushConsumer, mq: number, offset: number): void {
  // updateConsumeOffsetToBroker: the master if the route has one, else a slave (§4.6); none: the RPC throws.
  const node = c.route.adminNode(mq);
  if (node >= 0) c.ctx.send(node, new UpdateConsumerOffsetRequest(c.group, mq, offset));
}

// The client instance's internal producer ("CLIENT_INNER_PRODUCER") sending a message to %RETRY%<group>
// (broker spec §8.1): the orderly service's sendMessageBack and the concurrent service's fallback when
// CONSUMER_SEND_MSG_BACK failed. sendDefaultImpl makes up to 3 attempts (retryTimesWhenSendFailed 2,
// §7.4) over the brokers of the retry topic's route: the model tries the message's own broker first,
// then the others in route order; an attempt whose master refuses the connection fails at once and the
// next is tried, one answered with an error code goes on to the next broker; a time-out uses up the
// 3 s budget (no further attempt).
import type { NodeContext } from "../net/Node.ts";
import type { Routes } from "../protocol/routes.ts";
import type { RouteView } from "./RouteView.ts";

/** The internal producer's send time-out (sendMsgTimeout, 3 s for all attempts). */
export const RETRY_SEND_TIMEOUT_US = 3_000_000;
/** 1 + retryTimesWhenSendFailed. */
export const RETRY_SEND_ATTEMPTS = 3;

/**
 * The node the retry send's attempt `attempt` (0-based) and later ones go to: the first candidate from
 * that attempt on whose master takes a connection, as { node, attempt } (the attempt it is), or null
 * when no attempt is left.
 */
export function retrySendTarget(
  ctx: NodeContext, routes: Routes, route: RouteView | undefined, group: number, mq: number, attempt = 0,
): { node: number; attempt: number } | null {
  const own = routes.brokerOf(mq);
  const brokers = routes.topics[routes.retryTopic(group)]!.brokers;
  const order = [own, ...brokers.filter((b) => b !== own)];
  for (let a = attempt; a < Math.min(RETRY_SEND_ATTEMPTS, order.length); a++) {
    const b = order[a]!;
    const node = route === undefined ? b : route.groupMaster(b);
    if (node >= 0 && ctx.canConnect(node)) return { node, attempt: a };
  }
  return null;
}

// cleanExpiredMsg (§3.7): every consumeTimeout minutes the concurrent service looks at the head of each
// cached queue and sends back (delay level 3) the messages whose listener call began more than
// consumeTimeout ago — at most CLEAN_EXPIRED_MAX_LOOP per queue per run.
import { ConsumerSendMsgBackRequest } from "../protocol/commands.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { ClientTimer } from "./timers.ts";

export function cleanExpiredMsg(c: PushConsumer): void {
  const ctx = c.ctx;
  const now = ctx.nowUs;
  const timeoutUs = c.config.consumeTimeout * 60_000_000;
  for (const [mq, pq] of c.rebalance.processQueues()) {
    const loops = Math.min(pq.msgCount, CLIENT_CONSTANTS.CLEAN_EXPIRED_MAX_LOOP);
    for (let i = 0; i < loops; i++) {
      const first = pq.firstKey;
      if (first < 0) break;
      const startUs = pq.consumeStartUs(first);
      if (startUs < 0 || now - startUs <= timeoutUs) break;
      // sendMessageBack(msg, 3) to the message's broker, a synchronous RPC modelled as one whose
      // failure shows at once: only if it went through is the message removed, without touching the
      // offset store; a failure ends this queue's loop.
      const node = c.route.masterNode(mq);
      const sent = node >= 0 && ctx.sendChecked(node, new ConsumerSendMsgBackRequest(
        c.group, mq, first, CLIENT_CONSTANTS.SEND_BACK_EXPIRED_DELAY_LEVEL, c.maxReconsumeTimes,
        pq.originKey(first), pq.originBornUs(first), pq.bodyBytes(first), pq.tag(first), pq.reconsumeTimes(first),
      ));
      if (!sent) break;
      ctx.trace.emit(c.T.expiredCleaned, now, mq, first, c.index);
      if (pq.firstKey === first) pq.removeMessage([first], 1, now);
    }
  }
  ctx.timer(timeoutUs, ClientTimer.CLEAN_EXPIRED);
}

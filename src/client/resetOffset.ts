// MQClientInstance#resetOffset (4.7.1 … HEAD, unchanged but for 4.9.0's `synchronized`): what a client does
// with the broker's RESET_CONSUMER_CLIENT_OFFSET push (ClientRemotingProcessor#resetOffset):
//   1. consumer.suspend(): pause = true — pulls are put off by PULL_TIME_DELAY_MILLS_WHEN_SUSPEND (1 s),
//      rebalances skipped;
//   2. every ProcessQueue of the table whose mq is in the offset table: dropped = true, clear();
//   3. TimeUnit.SECONDS.sleep(10) — the client's remoting thread waits, so consume calls under way end
//      and find their queue dropped (their offsets are not committed);
//   4. for each mq of the table in the offset table: updateConsumeOffset(mq, offset) (updateOffset with
//      increaseOnly false), removeUnnecessaryMessageQueue(mq, pq) (persist: UPDATE_CONSUMER_OFFSET with
//      the new offset; removeOffset; orderly CLUSTERING: unlock), and out of the table whatever it said;
//   5. consumer.resume(): pause = false, then doRebalance() at once — the queues come back as new
//      ProcessQueues that read the new offset from the broker (§10.6).
// Orderly consumers differ only in step 4's removal (RebalancePushImpl#removeUnnecessaryMessageQueue through
// QueueLocks): the queue is unlocked at the broker if its consume lock can be had (4.9: unlockDelay's 20 s
// only with cached messages — none are left after clear(); 5.x: tryRemoveOrderMessageQueue), and it leaves
// the table even when that fails, since resetOffset ignores the answer.
// The method is synchronized from 4.9.0: a second push (another broker's queues) waits for the first to
// end. Up to 4.8 (profile 4.7) pushes run side by side, each with its own sleep, and the first to end
// resumes the consumer while the other still waits.
// The same steps in every profile: a 5.x broker normally resets server-side and pushes nothing
// (src/broker/resetOffset.ts); DefaultMQPushConsumerImpl#resetOffsetByTimeStamp (the application's own
// call) ends in the same method, which is what RocketMQ's MQClientInstanceTest#testResetOffset and
// DefaultMQPushConsumerImplTest#testResetOffsetByTimeStamp check (suspend, updateConsumeOffset, resume).
import type { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { ClientTimer } from "./timers.ts";
import { DROP_REASON } from "./trace.ts";

/** MQClientInstance#resetOffset's sleep between dropping the queues and writing the offsets, ms. */
export const RESET_OFFSET_WAIT_MS = 10_000;

/** A client's resets: those waiting out their 10 s by ticket (one at a time from 4.9), those queued behind. */
interface ResetState {
  active: Map<number, ResetConsumerClientOffsetRequest>;
  queued: ResetConsumerClientOffsetRequest[];
  nextTicket: number;
  traceType: number;
}

// Per incarnation, beside it rather than in it: most runs never reset, and PushConsumer stays small.
const states = new WeakMap<PushConsumer, ResetState>();

/** ClientRemotingProcessor#resetOffset → MQClientInstance#resetOffset. */
export function resetOffset(c: PushConsumer, req: ResetConsumerClientOffsetRequest): void {
  // consumerTable.get(group) is not a push consumer of that group: "consumer does not exist".
  if (req.consumerGroup !== c.group || c.state !== "RUNNING" || c.shuttingDown) return;
  let s = states.get(c);
  if (s === undefined) {
    s = { active: new Map(), queued: [], nextTicket: 0, traceType: c.ctx.trace.defineType("resetOffset", ["consumer", "step", "queues"]) };
    states.set(c, s);
  }
  s.queued.push(req);
  if (s.active.size === 0 || c.profile === "4.7") begin(c, s);
}

/** Steps 1–3: suspend, drop and clear the queues in the table, start the wait. */
function begin(c: PushConsumer, s: ResetState): void {
  const req = s.queued.shift()!;
  const ticket = s.nextTicket++;
  s.active.set(ticket, req);
  c.paused = true;
  let dropped = 0;
  for (const [mq, pq] of c.rebalance.processQueues()) {
    if (!req.offsetTable.has(mq)) continue;
    pq.dropped = true;
    // An orderly listener call under way holds taken messages. RocketMQ clears them too, and the call's
    // commit() then throws (lastKey() of the empty consuming map), ending that ConsumeRequest with no
    // offset update; the model keeps this queue's cache, lets the call end, and commits nothing for the
    // dropped queue — the same outcome. The queue leaves the table in step 4 all the same.
    if (pq.consumingCount === 0) pq.clear();
    dropped++;
  }
  c.ctx.trace.emit(s.traceType, c.ctx.nowUs, c.index, 0, dropped);
  c.ctx.timer(RESET_OFFSET_WAIT_MS * 1000, ClientTimer.RESET_OFFSET_WAIT, ticket);
}

/** Steps 4–5, when the 10 s are over: write and persist the offsets, remove the queues, resume. */
export function onResetOffsetWait(c: PushConsumer, ticket: number): void {
  const s = states.get(c);
  const req = s?.active.get(ticket);
  if (s === undefined || req === undefined) return;
  s.active.delete(ticket);
  if (c.state !== "RUNNING" || c.shuttingDown) return;
  let written = 0;
  for (const [mq, pq] of c.rebalance.processQueues()) {
    const offset = req.offsetTable.get(mq);
    if (offset === undefined) continue;
    c.updateOffset(mq, offset, false);
    c.setup.observer.offsetReset?.(c.group, mq, offset, c.addr);
    c.rebalance.removeProcessQueue(mq, pq, DROP_REASON.resetOffset);
    written++;
  }
  c.ctx.trace.emit(s.traceType, c.ctx.nowUs, c.index, 1, written);
  c.paused = false;
  c.rebalance.wakeup();
  if (s.queued.length > 0) begin(c, s);
}

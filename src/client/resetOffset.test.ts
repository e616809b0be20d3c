// MQClientInstance#resetOffset on one consumer (src/client/resetOffset.ts): the steps RocketMQ's
// MQClientInstanceTest#testResetOffset checks — suspend, updateConsumeOffset(mq, offset), resume — with
// the drop and clear before, and the 10 s sleep between.
import { describe, expect, it } from "vitest";
import { RequestCode } from "../protocol/codes.ts";
import type { UpdateConsumerOffsetRequest } from "../protocol/commands.ts";
import { ResetConsumerClientOffsetRequest } from "../protocol/resetOffset.ts";
import { RESET_OFFSET_WAIT_MS } from "./resetOffset.ts";
import {
  cache, committedOffset, MS, playBroker, queueOfT, range, sentOf, serveBacklog, tableQueue, tinyConsumer, TOPIC_T, type TinyScenario,
} from "./testConsumer.ts";

/** A started consumer of the tiny scenario holding T's two queues at 1 s (every pull held at the broker). */
function holding(s: TinyScenario = {}) {
  const b = tinyConsumer({ queues: 2, ...s });
  b.c.start();
  playBroker(b, 1000 * MS);
  const q0 = queueOfT(b, 0);
  const q1 = queueOfT(b, 1);
  return { b, q0, q1 };
}

const push = (q: [number, number][]) => new ResetConsumerClientOffsetRequest(0, TOPIC_T, 0, new Map(q));

describe("resetOffset: RESET_CONSUMER_CLIENT_OFFSET reaches a client", () => {
  it("suspends the consumer and drops and clears the queues of the table at once", () => {
    const { b, q0, q1 } = holding();
    const pq0 = tableQueue(b, q0);
    cache(pq0, range(40, 5), 1024);
    b.c.receive(push([[q0, 3], [q1, 7]]));
    expect(b.c.paused).toBe(true);
    expect(pq0.dropped).toBe(true);
    expect(pq0.msgCount).toBe(0);
    expect(pq0.isEmpty).toBe(true);
    expect(tableQueue(b, q1).dropped).toBe(true);
  });

  it("writes the offsets (UPDATE_CONSUMER_OFFSET), removes the queues and resumes 10 s later, not before", () => {
    const { b, q0, q1 } = holding();
    const old0 = tableQueue(b, q0);
    b.c.receive(push([[q0, 3], [q1, 7]]));
    const doneUs = 1000 * MS + RESET_OFFSET_WAIT_MS * MS;
    playBroker(b, doneUs - 1);
    expect(committedOffset(b, q0)).not.toBe(3);
    expect(b.c.paused).toBe(true);
    playBroker(b, doneUs);
    expect(committedOffset(b, q0)).toBe(3);
    expect(committedOffset(b, q1)).toBe(7);
    expect(b.c.paused).toBe(false);
    // resume() rebalances at once: the queues come back as new ProcessQueues.
    playBroker(b, doneUs + 100 * MS);
    expect(tableQueue(b, q0)).not.toBe(old0);
    expect(tableQueue(b, q0).dropped).toBe(false);
  });

  it("leaves alone the queues the table does not hold and those not in the offset table", () => {
    const { b, q0, q1 } = holding();
    b.c.receive(push([[q0, 3]]));
    expect(tableQueue(b, q1).dropped).toBe(false);
    playBroker(b, 11_000 * MS);
    expect(committedOffset(b, q0)).toBe(3);
    expect(committedOffset(b, q1)).not.toBe(3);
  });

  it("a second push while the first waits is handled after it (the method is synchronized): its offsets 10 s later again", () => {
    const { b, q0, q1 } = holding();
    b.c.receive(push([[q0, 3]]));
    b.c.receive(push([[q1, 7]]));
    playBroker(b, 11_000 * MS);
    expect(committedOffset(b, q0)).toBe(3);
    expect(tableQueue(b, q1).dropped).toBe(true); // dropped when the second one began, at 11 s
    expect(b.c.paused).toBe(true);
    playBroker(b, 21_000 * MS);
    expect(committedOffset(b, q1)).toBe(7);
    expect(b.c.paused).toBe(false);
  });

  it("4.7 (no synchronized): a second push runs beside the first; the first to end resumes the consumer", () => {
    const { b, q0, q1 } = holding({ profile: "4.7" });
    b.c.receive(push([[q0, 3]]));
    playBroker(b, 4000 * MS);
    b.c.receive(push([[q1, 7]]));
    playBroker(b, 11_000 * MS);
    expect(committedOffset(b, q0)).toBe(3);
    expect(b.c.paused).toBe(false); // the first one's resume(), while the second still sleeps
    expect(committedOffset(b, q1)).not.toBe(7);
    playBroker(b, 14_000 * MS);
    expect(committedOffset(b, q1)).toBe(7);
  });

  it("a push for another group is ignored (\"consumer does not exist\")", () => {
    const { b, q0 } = holding();
    b.c.receive(new ResetConsumerClientOffsetRequest(1, TOPIC_T, 0, new Map([[q0, 3]])));
    expect(b.c.paused).toBe(false);
    expect(tableQueue(b, q0).dropped).toBe(false);
  });

  it("orderly: a listener call under way when the push comes ends normally and commits nothing for the dropped queue", () => {
    // One queue, a backlog of 10, each orderly call takes 3 s: at 1 s the first call (consumeMessageBatchMaxSize
    // 1: offset 0) is running. The reset to 5 arrives; the call ends at ~3.x s, counted consumed, and
    // no UPDATE_CONSUMER_OFFSET carries its offset 1 — the offset written at 11 s is the reset's 5.
    const b = tinyConsumer({ queues: 1, backlog: 10, consumeMode: "ORDERLY", listener: { consumeTime: "3s" } });
    b.c.start();
    playBroker(b, 1000 * MS, { pull: serveBacklog(b) });
    const q0 = queueOfT(b, 0);
    expect(tableQueue(b, q0).consumingCount).toBe(1);
    b.c.receive(push([[q0, 5]]));
    playBroker(b, 11_000 * MS, { pull: serveBacklog(b) });
    expect(b.observer.consumedCalls.map((x) => x.offset)).toEqual([0]);
    expect(sentOf<UpdateConsumerOffsetRequest>(b, RequestCode.UPDATE_CONSUMER_OFFSET).map((s) => s.msg.commitOffset)).not.toContain(1);
    expect(committedOffset(b, q0)).toBe(5);
  });

  it("orderly, CLUSTERING: removing the queue unlocks it at the broker (removeUnnecessaryMessageQueue)", () => {
    const { b, q0 } = holding({ consumeMode: "ORDERLY" });
    b.c.receive(push([[q0, 3]]));
    const unlockTimes = () => [...b.ctx.requests.filter((r) => r.msg.code === RequestCode.UNLOCK_BATCH_MQ).map((r) => r.sentUs), ...sentOf(b, RequestCode.UNLOCK_BATCH_MQ).map((s) => s.atUs)];
    playBroker(b, 11_000 * MS - 1);
    expect(unlockTimes()).toEqual([]);
    playBroker(b, 11_000 * MS);
    expect(committedOffset(b, q0)).toBe(3);
    // The cleared queue has no cached message: unlocked at once, not after unlockDelay's 20 s.
    expect(unlockTimes()).toEqual([11_000 * MS]);
  });
});

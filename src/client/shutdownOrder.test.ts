// DefaultMQPushConsumerImpl#shutdown's order (broker spec §8.2) and what a failing listener call ending
// during it does — the copies of the message that follow. One queue of T holding one message whose every
// attempt fails (a 1 s listener call, so the call is running when shutdown begins); the instance is
// stopped 500 ms into it. The copies after the restart are: the retry copy its send-back stored (if one
// was sent), plus the original again when the committed offset did not move past it (redelivery).
import { describe, expect, it } from "vitest";
import { RequestCode } from "../protocol/codes.ts";
import { committedOffset, playBroker, queueOfT, requestsOf, serveBacklog, tinyConsumer, type BrokerPlay, type ConsumerBench } from "./testConsumer.ts";

const MS = 1000;
const S = 1_000_000;

/** Starts the consumer on a backlog of 1, lets the failing 1 s call begin, and stops it at 0.5 s-ish. */
function stoppedMidCall(awaitMs: number, play: BrokerPlay = {}): ConsumerBench {
  const b = tinyConsumer({ queues: 1, backlog: 1, config: { awaitTerminationMillisWhenShutdown: awaitMs }, listener: { consumeTime: "1s", failureProbability: 1 } });
  b.c.start();
  const pull = serveBacklog(b);
  playBroker(b, 500 * MS, { pull, ...play });
  b.c.shutdown();
  playBroker(b, 10 * S, { pull, ...play });
  return b;
}

/** Copies of the message the group will see again: retry copies sent back, plus 1 if the original comes back. */
function copies(b: ConsumerBench): { retries: number; redelivered: boolean } {
  const retries = requestsOf(b, RequestCode.CONSUMER_SEND_MSG_BACK).length;
  return { retries, redelivered: committedOffset(b, queueOfT(b)) < 1 };
}

describe("a failing call during shutdown (§8.2)", () => {
  it("ending before the persist (awaitTerminationMillisWhenShutdown 2 s > the call's rest): sent back, its offset persisted — 1 copy, the retry", () => {
    const b = stoppedMidCall(2000);
    expect(copies(b)).toEqual({ retries: 1, redelivered: false });
    // Step 1 lasted until the call ended (≈ 1 s after its start), then the persist carried offset 1.
    expect(b.c.alive).toBe(false);
  });

  it("ending between the persist and the client's shutdown (await 0, UNREGISTER_CLIENT unanswered for its 3 s): sent back, offset never sent — 2 copies", () => {
    // The persist went out at 0.5 s with offset 0; the call ends at ≈ 1 s while step 3 waits for the
    // broker (time-out 3 s): the send-back still works, the offset update stays in memory.
    const b = stoppedMidCall(0, { lose: (r) => r.msg.code === RequestCode.UNREGISTER_CLIENT });
    expect(copies(b)).toEqual({ retries: 1, redelivered: true });
  });

  it("ending after destroy (await 0, the unregister answered in one round trip): nothing is done — 1 copy, the original redelivered", () => {
    const b = stoppedMidCall(0);
    expect(copies(b)).toEqual({ retries: 0, redelivered: true });
  });

  it("a send-back failing after step 1 skips the rest of processConsumeResult (submitConsumeRequestLater is rejected): no local retry", () => {
    const b = stoppedMidCall(2000, { sendBackCode: 1 /* SYSTEM_ERROR */ });
    // Send-back and its fallback fail; the local retry would be scheduled on the stopped scheduler.
    expect(requestsOf(b, RequestCode.SEND_MESSAGE).length).toBe(1);
    expect(b.ctx.records("consumeStart").length).toBe(1);
    expect(copies(b)).toEqual({ retries: 1, redelivered: true });
  });
});

describe("shutdown steps (§8.2)", () => {
  it("with an await time, queued requests still run in step 1; when it runs out shutdownNow drops the rest, and the running call is waited for", () => {
    // 4 messages, one thread, 1 s each, the first call from 12 ms (start, rebalance, pull). Shutdown at
    // 0.5 s with await 1.5 s: the second call starts at 1.012 s (the executor drains its queue); at 2 s
    // shutdownNow drops messages 2 and 3; the running call ends at 2.012 s, the executor terminates and
    // the persist carries offset 2 then — messages 2 and 3 come back from there.
    const b = tinyConsumer({ queues: 1, backlog: 4, config: { awaitTerminationMillisWhenShutdown: 1500, consumeThreadMin: 1, consumeThreadMax: 1, consumeMessageBatchMaxSize: 1 }, listener: { consumeTime: "1s" } });
    b.c.start();
    const pull = serveBacklog(b);
    playBroker(b, 500 * MS, { pull });
    b.c.shutdown();
    playBroker(b, 10 * S, { pull });
    expect(b.ctx.records("consumeStart").map((r) => [r.tUs, r.offset])).toEqual([[12 * MS, 0], [1012 * MS, 1]]);
    expect(b.ctx.sent.filter((x) => x.msg.code === RequestCode.UPDATE_CONSUMER_OFFSET).map((x) => [x.atUs, (x.msg as unknown as { commitOffset: number }).commitOffset])).toEqual([[2012 * MS, 2]]);
  });
});

// DefaultMQPushConsumerImpl#pullMessage's orderly branches (spec §2 steps 8–9) on a ready orderly consumer
// of the tiny scenario (no rebalance: the test makes the ProcessQueue and its PullRequest).
import { describe, expect, it } from "vitest";
import { RequestCode } from "../protocol/codes.ts";
import type { PullMessageRequest } from "../protocol/commands.ts";
import { LATER_REASON } from "./trace.ts";
import { cache, manualPullRequest, range, readyConsumer, requestsOf } from "./testConsumer.ts";

describe("pullMessage, orderly (§2 steps 8–9)", () => {
  it("no span flow control: a cache spanning 5 000 offsets (> consumeConcurrentlyMaxSpan 2000) still pulls", () => {
    const b = readyConsumer({ consumeMode: "ORDERLY" });
    const pr = manualPullRequest(b, 5001);
    pr.pq.locked = true;
    pr.previouslyLocked = true;
    cache(pr.pq, [0, 5000], 1024);
    b.c.pull.pullMessage(pr);
    expect(b.ctx.records("flowControl")).toEqual([]);
    expect(requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).map((r) => r.msg.queueOffset)).toEqual([5001]);
  });

  it("the same cache stops a concurrent consumer's pull (span 5000 > 2000)", () => {
    const b = readyConsumer();
    const pr = manualPullRequest(b, 5001);
    cache(pr.pq, [0, 5000], 1024);
    b.c.pull.pullMessage(pr);
    expect(b.ctx.records("flowControl").map((r) => r.value)).toEqual([5000]);
  });

  it("count flow control still applies first: 1 001 cached > pullThresholdForQueue → 50 ms, whatever the lock", () => {
    const b = readyConsumer({ consumeMode: "ORDERLY" });
    const pr = manualPullRequest(b, 1001);
    cache(pr.pq, range(0, 1001), 1);
    b.c.pull.pullMessage(pr);
    expect(b.ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[50, LATER_REASON.flowControl]]);
  });

  it("not locked: put off by pullTimeDelayMillsWhenException (1 s), reason notLocked; nothing sent", () => {
    const b = readyConsumer({ consumeMode: "ORDERLY" });
    const pr = manualPullRequest(b, 0);
    pr.pq.locked = false;
    b.c.pull.pullMessage(pr);
    expect(b.ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[1000, LATER_REASON.notLocked]]);
    expect(b.ctx.requests).toEqual([]);
  });

  it("locked, first pull: the offset is asked again (QUERY_CONSUMER_OFFSET, cookie −1 − id) instead of pulling", () => {
    const b = readyConsumer({ consumeMode: "ORDERLY" });
    const pr = manualPullRequest(b, 7);
    pr.pq.locked = true;
    b.c.pull.pullMessage(pr);
    expect(b.ctx.requests.map((r) => [r.msg.code, r.cookie])).toEqual([[RequestCode.QUERY_CONSUMER_OFFSET, -1 - pr.id]]);
    expect(pr.previouslyLocked).toBe(false);
  });
});

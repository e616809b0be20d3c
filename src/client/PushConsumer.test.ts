// DefaultMQPushConsumerImpl#pullMessage (spec §2, §2.2) and PullCallback (§4.3, §4.4), and the consumer
// node around them: its lifecycle (§12.4), the answers it routes by cookie, and cleanExpiredMsg (§3.7).
// One consumer of a tiny scenario on the recording context: the test calls the transition and then reads
// what it asked for — the pullLater delay and reason, the flow-control counter, the PULL_MESSAGE it sent,
// the offset stored, the timers it set, the oneway messages it sent.
import { describe, expect, it } from "vitest";
import { PullSysFlag, RequestCode, ResponseCode } from "../protocol/codes.ts";
import {
  GetConsumerListResponse, NotifyConsumerIdsChangedRequest, QueryConsumerOffsetResponse, SimpleResponse,
  type ConsumerSendMsgBackRequest, type HeartbeatRequest, type PullMessageRequest, type UnregisterClientRequest,
} from "../protocol/commands.ts";
import { ClientTimer } from "./timers.ts";
import { DROP_REASON, FLOW_KIND, LATER_REASON } from "./trace.ts";
import {
  BROKER_A, MS, MiB, TOPIC_T, answerPull, cache, deliver, manualPullRequest, offsetCommits, playBroker, pullResponse,
  queueOfT, range, readyConsumer, requestsOf, sentOf, serveBacklog, tableQueue, tinyConsumer, type ConsumerBench, type TinyScenario,
} from "./testConsumer.ts";

const T_PULL = 7000 * MS; // the clock when the transition runs; not 0 so a missed stamp shows

/** A ready consumer and a fresh pull request on T's queue 0 (made at 0), with the clock at T_PULL. */
function setup(s: TinyScenario = {}, nextOffset = 0) {
  const b = readyConsumer(s);
  const pr = manualPullRequest(b, nextOffset);
  b.ctx.nowUs = T_PULL; // nothing is scheduled yet: moving the clock is all there is to do
  return { b, ctx: b.ctx, c: b.c, stats: b.stats, pr, pq: pr.pq, mq: pr.mq };
}

/** The PULL_MESSAGE requests sent, as [sent time, queueOffset]. */
function pullsSent(b: ConsumerBench, mq?: number): [number, number][] {
  return requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE)
    .filter((r) => mq === undefined || r.msg.mq === mq)
    .map((r) => [r.sentUs, r.msg.queueOffset]);
}

// ------------------------------------------------------------------------------------------ §2

describe("pullMessage (§2)", () => {
  it("pullMessage: a dropped ProcessQueue ends the request: nothing is traced, sent or scheduled and lastPullTimestamp is left alone", () => {
    const { ctx, c, pr, pq } = setup();
    pq.dropped = true;
    c.pull.pullMessage(pr);
    expect(ctx.trace.captured).toEqual([]);
    expect(ctx.timers).toEqual([]);
    expect(ctx.requests).toEqual([]);
    expect(pq.lastPullTimestampUs).toBe(0);
    expect(pr.inFlight).toBe(false);
  });

  it("pullMessage: stamps lastPullTimestamp even when the pull is then flow-controlled", () => {
    const { ctx, c, pr, pq } = setup();
    cache(pq, range(0, 1001), 10);
    c.pull.pullMessage(pr);
    expect(pq.lastPullTimestampUs).toBe(T_PULL);
    expect(ctx.records("pullLater")).toHaveLength(1);
  });

  it("pullMessage: a consumer that is not RUNNING re-schedules the request after pullTimeDelayMillsWhenException (1000 ms)", () => {
    const { b, ctx, c, pr, mq } = setup();
    c.state = "CREATE_JUST";
    c.pull.pullMessage(pr);
    expect(ctx.records("pullLater")).toEqual([
      { tUs: T_PULL, type: "pullLater", mq, consumer: 0, delayMs: 1000, reason: LATER_REASON.notRunning },
    ]);
    expect(ctx.pendingTimers().map((t) => [t.code, t.atUs, t.arg])).toEqual([[ClientTimer.PULL_DISPATCH, T_PULL + 1000 * MS, pr.id]]);
    expect(ctx.records("pullSent")).toEqual([]);
    // The delay is real: nothing is sent before 1000 ms; once running, the re-dispatched request pulls.
    c.state = "RUNNING";
    ctx.runTimers(c, T_PULL + 1000 * MS - 1);
    expect(ctx.records("pullSent")).toEqual([]);
    ctx.runTimers(c, T_PULL + 1000 * MS);
    expect(ctx.records("pullSent").map((r) => r.tUs)).toEqual([T_PULL + 1000 * MS]);
    expect(pullsSent(b)).toEqual([[T_PULL + 1000 * MS, 0]]);
  });

  it("pullMessage: the not-RUNNING delay is pullTimeDelayMillsWhenException as configured", () => {
    const { ctx, c, pr } = setup({ config: { pullTimeDelayMillsWhenException: 3000 } });
    c.state = "SHUTDOWN_ALREADY";
    c.pull.pullMessage(pr);
    expect(ctx.records("pullLater").map((r) => r.delayMs)).toEqual([3000]);
  });

  it("pullMessage: a paused consumer re-schedules the request after 1000 ms and counts a paused event", () => {
    const { ctx, c, pr, stats } = setup();
    c.paused = true;
    c.pull.pullMessage(pr);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[1000, LATER_REASON.paused]]);
    expect(stats.flowControl[FLOW_KIND.paused]).toBe(1);
    expect(c.queueFlowControlTimes).toBe(0);
    expect(ctx.records("pullSent")).toEqual([]);
    expect(ctx.requests).toEqual([]);
  });

  it("pullMessage: the RUNNING check comes before the paused check", () => {
    const { ctx, c, pr, stats } = setup();
    c.state = "CREATE_JUST";
    c.paused = true;
    c.pull.pullMessage(pr);
    expect(ctx.records("pullLater").map((r) => r.reason)).toEqual([LATER_REASON.notRunning]);
    expect(stats.flowControl[FLOW_KIND.paused]).toBe(0);
  });

  it("pullMessage: more than pullThresholdForQueue cached re-schedules the request after 50 ms and counts queueFlowControlTimes", () => {
    const { ctx, c, pr, pq, mq, stats } = setup();
    cache(pq, range(0, 1001), 10);
    c.pull.pullMessage(pr);
    expect(ctx.records("flowControl")).toEqual([
      { tUs: T_PULL, type: "flowControl", mq, consumer: 0, kind: FLOW_KIND.count, value: 1001 },
    ]);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[50, LATER_REASON.flowControl]]);
    expect(c.queueFlowControlTimes).toBe(1);
    expect(c.queueMaxSpanFlowControlTimes).toBe(0);
    expect(stats.flowControl[FLOW_KIND.count]).toBe(1);
    expect(ctx.records("pullSent")).toEqual([]);
    // The request comes back after exactly 50 ms (and is flow-controlled again, the cache being unchanged).
    ctx.runTimers(c, T_PULL + 50 * MS - 1);
    expect(ctx.records("flowControl")).toHaveLength(1);
    ctx.runTimers(c, T_PULL + 50 * MS);
    expect(ctx.records("flowControl").map((r) => r.tUs)).toEqual([T_PULL, T_PULL + 50 * MS]);
    expect(c.queueFlowControlTimes).toBe(2);
  });

  it("pullMessage: exactly pullThresholdForQueue cached still pulls (the comparison is strict)", () => {
    const { ctx, c, pr, pq } = setup();
    cache(pq, range(0, 1000), 10);
    c.pull.pullMessage(pr);
    expect(ctx.records("pullSent")).toHaveLength(1);
    expect(ctx.records("flowControl")).toEqual([]);
    expect(c.queueFlowControlTimes).toBe(0);
  });

  it("pullMessage: 100 MiB + 1 byte cached does not trip size flow control (floor(bytes / MiB) = 100)", () => {
    const { ctx, c, pr, pq } = setup();
    cache(pq, [0], 100 * MiB + 1);
    c.pull.pullMessage(pr);
    expect(ctx.records("pullSent")).toHaveLength(1);
    expect(ctx.records("flowControl")).toEqual([]);
  });

  it("pullMessage: 101 MiB cached re-schedules the request after 50 ms and counts queueFlowControlTimes", () => {
    const { ctx, c, pr, pq, mq, stats } = setup();
    cache(pq, [0], 101 * MiB);
    c.pull.pullMessage(pr);
    expect(ctx.records("flowControl")).toEqual([
      { tUs: T_PULL, type: "flowControl", mq, consumer: 0, kind: FLOW_KIND.size, value: 101 },
    ]);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[50, LATER_REASON.flowControl]]);
    expect(c.queueFlowControlTimes).toBe(1);
    expect(stats.flowControl[FLOW_KIND.size]).toBe(1);
    expect(ctx.records("pullSent")).toEqual([]);
  });

  it("pullMessage: a span above consumeConcurrentlyMaxSpan re-schedules the request after 50 ms and counts queueMaxSpanFlowControlTimes", () => {
    const { ctx, c, pr, pq, mq, stats } = setup();
    cache(pq, [0, 2001], 10);
    c.pull.pullMessage(pr);
    expect(ctx.records("flowControl")).toEqual([
      { tUs: T_PULL, type: "flowControl", mq, consumer: 0, kind: FLOW_KIND.span, value: 2001 },
    ]);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[50, LATER_REASON.flowControl]]);
    expect(c.queueMaxSpanFlowControlTimes).toBe(1);
    expect(c.queueFlowControlTimes).toBe(0);
    expect(stats.flowControl[FLOW_KIND.span]).toBe(1);
  });

  it("pullMessage: a span of exactly consumeConcurrentlyMaxSpan still pulls", () => {
    const { ctx, c, pr, pq } = setup();
    cache(pq, [0, 2000], 10);
    c.pull.pullMessage(pr);
    expect(ctx.records("pullSent")).toHaveLength(1);
    expect(c.queueMaxSpanFlowControlTimes).toBe(0);
  });

  it("pullMessage: count is checked before size, and size before span", () => {
    // The DefaultMQPushConsumerImplTest settings (§15.5): thresholds count 2, size 1 MiB, span 2.
    const config = { pullThresholdForQueue: 2, pullThresholdSizeForQueue: 1, consumeConcurrentlyMaxSpan: 2 };
    const kindOf = (offsets: number[], bodyBytes: number) => {
      const { ctx, c, pr, pq } = setup({ config });
      cache(pq, offsets, bodyBytes);
      c.pull.pullMessage(pr);
      expect(ctx.records("pullLater")).toHaveLength(1);
      return ctx.records("flowControl").map((r) => r.kind);
    };
    expect(kindOf([0, 1, 10], MiB), "3 cached, 3 MiB, span 10").toEqual([FLOW_KIND.count]);
    expect(kindOf([0, 10], 1.5 * MiB), "2 cached, 3 MiB, span 10").toEqual([FLOW_KIND.size]);
    expect(kindOf([0, 10], 1), "2 cached, 2 bytes, span 10").toEqual([FLOW_KIND.span]);
  });

  it("pullMessage: a topic without subscription data re-schedules the request after 1000 ms", () => {
    const b = tinyConsumer();
    b.c.state = "RUNNING"; // but no subscription: the consumer was never started
    const pr = manualPullRequest(b);
    b.c.pull.pullMessage(pr);
    expect(b.ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[1000, LATER_REASON.noSubscription]]);
    expect(b.ctx.records("pullSent")).toEqual([]);
    expect(b.ctx.requests).toEqual([]);
  });

  it("pullMessage: a broker refusing the connection makes pullKernelImpl throw: the request is re-scheduled after 1000 ms (§2 step 11)", () => {
    const { ctx, c, pr, stats } = setup({}, 3);
    ctx.down.add(BROKER_A);
    c.pull.pullMessage(pr);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[1000, LATER_REASON.exception]]);
    expect(ctx.records("pullSent")).toEqual([]);
    expect(ctx.requests).toEqual([]);
    expect(pr.inFlight).toBe(false);
    expect(stats.pulls.exception).toBe(1);
  });

  it("pullMessage: a pull that passes every check sends reqOffset = nextOffset, maxMsgNums = pullBatchSize and a 15000 ms suspend timeout, and waits 30 s for the answer", () => {
    const { ctx, c, pr, mq } = setup({ config: { pullBatchSize: 16 } }, 42);
    c.setSubVersion(TOPIC_T, 1234);
    c.pull.pullMessage(pr);
    const sent = ctx.lastRequest(RequestCode.PULL_MESSAGE);
    const msg = sent.msg as PullMessageRequest;
    expect([sent.to, sent.cookie, sent.sentUs, sent.timeoutUs]).toEqual([BROKER_A, pr.id, T_PULL, 30_000 * MS]);
    expect([msg.consumerGroup, msg.mq, msg.queueOffset, msg.maxMsgNums, msg.suspendTimeoutMillis, msg.subVersion]).toEqual([0, mq, 42, 16, 15000, 1234]);
    expect(msg.sysFlag).toBe(PullSysFlag.FLAG_SUSPEND);
    expect(msg.subscription).toBeNull();
    expect(pr.reqOffset).toBe(42);
    expect(pr.reqSentUs).toBe(T_PULL);
    expect(pr.inFlight).toBe(true);
    expect(ctx.records("pullSent")).toEqual([{ tUs: T_PULL, type: "pullSent", mq, consumer: 0, offset: 42, commitOffset: -1 }]);
    expect(ctx.records("pullLater")).toEqual([]);
    expect(ctx.requests).toHaveLength(1); // the PULL_MESSAGE RPC, and nothing else
    expect(ctx.timers).toEqual([]);
  });

  it("pullMessage: the in-memory offset is piggy-backed as commitOffset only when it is > 0 (§2.2)", () => {
    const sentCommit = (stored: number | null) => {
      const { ctx, c, pr, mq } = setup({}, 5);
      if (stored !== null) c.offsetStore.updateOffset(mq, stored, false);
      c.pull.pullMessage(pr);
      const msg = ctx.lastRequest(RequestCode.PULL_MESSAGE).msg as PullMessageRequest;
      return [(msg.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0, msg.commitOffset, ctx.records("pullSent")[0]!.commitOffset];
    };
    expect(sentCommit(null), "no entry").toEqual([false, 0, -1]);
    expect(sentCommit(0), "entry 0").toEqual([false, 0, -1]);
    expect(sentCommit(17), "entry 17").toEqual([true, 17, 17]);
  });
});

describe("pullMessage: the subscription carried by the pull (§2.2, §13.1 step 6)", () => {
  function pullOnce(s: TinyScenario) {
    const { ctx, c, pr } = setup(s, 0);
    c.pull.pullMessage(pr);
    return ctx.lastRequest(RequestCode.PULL_MESSAGE).msg as PullMessageRequest;
  }

  it("pullMessage: without postSubscriptionWhenPull the pull carries no subscription (the broker must have it from a heartbeat)", () => {
    const msg = pullOnce({ tags: { A: 1, B: 1 }, subscribe: "A" });
    expect(msg.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION).toBe(0);
    expect(msg.subscription).toBeNull();
  });

  it("pullMessage: with postSubscriptionWhenPull the pull sets FLAG_SUBSCRIPTION and carries the expression's tag set (null for \"*\")", () => {
    const tagged = pullOnce({ tags: { A: 1, B: 1, C: 1 }, subscribe: "A || C", config: { postSubscriptionWhenPull: true } });
    expect(tagged.sysFlag).toBe(PullSysFlag.FLAG_SUSPEND | PullSysFlag.FLAG_SUBSCRIPTION);
    expect([...tagged.subscription!].sort()).toEqual([0, 2]);
    const all = pullOnce({ config: { postSubscriptionWhenPull: true } });
    expect(all.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION).toBe(PullSysFlag.FLAG_SUBSCRIPTION);
    expect(all.subscription).toBeNull();
  });
});

// ------------------------------------------------------------------------------------------ §4.3

describe("PullCallback FOUND (§4.3)", () => {
  it("FOUND: moves nextOffset to nextBeginOffset, caches and submits the messages, and pulls again at once", () => {
    const { b, ctx, pr, pq, mq, stats } = setup();
    answerPull(b, pr, ResponseCode.SUCCESS, { nextBeginOffset: 4, offsets: [0, 1, 2, 3], maxOffset: 64 });
    expect(pr.nextOffset).toBe(4);
    expect(pq.msgCount).toBe(4);
    expect(pq.msgSize).toBe(4 * 1024);
    expect(pq.msgAccCnt).toBe(64 - 3);
    expect(ctx.records("consumeStart", { mq }).map((r) => r.offset)).toEqual([0, 1, 2, 3]);
    expect(ctx.records("pullSent")).toEqual([{ tUs: T_PULL, type: "pullSent", mq, consumer: 0, offset: 4, commitOffset: -1 }]);
    expect(pullsSent(b)).toEqual([[T_PULL, 4]]);
    expect(ctx.records("pullLater")).toEqual([]);
    expect(stats.pulls.found).toBe(1);
    expect([stats.pqCountMax, stats.pqBytesMax]).toEqual([4, 4 * 1024]);
  });

  it("FOUND: with pullInterval > 0 re-schedules the request after pullInterval ms", () => {
    const { b, ctx, c, pr, pq } = setup({ config: { pullInterval: 250 } });
    answerPull(b, pr, ResponseCode.SUCCESS, { nextBeginOffset: 2, offsets: [0, 1], maxOffset: 64 });
    expect(pq.msgCount).toBe(2);
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[250, LATER_REASON.pullInterval]]);
    expect(ctx.records("pullSent")).toEqual([]);
    ctx.runTimers(c, T_PULL + 250 * MS - 1);
    expect(ctx.records("pullSent")).toEqual([]);
    ctx.runTimers(c, T_PULL + 250 * MS);
    expect(ctx.records("pullSent").map((r) => [r.tUs, r.offset])).toEqual([[T_PULL + 250 * MS, 2]]);
  });

  it("FOUND: an empty message list pulls again at once from nextBeginOffset without touching the cache", () => {
    const { b, ctx, pr, pq, mq } = setup();
    answerPull(b, pr, ResponseCode.SUCCESS, { nextBeginOffset: 10 });
    expect(pq.msgCount).toBe(0);
    expect(ctx.records("consumeStart")).toEqual([]);
    expect(ctx.records("pullSent")).toEqual([{ tUs: T_PULL, type: "pullSent", mq, consumer: 0, offset: 10, commitOffset: -1 }]);
  });

  it("FOUND: a response for a dropped ProcessQueue still fills it, its tasks do nothing and the request dies, releasing the cache", () => {
    const { b, ctx, pr, pq } = setup();
    pq.dropped = true;
    answerPull(b, pr, ResponseCode.SUCCESS, { nextBeginOffset: 3, offsets: [0, 1, 2], maxOffset: 64 });
    expect(pq.msgCount).toBe(3); // no dropped check in the callback
    expect(pq.firstKey).toBe(-1); // the next pullMessage ended the request and gave its memory back
    expect(ctx.records("consumeStart")).toEqual([]);
    expect(ctx.records("pullSent")).toEqual([]);
    expect(ctx.records("pullLater")).toEqual([]);
    expect(ctx.requests).toEqual([]);
    expect(ctx.timers).toEqual([]);
  });
});

describe.each([
  ["NO_NEW_MSG", ResponseCode.PULL_NOT_FOUND, "noNewMsg"],
  ["NO_MATCHED_MSG", ResponseCode.PULL_RETRY_IMMEDIATELY, "noMatchedMsg"],
] as const)("PullCallback %s (§4.3)", (name, code, counter) => {
  it(`${name}: moves nextOffset, stores it in memory (increase-only) when nothing is cached, and pulls again at once`, () => {
    const { b, ctx, c, pr, mq, stats } = setup({}, 12);
    answerPull(b, pr, code, { nextBeginOffset: 30 });
    expect(pr.nextOffset).toBe(30);
    expect(c.offsetStore.readOffset(mq)).toBe(30);
    expect(ctx.records("offsetUpdate")).toEqual([{ tUs: T_PULL, type: "offsetUpdate", mq, consumer: 0, offset: 30, increaseOnly: 1 }]);
    expect(ctx.records("pullSent")).toEqual([{ tUs: T_PULL, type: "pullSent", mq, consumer: 0, offset: 30, commitOffset: 30 }]);
    const msg = ctx.lastRequest(RequestCode.PULL_MESSAGE).msg as PullMessageRequest;
    expect([msg.queueOffset, msg.commitOffset, msg.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET]).toEqual([30, 30, PullSysFlag.FLAG_COMMIT_OFFSET]);
    expect(ctx.records("pullLater")).toEqual([]);
    expect(stats.pulls[counter]).toBe(1);
  });

  it(`${name}: leaves the offset store alone while messages are cached (correctTagsOffset)`, () => {
    const { b, ctx, c, pr, pq, mq } = setup({}, 12);
    cache(pq, [5], 10);
    c.offsetStore.updateOffset(mq, 5, false);
    answerPull(b, pr, code, { nextBeginOffset: 30 });
    expect(c.offsetStore.readOffset(mq)).toBe(5);
    expect(ctx.records("offsetUpdate")).toEqual([]);
    expect(ctx.records("pullSent").map((r) => r.offset)).toEqual([30]);
  });

  it(`${name}: never moves the in-memory offset backwards`, () => {
    const { b, ctx, c, pr, mq } = setup({}, 40);
    c.offsetStore.updateOffset(mq, 50, false);
    answerPull(b, pr, code, { nextBeginOffset: 40 });
    expect(c.offsetStore.readOffset(mq)).toBe(50);
    expect(ctx.records("pullSent").map((r) => [r.offset, r.commitOffset])).toEqual([[40, 50]]);
  });
});

describe("PullCallback OFFSET_ILLEGAL (§4.3)", () => {
  it("OFFSET_ILLEGAL (4.9): drops the pq at once, schedules nothing but the offset fix, and runs the fix 10 s later with a plain updateOffset", () => {
    const { b, ctx, c, pr, pq, mq, stats } = setup({ profile: "4.9" }, 7);
    c.offsetStore.updateOffset(mq, 100, false);
    answerPull(b, pr, ResponseCode.PULL_OFFSET_MOVED, { nextBeginOffset: 40 });
    expect(pq.dropped).toBe(true);
    expect(pr.nextOffset).toBe(40);
    expect(stats.pulls.offsetIllegal).toBe(1);
    expect(ctx.records("pullLater")).toEqual([]);
    // The fix; the request itself is not re-enqueued.
    expect(ctx.pendingTimers().map((t) => [t.code, t.atUs, t.arg])).toEqual([[ClientTimer.OFFSET_ILLEGAL_FIX, T_PULL + 10_000 * MS, pr.id]]);
    expect(ctx.requests).toEqual([]);
    ctx.runTimers(c, T_PULL + 10_000 * MS - 1);
    expect(c.offsetStore.readOffset(mq)).toBe(100);
    ctx.runTimers(c, T_PULL + 10_000 * MS);
    // updateOffset(mq, 40, increaseOnly = false): the offset may go down.
    expect(c.offsetStore.readOffset(mq)).toBe(40);
    expect(ctx.records("offsetUpdate").at(-1)).toEqual({ tUs: T_PULL + 10_000 * MS, type: "offsetUpdate", mq, consumer: 0, offset: 40, increaseOnly: 0 });
    expect(b.observer.skipped).toEqual([{ group: 0, mq, offset: 40 }]);
    // Not frozen: a later update still applies.
    c.updateOffset(mq, 45, false);
    expect(c.offsetStore.readOffset(mq)).toBe(45);
    // No rebalance is woken in 4.9.
    ctx.runTimers(c, T_PULL + 11_000 * MS);
    expect(ctx.records("rebalance")).toEqual([]);
    expect(ctx.pendingTimers(ClientTimer.REBALANCE)).toEqual([]);
  });

  it("OFFSET_ILLEGAL (5.x): runs the fix at once, freezing the offset until removeOffset, and wakes the rebalance", () => {
    const { b, ctx, c, pr, pq, mq } = setup({ profile: "5.x" }, 7);
    c.offsetStore.updateOffset(mq, 100, false);
    answerPull(b, pr, ResponseCode.PULL_OFFSET_MOVED, { nextBeginOffset: 40 });
    expect(pq.dropped).toBe(true);
    expect(ctx.records("pullLater")).toEqual([]);
    expect(ctx.pendingTimers().map((t) => [t.code, t.atUs])).toEqual([[ClientTimer.OFFSET_ILLEGAL_FIX, T_PULL]]);
    ctx.runTimers(c, T_PULL);
    expect(c.offsetStore.readOffset(mq)).toBe(40);
    expect(ctx.records("offsetUpdate").at(-1)).toMatchObject({ tUs: T_PULL, offset: 40 });
    // This pq was never in the rebalance table, so nothing removed the frozen entry.
    c.updateOffset(mq, 45, false);
    c.updateOffset(mq, 60, true);
    expect(c.offsetStore.readOffset(mq)).toBe(40);
    c.offsetStore.removeOffset(mq);
    c.updateOffset(mq, 45, false);
    expect(c.offsetStore.readOffset(mq)).toBe(45);
    expect(ctx.records("rebalance").map((r) => r.tUs)).toEqual([T_PULL]);
  });

  it("OFFSET_ILLEGAL: the fix persists the offset to the queue's broker, whatever it was before", () => {
    for (const profile of ["4.9", "5.x"] as const) {
      const { b, ctx, c, pr, mq } = setup({ profile }, 7);
      c.offsetStore.updateOffset(mq, 100, false);
      answerPull(b, pr, ResponseCode.PULL_OFFSET_MOVED, { nextBeginOffset: 40 });
      ctx.runTimers(c, T_PULL + 10_100 * MS);
      const fixUs = T_PULL + (profile === "4.9" ? 10_000 : 0) * MS;
      expect(offsetCommits(b), profile).toEqual([[fixUs, mq, 40]]);
      expect(sentOf(b, RequestCode.UPDATE_CONSUMER_OFFSET).map((s) => s.to), profile).toEqual([BROKER_A]);
    }
  });
});

describe("OFFSET_ILLEGAL through a rebalance: queue removed and recreated at the fixed offset (§4.3, §10.3)", () => {
  // 100 messages born 36 s apart over the hour before t = 0 (offset i at −3600 s + 36 i s). At the first
  // broker access (a few ms after 0) 30 min retention has deleted every message born before now − 1800 s,
  // i.e. offsets 0–50, so minOffset = 51. The broker played here knows just that: QUERY_CONSUMER_OFFSET
  // finds nothing stored and, the queue being truncated, answers QUERY_NOT_FOUND; CONSUME_FROM_FIRST_OFFSET
  // then starts at 0 ("fixed by OFFSET_ILLEGAL"), and a pull below 51 is answered PULL_OFFSET_MOVED with
  // nextBeginOffset 51. Later queries answer what the consumer committed.
  const scenario = (profile: "4.9" | "5.x"): TinyScenario => ({
    profile,
    backlog: 100,
    retention: "30m",
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
  });

  function run(profile: "4.9" | "5.x") {
    const b = tinyConsumer(scenario(profile));
    const mq = queueOfT(b);
    b.c.start();
    playBroker(b, 25_000 * MS, {
      queue: (q) => (q === mq ? { minOffset: 51, maxOffset: 100 } : {}),
      pull: (req) => (req.mq === mq && req.queueOffset < 51
        ? pullResponse(mq, ResponseCode.PULL_OFFSET_MOVED, { nextBeginOffset: 51, minOffset: 51, maxOffset: 100 })
        : null),
    });
    const moved = b.ctx.records("pullResult", { mq, code: ResponseCode.PULL_OFFSET_MOVED })[0]!;
    return { b, ctx: b.ctx, mq, moved };
  }

  it("4.9: the pq is removed 10 s after the answer, offset 51 is committed to the broker, and the queue returns at the next periodic rebalance", () => {
    const { b, ctx, mq, moved } = run("4.9");
    expect(moved.nextBeginOffset).toBe(51);
    const fixUs = (moved.tUs as number) + 10_000 * MS;
    expect(ctx.records("pqDropped", { mq })).toEqual([{ tUs: fixUs, type: "pqDropped", mq, consumer: 0, reason: DROP_REASON.offsetIllegal }]);
    // The fix persists the offset, and removeUnnecessaryMessageQueue persists it again before forgetting it.
    expect(offsetCommits(b).filter(([, q]) => q === mq)).toEqual([[fixUs, mq, 51], [fixUs, mq, 51]]);
    const created = ctx.records("pqCreated", { mq });
    expect(created.map((r) => r.nextOffset)).toEqual([0, 51]);
    // No pull on the queue between the answer and the recreation: the request died with its pq.
    const between = pullsSent(b, mq).filter(([t]) => t > (moved.tUs as number) && t < (created[1]!.tUs as number));
    expect(between).toEqual([]);
    // Not woken: the recreation is the periodic rebalance, 20 s after the first one.
    const firstRebalance = ctx.records("rebalance")[0]!.tUs;
    expect(created[1]!.tUs).toBeGreaterThanOrEqual(firstRebalance + 20_000 * MS);
    expect(pullsSent(b, mq).find(([t]) => t >= (created[1]!.tUs as number))![1]).toBe(51);
  });

  it("5.x: the pq is removed at the answer, the rebalance is woken and the queue returns within the 1 s floor plus the 500 ms dispatch delay", () => {
    const { b, ctx, mq, moved } = run("5.x");
    expect(moved.nextBeginOffset).toBe(51);
    expect(ctx.records("pqDropped", { mq })).toEqual([{ tUs: moved.tUs, type: "pqDropped", mq, consumer: 0, reason: DROP_REASON.offsetIllegal }]);
    const created = ctx.records("pqCreated", { mq });
    expect(created.map((r) => r.nextOffset)).toEqual([0, 51]);
    expect(created[1]!.tUs).toBeLessThan((moved.tUs as number) + 1100 * MS);
    const later = ctx.records("pullLater", { mq }).filter((r) => r.tUs === created[1]!.tUs);
    expect(later.map((r) => [r.delayMs, r.reason])).toEqual([[500, LATER_REASON.newQueue]]);
    const nextPull = pullsSent(b, mq).find(([t]) => t > (moved.tUs as number))!;
    expect(nextPull).toEqual([(created[1]!.tUs as number) + 500 * MS, 51]);
  });
});

// ------------------------------------------------------------------------------------------ §4.4

describe("PullCallback onException (§4.4)", () => {
  it.each([
    ["SYSTEM_ERROR", ResponseCode.SYSTEM_ERROR],
    ["SYSTEM_BUSY", ResponseCode.SYSTEM_BUSY],
    ["TOPIC_NOT_EXIST", ResponseCode.TOPIC_NOT_EXIST],
    ["SUBSCRIPTION_NOT_EXIST", ResponseCode.SUBSCRIPTION_NOT_EXIST],
    ["SUBSCRIPTION_NOT_LATEST", ResponseCode.SUBSCRIPTION_NOT_LATEST],
  ])("onException: broker code %s re-schedules the request after 1000 ms and keeps nextOffset", (_name, code) => {
    const { b, ctx, pr, mq, stats } = setup({}, 12);
    answerPull(b, pr, code, { nextBeginOffset: 99 });
    expect(ctx.records("pullLater")).toEqual([
      { tUs: T_PULL, type: "pullLater", mq, consumer: 0, delayMs: 1000, reason: LATER_REASON.exception },
    ]);
    expect(pr.nextOffset).toBe(12);
    expect(stats.pulls.exception).toBe(1);
    expect(ctx.records("pullSent")).toEqual([]);
  });

  it("onException: a pull that gets no answer times out 30 s after it was sent and re-schedules after 1000 ms from the same offset", () => {
    const { b, ctx, c, pr, mq, stats } = setup({}, 12);
    c.pull.pullMessage(pr);
    const sent = ctx.lastRequest(RequestCode.PULL_MESSAGE);
    expect(sent.timeoutUs).toBe(30_000 * MS);
    ctx.nowUs = sent.sentUs + sent.timeoutUs;
    deliver(b, sent, null);
    expect(ctx.records("pullResult")).toEqual([{ tUs: T_PULL + 30_000 * MS, type: "pullResult", mq, consumer: 0, code: -1, nextBeginOffset: -1 }]);
    expect(ctx.records("pullLater").map((r) => [r.tUs, r.delayMs, r.reason])).toEqual([[T_PULL + 30_000 * MS, 1000, LATER_REASON.exception]]);
    expect(stats.pulls.exception).toBe(1);
    expect([pr.inFlight, pr.nextOffset, pr.pq.msgCount]).toEqual([false, 12, 0]);
    ctx.runTimers(c, T_PULL + 31_000 * MS);
    expect(pullsSent(b)).toEqual([[T_PULL, 12], [T_PULL + 31_000 * MS, 12]]);
  });

  it("onException: broker FLOW_CONTROL (215) re-schedules the request after 20 ms", () => {
    const { b, ctx, c, pr } = setup({}, 12);
    answerPull(b, pr, ResponseCode.FLOW_CONTROL, { nextBeginOffset: 0 });
    expect(ctx.records("pullLater").map((r) => [r.delayMs, r.reason])).toEqual([[20, LATER_REASON.brokerFlowControl]]);
    ctx.runTimers(c, T_PULL + 20 * MS - 1);
    expect(ctx.records("pullSent")).toEqual([]);
    ctx.runTimers(c, T_PULL + 20 * MS);
    expect(ctx.records("pullSent").map((r) => [r.tUs, r.offset])).toEqual([[T_PULL + 20 * MS, 12]]);
  });
});

// ------------------------------------------------------------------------------------------ §12.4

describe("start (§12.4)", () => {
  it("start: subscribes T and %RETRY%G at subVersion = now, heartbeats every broker with a request timed out after mqClientApiTimeout, and sets its periodic timers", () => {
    const b = tinyConsumer({ brokers: 2 }, { nowUs: 3000 * MS });
    const { ctx, c, routes } = b;
    c.start();
    expect(c.state).toBe("RUNNING");
    const retry = routes.retryTopic(0);
    expect(c.subscribedTopics).toEqual([retry, TOPIC_T]); // by name: "%RETRY%G" < "T"
    expect([c.subVersionOf(TOPIC_T), c.subVersionOf(retry)]).toEqual([3000, 3000]);
    const hb = requestsOf<HeartbeatRequest>(b, RequestCode.HEART_BEAT);
    expect(hb.map((r) => [r.to, r.timeoutUs, r.msg.clientId, r.msg.consumerGroup])).toEqual([
      [0, 3000 * MS, c.clientId, 0],
      [1, 3000 * MS, c.clientId, 0],
    ]);
    expect(hb[0]!.msg.subscriptions.map((s) => [s.topic, s.subVersion])).toEqual([[retry, 3000], [TOPIC_T, 3000]]);
    // The rebalance service's own wait (20 s), persist after 10 s, heartbeat after 1 s, cleanExpiredMsg after consumeTimeout.
    expect(ctx.pendingTimers().map((t) => [t.code, t.atUs - 3000 * MS])).toEqual([
      [ClientTimer.HEARTBEAT, 1000 * MS],
      [ClientTimer.PERSIST_ALL, 10_000 * MS],
      [ClientTimer.REBALANCE, 20_000 * MS],
      [ClientTimer.CLEAN_EXPIRED, 15 * 60_000 * MS],
    ]);
  });

  it.each(["4.9", "5.x"] as const)("start (%s): cleanExpiredMsg runs every consumeTimeout minutes — 5.x has no separate scan period (verified in 5.0.0 … HEAD: scheduleAtFixedRate(consumeTimeout, consumeTimeout, MINUTES))", (profile) => {
    const b = tinyConsumer({ profile, config: { consumeTimeout: 2 } });
    b.c.start();
    expect(b.ctx.pendingTimers(ClientTimer.CLEAN_EXPIRED).map((t) => t.atUs)).toEqual([2 * 60_000 * MS]);
  });

  it("start: the first rebalance waits for every broker's heartbeat answer", () => {
    const b = tinyConsumer({ brokers: 2 });
    const { ctx, c } = b;
    c.start();
    const [hbA, hbB] = requestsOf(b, RequestCode.HEART_BEAT);
    ctx.nowUs = 2 * MS;
    deliver(b, hbA!, new SimpleResponse(ResponseCode.SUCCESS));
    expect(ctx.pendingTimers(ClientTimer.REBALANCE).map((t) => t.atUs)).toEqual([20_000 * MS]);
    ctx.nowUs = 5 * MS;
    deliver(b, hbB!, new SimpleResponse(ResponseCode.SUCCESS));
    expect(ctx.pendingTimers(ClientTimer.REBALANCE).map((t) => t.atUs)).toEqual([5 * MS]);
  });

  it.each([
    [3000, undefined],
    [500, { mqClientApiTimeout: 500 }],
  ])("start: a heartbeat that gets no answer counts as done at its time-out (mqClientApiTimeout %i ms): the rebalance then runs (4.9 even if heartbeats failed)", (timeoutMs, config) => {
    const b = tinyConsumer({ brokers: 2, config });
    b.c.start();
    playBroker(b, timeoutMs * MS + 100 * MS, { lose: (r) => r.msg.code === RequestCode.HEART_BEAT && r.to === 1 });
    const lists = requestsOf(b, RequestCode.GET_CONSUMER_LIST_BY_GROUP);
    expect(lists[0]!.sentUs).toBe(timeoutMs * MS);
    expect(b.ctx.records("rebalance").map((r) => r.tUs)).toEqual([timeoutMs * MS + 8 * MS]);
  });
});

describe("shutdown and crash", () => {
  function started() {
    const b = tinyConsumer({ queues: 2 });
    b.c.start();
    playBroker(b, 100 * MS);
    return b;
  }

  it("shutdown (broker spec §8.2): persists the offsets of the assigned queues, unregisters from every broker (a synchronous RPC), then drops every ProcessQueue and stops", () => {
    const b = started();
    const { ctx, c } = b;
    const [q0, q1] = [queueOfT(b, 0), queueOfT(b, 1)];
    c.offsetStore.updateOffset(q0, 8, false);
    const pqs = c.rebalance.processQueues().map(([, pq]) => pq);
    ctx.nowUs = 200 * MS;
    c.shutdown();
    // Steps 1–3 at once (await 0): the persist, then UNREGISTER_CLIENT; still RUNNING until it is answered.
    expect(offsetCommits(b)).toEqual([[200 * MS, q0, 8]]);
    const unreg = requestsOf<UnregisterClientRequest>(b, RequestCode.UNREGISTER_CLIENT);
    expect(unreg.map((s) => [s.to, s.msg.clientId, s.msg.consumerGroup, s.sentUs])).toEqual([[BROKER_A, c.clientId, 0, 200 * MS]]);
    expect([c.state, pqs.some((pq) => pq.dropped)]).toEqual(["RUNNING", false]);
    playBroker(b, 300 * MS);
    // Steps 4 and 5 when the answer is back (one round trip).
    expect(pqs.every((pq) => pq.dropped)).toBe(true);
    expect(b.observer.closed.map((x) => x.mq).sort((a, z) => a - z)).toEqual([b.routes.retryQueue(0, 0), q0, q1].sort((a, z) => a - z));
    expect([c.state, c.alive, c.rebalance.queueCount]).toEqual(["SHUTDOWN_ALREADY", false, 0]);
    expect(ctx.pendingTimers(ClientTimer.REBALANCE)).toEqual([]);
  });

  it("crash: connectionClosed tells every broker the channel closed; vanished sends nothing; neither persists offsets", () => {
    for (const mode of ["connectionClosed", "vanished"] as const) {
      const b = started();
      b.c.offsetStore.updateOffset(queueOfT(b), 8, false);
      b.c.crash(mode);
      const closed = sentOf<UnregisterClientRequest>(b, RequestCode.CHANNEL_CLOSED).map((s) => [s.to, s.msg.clientId]);
      expect(closed, mode).toEqual(mode === "connectionClosed" ? [[BROKER_A, b.c.clientId]] : []);
      expect(offsetCommits(b), mode).toEqual([]);
      expect([b.c.state, b.c.alive], mode).toEqual(["SHUTDOWN_ALREADY", false]);
    }
  });
});

// ------------------------------------------------------------------------------------------ routing

describe("onResponse / onTimeout: answers routed by cookie", () => {
  it("HEART_BEAT: an answer when no start heartbeat is awaited wakes nothing", () => {
    const b = tinyConsumer();
    b.c.start();
    playBroker(b, 100 * MS);
    const timersBefore = b.ctx.timers.length;
    b.c.onResponse(RequestCode.HEART_BEAT, 0, new SimpleResponse(ResponseCode.SUCCESS));
    b.c.onTimeout(RequestCode.HEART_BEAT, 0);
    expect(b.ctx.timers).toHaveLength(timersBefore);
  });

  it("NOTIFY_CONSUMER_IDS_CHANGED wakes the rebalance at once", () => {
    const b = tinyConsumer();
    b.c.start();
    playBroker(b, 100 * MS);
    b.c.receive(new NotifyConsumerIdsChangedRequest(0));
    expect(b.ctx.pendingTimers(ClientTimer.REBALANCE).map((t) => t.atUs)).toEqual([100 * MS]);
  });

  it("a stopped incarnation ignores every answer, time-out, timer and notification: it sends nothing and sets no timer", () => {
    const b = tinyConsumer();
    const { ctx, c } = b;
    c.start();
    ctx.nowUs = 2 * MS;
    c.shutdown();
    c.onResponse(RequestCode.UNREGISTER_CLIENT, 0, new SimpleResponse(ResponseCode.SUCCESS)); // the last step
    expect(c.alive).toBe(false);
    const [requests, sent, timers] = [ctx.requests.length, ctx.sent.length, ctx.timers.length];
    c.onResponse(RequestCode.HEART_BEAT, 0, new SimpleResponse(ResponseCode.SUCCESS));
    c.onResponse(RequestCode.GET_CONSUMER_LIST_BY_GROUP, 1, new GetConsumerListResponse(ResponseCode.SUCCESS, [c.clientId]));
    c.onResponse(RequestCode.QUERY_CONSUMER_OFFSET, 65536, new QueryConsumerOffsetResponse());
    c.onTimeout(RequestCode.CONSUMER_SEND_MSG_BACK, 0);
    c.receive(new NotifyConsumerIdsChangedRequest(0));
    for (const code of [ClientTimer.REBALANCE, ClientTimer.PERSIST_ALL, ClientTimer.HEARTBEAT, ClientTimer.CLEAN_EXPIRED]) c.onTimer(code, 0);
    expect([ctx.requests.length, ctx.sent.length, ctx.timers.length]).toEqual([requests, sent, timers]);
    expect(ctx.records("rebalance")).toEqual([]);
  });
});

describe("a dead incarnation's pull in flight (PullMessageService#abandon)", () => {
  /** A consumer whose T queue holds 3 hung messages and a pull (offset 3) in flight; then it dies. */
  function deadWithPull() {
    const b = tinyConsumer({ backlog: 3, listener: { hangFraction: 1 } });
    b.c.start();
    playBroker(b, 100 * MS, { pull: serveBacklog(b) });
    const mq = queueOfT(b);
    const pq = tableQueue(b, mq);
    const pr = b.c.rebalance.pullRequestOf(mq)!;
    const inFlight = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).find((r) => r.msg.mq === mq && r.msg.queueOffset === 3)!;
    expect([pq.msgCount, pr.inFlight]).toEqual([3, true]);
    b.c.crash("vanished");
    const before = { requests: b.ctx.requests.length, timers: b.ctx.timers.length, records: b.ctx.trace.captured.length, pulls: { ...b.stats.pulls } };
    return { b, pq, pr, inFlight, before };
  }

  it("abandon: the answer of a pull reaching a dead incarnation ends the pull: nothing is cached or consumed, the ProcessQueue's memory is released", () => {
    const { b, pq, pr, inFlight, before } = deadWithPull();
    b.ctx.nowUs = 200 * MS;
    deliver(b, inFlight, pullResponse(pr.mq, ResponseCode.SUCCESS, { nextBeginOffset: 5, offsets: [3, 4] }));
    expect(pr.inFlight).toBe(false);
    expect(pq.dropped).toBe(true);
    expect(pq.msgCount).toBe(3); // the counters it died with; nothing put
    expect(pq.firstKey).toBe(-1); // the ring is given back
    expect(pr.nextOffset).toBe(3);
    expect({ requests: b.ctx.requests.length, timers: b.ctx.timers.length, records: b.ctx.trace.captured.length, pulls: b.stats.pulls }).toEqual(before);
  });

  it("abandon: the time-out of a pull reaching a dead incarnation ends the pull the same way, with no exception counted", () => {
    const { b, pq, pr, inFlight, before } = deadWithPull();
    b.ctx.nowUs = inFlight.sentUs + inFlight.timeoutUs;
    deliver(b, inFlight, null);
    expect([pr.inFlight, pq.firstKey, pq.msgCount]).toEqual([false, -1, 3]);
    expect({ requests: b.ctx.requests.length, timers: b.ctx.timers.length, records: b.ctx.trace.captured.length, pulls: b.stats.pulls }).toEqual(before);
  });
});

// ------------------------------------------------------------------------------------------ §3.7, §12.4

describe("cleanExpiredMsg (§3.7)", () => {
  it("cleanExpiredMsg: every consumeTimeout, sends back with level 3 and removes up to 16 messages whose consumption started more than consumeTimeout ago, without touching the offset", () => {
    // 64 messages; all 20 workers hang on offsets 0–19, started at 12 ms (T's queue is created at 10 ms
    // after two consumer-list and two offset-query round trips; its pull is answered at 12 ms).
    // consumeTimeout 1 min: the run at 60 s finds 0 started 59.988 s ago (not expired); the run at 120 s
    // takes 0–15 (16 per queue per run); the run at 180 s takes 16–19 and stops at 20, never started.
    const b = tinyConsumer({ backlog: 64, config: { consumeTimeout: 1 }, listener: { hangFraction: 1 } });
    const { ctx, c } = b;
    c.start();
    playBroker(b, 200_000 * MS, { pull: serveBacklog(b) });
    const mq = queueOfT(b);
    expect(c.consumeService.hungWorkers).toBe(20);
    expect(ctx.records("consumeStart", { mq }).map((r) => r.tUs)).toEqual(new Array(20).fill(12 * MS));
    const cleaned = ctx.records("expiredCleaned", { mq });
    expect(cleaned.map((r) => [r.tUs, r.offset])).toEqual([
      ...range(0, 16).map((o) => [120_000 * MS, o]),
      ...range(16, 4).map((o) => [180_000 * MS, o]),
    ]);
    const sentBack = sentOf<ConsumerSendMsgBackRequest>(b, RequestCode.CONSUMER_SEND_MSG_BACK);
    expect(sentBack.map((s) => [s.atUs, s.to, s.msg.mq, s.msg.offset, s.msg.delayLevel])).toEqual(cleaned.map((r) => [r.tUs, BROKER_A, mq, r.offset, 3]));
    // The send-back carries the client's copy of the message.
    const first = sentBack[0]!.msg;
    expect([first.consumerGroup, first.maxReconsumeTimes, first.originKey, first.bodyBytes, first.tag, first.reconsumeTimes]).toEqual([0, 16, mq * 2 ** 32, 1024, -1, 0]);
    const pq = tableQueue(b, mq);
    expect([pq.msgCount, pq.firstKey]).toEqual([44, 20]);
    expect(c.offsetStore.readOffset(mq)).toBe(-1);
    expect(offsetCommits(b).filter(([, q]) => q === mq)).toEqual([]);
    expect(requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === mq && (r.msg.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0)).toEqual([]);
    expect(ctx.pendingTimers(ClientTimer.CLEAN_EXPIRED).map((t) => t.atUs)).toEqual([240_000 * MS]);
  });

  it("cleanExpiredMsg: a send-back the network loses (sendChecked false) keeps the message and ends that queue's loop; other queues go on, and the next run retries", () => {
    // Two brokers: T's queue on broker-a holds 4 original messages whose listener calls hang; %RETRY%G's
    // queue on broker-b 2 retry copies (reconsumeTimes 1), the first hanging (an armed hang), the second
    // consumed. At 120 s broker-a's link loses everything.
    const b = tinyConsumer({ brokers: 2, backlog: 4, config: { consumeTimeout: 1 }, listener: { hangFraction: 1 } });
    const { ctx, c, routes } = b;
    const mqT = queueOfT(b);
    const mqRetry = routes.retryQueue(0, 1);
    const retryKey = (o: number) => mqT * 2 ** 32 + 100 + o;
    const serveT = serveBacklog(b);
    b.listeners.armHang(mqRetry, null);
    c.start();
    playBroker(b, 119_000 * MS, {
      pull: (req) => {
        if (req.mq !== mqRetry) return serveT(req);
        if (req.queueOffset > 0) return null;
        return pullResponse(mqRetry, ResponseCode.SUCCESS, { nextBeginOffset: 2, offsets: [0, 1], maxOffset: 2, columns: { reconsumeTimes: 1, originKey: retryKey, tag: 2, bodyBytes: 500 } });
      },
    });
    expect([tableQueue(b, mqT).msgCount, tableQueue(b, mqRetry).msgCount]).toEqual([4, 1]);
    ctx.lossy.add(BROKER_A);
    playBroker(b, 150_000 * MS);
    expect(ctx.records("expiredCleaned").map((r) => [r.tUs, r.mq, r.offset])).toEqual([[120_000 * MS, mqRetry, 0]]);
    const sentBack = sentOf<ConsumerSendMsgBackRequest>(b, RequestCode.CONSUMER_SEND_MSG_BACK);
    expect(sentBack.map((s) => [s.to, s.msg.mq, s.msg.offset, s.msg.delayLevel, s.msg.reconsumeTimes, s.msg.originKey, s.msg.tag, s.msg.bodyBytes])).toEqual([
      [1, mqRetry, 0, 3, 1, retryKey(0), 2, 500],
    ]);
    expect([tableQueue(b, mqT).msgCount, tableQueue(b, mqT).firstKey]).toEqual([4, 0]);
    expect(tableQueue(b, mqRetry).msgCount).toBe(0);
    // The link is back for the next run, which sends T's messages back.
    ctx.lossy.delete(BROKER_A);
    playBroker(b, 190_000 * MS);
    expect(ctx.records("expiredCleaned", { mq: mqT }).map((r) => [r.tUs, r.offset])).toEqual(range(0, 4).map((o) => [180_000 * MS, o]));
    expect(tableQueue(b, mqT).msgCount).toBe(0);
  });
});

describe("persistAllConsumerOffset (§12.4)", () => {
  it("persistAll: commits the in-memory offsets of assigned queues to their broker 10 s after start, then every 5 s", () => {
    const b = tinyConsumer();
    b.c.start();
    playBroker(b, 100 * MS);
    const mq = queueOfT(b);
    b.c.offsetStore.updateOffset(mq, 9, false);
    playBroker(b, 16_000 * MS);
    expect(offsetCommits(b)).toEqual([
      [10_000 * MS, mq, 9],
      [15_000 * MS, mq, 9],
    ]);
    expect(sentOf(b, RequestCode.UPDATE_CONSUMER_OFFSET).map((s) => s.to)).toEqual([BROKER_A, BROKER_A]);
  });
});

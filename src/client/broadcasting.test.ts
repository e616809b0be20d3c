// A BROADCASTING consumer (spec §7.3, §10.3, §12.2): every instance takes every queue, keeps its offsets
// in a local file, drops what fails. One instance of a tiny scenario (topic T with 2 queues on broker-a,
// 5 messages each) against playBroker, which answers after a 1 ms + 1 ms round trip.
import { describe, expect, it } from "vitest";
import { PullSysFlag, RequestCode, ResponseCode } from "../protocol/codes.ts";
import type { PullMessageRequest, QueryConsumerOffsetRequest } from "../protocol/commands.ts";
import { LocalFileOffsetStore } from "./LocalFileOffsetStore.ts";
import { MS, playBroker, pullResponse, requestsOf, sentOf, serveBacklog, tinyConsumer, type TinyScenario } from "./testConsumer.ts";

const S = 1_000_000;

function started(s: TinyScenario = {}, file = new Map<number, number>()) {
  const b = tinyConsumer({ queues: 2, messageModel: "BROADCASTING", backlog: 5, instances: 2, ...s }, { localOffsetFile: file });
  b.c.start();
  return { b, file };
}

describe("BROADCASTING rebalance (§10.3)", () => {
  it("every queue of T is this instance's without asking for the group's consumers; no %RETRY% subscription", () => {
    const { b } = started();
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(requestsOf(b, RequestCode.GET_CONSUMER_LIST_BY_GROUP)).toEqual([]);
    expect(b.c.subscribedTopics).toEqual([0]);
    expect(b.c.rebalance.processQueues().map(([mq]) => mq)).toEqual([0, 1]);
    expect(b.c.offsetStore).toBeInstanceOf(LocalFileOffsetStore);
  });

  it("with no local offset, CONSUME_FROM_LAST_OFFSET starts at the max offset: the broker's stored offset and its start-at-0 answer are not used", () => {
    const { b } = started();
    // playBroker's query answers 0 (a hot queue with messages) — a CLUSTERING consumer would start there.
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(b.ctx.records("pqCreated").map((r) => [r.mq, r.nextOffset])).toEqual([[0, 5], [1, 5]]);
    expect(b.observer.starts.map((x) => [x.mq, x.offset, x.fromStoredOffset])).toEqual([[0, 5, false], [1, 5, false]]);
  });

  it("CONSUME_FROM_FIRST_OFFSET with no local offset starts at 0", () => {
    const { b } = started({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" });
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(b.ctx.records("pqCreated").map((r) => r.nextOffset)).toEqual([0, 0]);
  });

  it("pulls never piggy-back an offset and no UPDATE_CONSUMER_OFFSET is ever sent; the 5 s persist writes the file", () => {
    const { b, file } = started({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" });
    playBroker(b, 11 * S, { pull: serveBacklog(b) });
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE);
    expect(pulls.length).toBeGreaterThan(2);
    expect(pulls.every((r) => (r.msg.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) === 0)).toBe(true);
    expect(sentOf(b, RequestCode.UPDATE_CONSUMER_OFFSET)).toEqual([]);
    // Both queues consumed 0…4 (10 ms each, one worker per message): persistAll at 10 s wrote 5 and 5.
    expect([...file.entries()].sort()).toEqual([[0, 5], [1, 5]]);
  });

  it("a failed message is dropped (§7.3): no send-back, no local retry, and the offset moves past it", () => {
    const { b, file } = started({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", listener: { failureProbability: 1 } });
    playBroker(b, 11 * S, { pull: serveBacklog(b) });
    expect(requestsOf(b, RequestCode.CONSUMER_SEND_MSG_BACK)).toEqual([]);
    const dropped = b.observer.drops.map((d) => d.mq * 100 + d.offset).sort((x, y) => x - y);
    expect(dropped).toEqual([0, 1, 2, 3, 4, 100, 101, 102, 103, 104]);
    expect(b.observer.drops.length).toBe(10);
    expect(b.ctx.records("consumeStart").length).toBe(10); // each message tried once
    expect([...file.entries()].sort()).toEqual([[0, 5], [1, 5]]);
  });
});

describe("LocalFileOffsetStore across a restart (§12.2)", () => {
  it("a restarted instance on the same host reads its file: no broker query for those queues, it resumes where it persisted", () => {
    const file = new Map<number, number>([[0, 3], [1, 4]]);
    const { b } = started({}, file);
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET)).toEqual([]);
    expect(b.ctx.records("pqCreated").map((r) => [r.mq, r.nextOffset])).toEqual([[0, 3], [1, 4]]);
    expect(b.observer.starts.map((x) => x.fromStoredOffset)).toEqual([true, true]);
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE);
    expect(pulls.slice(0, 2).map((r) => [r.msg.mq, r.msg.queueOffset])).toEqual([[0, 3], [1, 4]]);
  });

  it("only queues missing from the file are asked about (for the max offset)", () => {
    const { b } = started({}, new Map([[1, 2]]));
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(requestsOf<QueryConsumerOffsetRequest>(b, RequestCode.QUERY_CONSUMER_OFFSET).map((r) => r.msg.mq)).toEqual([0]);
    expect(b.ctx.records("pqCreated").map((r) => [r.mq, r.nextOffset])).toEqual([[0, 5], [1, 2]]);
  });

  it("an OFFSET_ILLEGAL fix writes the new offset into the file (persist), not to a broker", () => {
    const { b, file } = started({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" });
    playBroker(b, 20 * MS, { pull: (req) => (req.mq === 0 ? pullResponse(0, ResponseCode.PULL_OFFSET_MOVED, { nextBeginOffset: 4 }) : null) });
    playBroker(b, 11 * S);
    expect(file.get(0)).toBe(4);
    expect(sentOf(b, RequestCode.UPDATE_CONSUMER_OFFSET)).toEqual([]);
  });
});

describe("BROADCASTING with an orderly listener (§10.3, §14)", () => {
  it("4.9 locks each queue before adding it (updateProcessQueueTableInRebalance(…, isOrder)): a queue another instance locked is skipped", () => {
    const { b } = started({ consumeMode: "ORDERLY", profile: "4.9" });
    playBroker(b, 20 * MS, { pull: serveBacklog(b), lock: (mqs) => mqs.filter((q) => q !== 1) });
    expect(requestsOf(b, RequestCode.LOCK_BATCH_MQ).length).toBe(2);
    expect(b.c.rebalance.processQueues().map(([mq]) => mq)).toEqual([0]);
    // No lockAll in BROADCASTING (the orderly service schedules it in CLUSTERING only).
    playBroker(b, 2 * S, { pull: serveBacklog(b) });
    expect(requestsOf(b, RequestCode.LOCK_BATCH_MQ).length).toBe(2);
  });

  it("5.x never locks in BROADCASTING: every queue is added at once", () => {
    const { b } = started({ consumeMode: "ORDERLY", profile: "5.x", consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" });
    playBroker(b, 2 * S, { pull: serveBacklog(b), lock: () => [] });
    expect(requestsOf(b, RequestCode.LOCK_BATCH_MQ)).toEqual([]);
    expect(b.c.rebalance.processQueues().map(([mq]) => mq)).toEqual([0, 1]);
    // The consume loop does not look at locks in BROADCASTING: both backlogs (0…4) are consumed in order.
    expect(b.ctx.records("consumeStart", { mq: 0 }).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("BROADCASTING start offsets without a broker round trip where RocketMQ has none (review findings)", () => {
  it("CONSUME_FROM_FIRST_OFFSET with no file entry starts at 0 without asking the broker", () => {
    const { b } = started({ consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" });
    playBroker(b, 20 * MS, { pull: serveBacklog(b) });
    expect(requestsOf(b, RequestCode.QUERY_CONSUMER_OFFSET)).toEqual([]);
    expect(b.ctx.records("pqCreated").map((r) => r.nextOffset)).toEqual([0, 0]);
  });

  it("4.9, orderly: a first-pull max-offset query that times out is retried 1 s later — never a pull at −1", () => {
    const { b } = started({ consumeMode: "ORDERLY", profile: "4.9" });
    let lost = 0;
    playBroker(b, 8 * S, {
      pull: serveBacklog(b),
      lose: (r) => r.msg.code === RequestCode.QUERY_CONSUMER_OFFSET && r.cookie < 0 && (r.msg as QueryConsumerOffsetRequest).mq === 0 && lost++ === 0,
    });
    const pulls = requestsOf<PullMessageRequest>(b, RequestCode.PULL_MESSAGE).filter((r) => r.msg.mq === 0);
    expect(pulls.length).toBeGreaterThan(0);
    expect(pulls.every((r) => r.msg.queueOffset >= 0)).toBe(true);
    expect(b.ctx.records("pullLater", { mq: 0, delayMs: 1000 }).length).toBe(1);
  });
});

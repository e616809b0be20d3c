// A broker group's slave node (broker spec §3.3, §4.1, §4.4, §4.7): what it serves of the shared commit
// log, how it answers pulls per version, what it refuses, and SlaveSynchronize's cadence. Driven through
// two fixtures on one group: the master (node 0) and its slave (node 1), each on its own clock; the test
// plays the clients and, for SlaveSynchronize, the master's answer.
import { describe, expect, it } from "vitest";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import { GetAllConsumerOffsetRequest, GetAllConsumerOffsetResponse, type PullMessageResponse, type SimpleResponse } from "../protocol/commands.ts";
import { offsetKey } from "./ConsumerOffsetManager.ts";
import { BrokerFixture, BrokerTimer, MS, S, type RigInput } from "./testBroker.ts";

const T = 0;
const G = 0;

/** broker-a with one slave; `lag` the replication lag; `config` merged into the broker's config. */
function group(profile: "4.9" | "5.x", config: Record<string, unknown> = {}, lag = "0ms", extra: RigInput = {}): { m: BrokerFixture; s: BrokerFixture } {
  const m = new BrokerFixture({ profile, broker: { replicas: [{ role: "SLAVE" }], replication: { lag }, config }, ...extra });
  const s = new BrokerFixture({}, { master: m, brokerId: 1 });
  return { m, s };
}

const pullReply = (fx: BrokerFixture, req: Parameters<BrokerFixture["reply"]>[0]) => fx.reply<PullMessageResponse>(req);

describe("a slave serves the prefix of the commit log it has replicated (§4.2, §4.3)", () => {
  it("with a 10 s lag, at 20 s it holds the 100 seeded messages and those born by 10 s: max offset 110 of the master's 120", () => {
    const { m, s } = group("4.9", {}, "10s");
    m.seedBacklog(100);
    m.produceEvery(S, 20); // born at 1 s … 20 s
    const mq = m.queueOf(T);
    m.runUntil(20 * S);
    m.source.advanceTo(20 * S);
    expect(m.store(mq).maxOffset).toBe(120);
    // 10 s behind: the messages born at 1 … 10 s are held (appends up to now − lag, inclusive).
    const found = pullReply(s, s.pull(20 * S, { offset: 100, subscription: null }));
    expect(found.code).toBe(ResponseCode.SUCCESS);
    expect(found.maxOffset).toBe(110);
    expect(found.msgs.count).toBe(10);
    expect(found.nextBeginOffset).toBe(110);
  });
});

describe("4.9 slave answers (§3.3)", () => {
  it("an offset beyond its copy: PULL_RETRY_IMMEDIATELY at the requested offset, suggesting the master — not corrected", () => {
    const { m, s } = group("4.9", {}, "10s");
    m.seedBacklog(100);
    m.produceEvery(S, 20);
    m.source.advanceTo(20 * S);
    const r = pullReply(s, s.pull(20 * S, { offset: 115, subscription: null }));
    expect(r.code).toBe(ResponseCode.PULL_RETRY_IMMEDIATELY);
    expect(r.nextBeginOffset).toBe(115);
    expect(r.suggestWhichBrokerId).toBe(0);
    // The master, asked the same, holds the pull (115 < 120: found) — the slave's answer is the copy's.
    expect(pullReply(m, m.pull(20 * S, { offset: 115, subscription: null })).msgs.count).toBe(5);
  });

  it("with offsetCheckInSlave it corrects like a master, to its own max offset: PULL_OFFSET_MOVED → 110", () => {
    const { m, s } = group("4.9", { offsetCheckInSlave: true }, "10s");
    m.seedBacklog(100);
    m.produceEvery(S, 20);
    m.source.advanceTo(20 * S);
    const r = pullReply(s, s.pull(20 * S, { offset: 115, subscription: null }));
    expect(r.code).toBe(ResponseCode.PULL_OFFSET_MOVED);
    expect(r.nextBeginOffset).toBe(110);
  });

  it("a caught-up pull is held without arrival wake-ups and answered by the 5 s hold check", () => {
    const { m, s } = group("4.9");
    m.seedBacklog(10);
    m.produceEvery(700 * MS, 3); // born 0.7, 1.4, 2.1 s
    const wakesBefore = m.source.wakeRequests.length;
    const req = s.pull(10 * MS, { offset: 10, subscription: null });
    expect(s.repliesTo(req)).toHaveLength(0); // held
    expect(m.source.wakeRequests.length).toBe(wakesBefore); // the slave asks for no wake-up
    s.runUntil(4_999 * MS);
    expect(s.repliesTo(req)).toHaveLength(0);
    s.runUntil(5 * S); // the hold service's check (every 5 s) finds 3 new messages
    const a = s.answers(req);
    expect(a).toMatchObject([{ atUs: 5 * S, code: ResponseCode.SUCCESS, count: 3, offsets: [10, 11, 12] }]);
  });

  it("a piggy-backed commit is ignored on a slave (storeOffsetEnable needs role ≠ SLAVE), stored on the master", () => {
    const { m, s } = group("4.9");
    m.seedBacklog(100);
    const mq = m.queueOf(T);
    s.pull(1 * S, { offset: 60, commitOffset: 50, subscription: null });
    m.pull(1 * S, { offset: 60, commitOffset: 40, subscription: null });
    expect(s.broker.offsets.queryOffset(G, mq)).toBe(-1);
    expect(m.broker.offsets.queryOffset(G, mq)).toBe(40);
    // UPDATE_CONSUMER_OFFSET has no role check: a slave stores it (§4.6).
    s.updateOffset(2 * S, mq, 70);
    expect(s.broker.offsets.queryOffset(G, mq)).toBe(70);
  });

  it("a send-back to a slave fails: its store takes no put (SERVICE_NOT_AVAILABLE → SYSTEM_ERROR)", () => {
    const { m, s } = group("4.9");
    m.seedBacklog(1);
    const req = s.sendBack(1 * S, { mq: m.queueOf(T), offset: 0 });
    expect(s.reply<SimpleResponse>(req).code).toBe(ResponseCode.SYSTEM_ERROR);
    expect(s.observer.of("sentBack")).toHaveLength(0);
  });
});

describe("a master's CONSUMER_SEND_MSG_BACK checks before the put (broker spec §8.1)", () => {
  it.each(["4.9", "5.x"] as const)("profile %s: a master that takes no writes answers NO_PERMISSION and stores nothing; SUCCESS once writable", (profile) => {
    const { m } = group(profile);
    m.seedBacklog(2);
    m.broker.setWritable(false);
    expect(m.reply<SimpleResponse>(m.sendBack(1 * S, { mq: m.queueOf(T), offset: 0 })).code).toBe(ResponseCode.NO_PERMISSION);
    expect(m.observer.of("sentBack")).toHaveLength(0);
    m.broker.setWritable(true);
    expect(m.reply<SimpleResponse>(m.sendBack(2 * S, { mq: m.queueOf(T), offset: 1 })).code).toBe(ResponseCode.SUCCESS);
    expect(m.observer.of("sentBack")).toHaveLength(1);
  });

  it("a full disk fails the put: SYSTEM_ERROR (SERVICE_NOT_AVAILABLE), nothing parked", () => {
    const { m } = group("4.9");
    m.seedBacklog(1);
    m.broker.store.diskFull = true;
    expect(m.reply<SimpleResponse>(m.sendBack(1 * S, { mq: m.queueOf(T), offset: 0 })).code).toBe(ResponseCode.SYSTEM_ERROR);
    expect(m.observer.of("sentBack")).toHaveLength(0);
  });
});

describe("5.x slave answers (§3.3)", () => {
  it("without slaveReadEnable every pull is refused SYSTEM_BUSY before the processor runs (no suggestion, nothing held)", () => {
    const { m, s } = group("5.x");
    m.seedBacklog(100);
    const r = pullReply(s, s.pull(1 * S, { offset: 0, subscription: null }));
    expect(r.code).toBe(ResponseCode.SYSTEM_BUSY);
    expect(r.msgs.count).toBe(0);
    expect(s.ctx.deferred).toHaveLength(0);
  });

  it("with slaveReadEnable: FOUND is served; a caught-up pull is PULL_RETRY_IMMEDIATELY (never held), suggesting the master", () => {
    const { m, s } = group("5.x", { slaveReadEnable: true });
    m.seedBacklog(100);
    expect(pullReply(s, s.pull(1 * S, { offset: 0, subscription: null })).code).toBe(ResponseCode.SUCCESS);
    const caughtUp = pullReply(s, s.pull(1 * S, { offset: 100, subscription: null }));
    expect(caughtUp.code).toBe(ResponseCode.PULL_RETRY_IMMEDIATELY);
    expect(caughtUp.nextBeginOffset).toBe(100);
    expect(caughtUp.suggestWhichBrokerId).toBe(0);
    expect(s.ctx.deferred).toHaveLength(0);
  });

  it("a send-back is rejected SYSTEM_BUSY (SendMessageProcessor#rejectRequest on a slave, §4.1)", () => {
    const { m, s } = group("5.x");
    m.seedBacklog(1);
    expect(s.reply<SimpleResponse>(s.sendBack(1 * S, { mq: m.queueOf(T), offset: 0 })).code).toBe(ResponseCode.SYSTEM_BUSY);
  });
});

describe("suggestWhichBrokerId (§4.4)", () => {
  // 1 KiB bodies stored as ≈ 1 183 B; the hot test looks at the start of a message's 256-message page:
  // with hotBytes 512 KiB the last page (768 … 999) is in memory, the first one (1.18 MB back) is not.
  const cold = { hotBytes: "512KiB" };
  it("a master with slaveReadEnable suggests brokerId 1 when the last message pulled has left memory, else 0", () => {
    const { m } = group("4.9", { slaveReadEnable: true }, "0ms", { broker: { replicas: [{ role: "SLAVE" }], config: { slaveReadEnable: true }, ...cold } });
    m.seedBacklog(1000);
    expect(pullReply(m, m.pull(1 * S, { offset: 0, subscription: null })).suggestWhichBrokerId).toBe(1);
    expect(pullReply(m, m.pull(1 * S, { offset: 990, subscription: null })).suggestWhichBrokerId).toBe(0);
  });

  it("without slaveReadEnable the master always suggests itself", () => {
    const { m } = group("4.9", {}, "0ms", { broker: { replicas: [{ role: "SLAVE" }], ...cold } });
    m.seedBacklog(1000);
    expect(pullReply(m, m.pull(1 * S, { offset: 0, subscription: null })).suggestWhichBrokerId).toBe(0);
  });
});

describe("SlaveSynchronize (§4.7)", () => {
  const syncTimes = (s: BrokerFixture) => s.ctx.requests.filter((r) => r.msg.code === RequestCode.GET_ALL_CONSUMER_OFFSET).map((r) => r.sentUs);
  /** Runs the slave to `untilUs`, answering each sync request at once with empty tables (the master's part). */
  const runAnswering = (s: BrokerFixture, untilUs: number) => {
    for (let t = s.ctx.nowUs; t <= untilUs; t += 100 * MS) {
      const before = syncTimes(s).length;
      s.runUntil(t);
      if (syncTimes(s).length > before) s.broker.onResponse(RequestCode.GET_ALL_CONSUMER_OFFSET, 0, new GetAllConsumerOffsetResponse(new Map(), new Array(19).fill(0)));
    }
  };

  it("4.9: the master's address comes with the registration at 10 s; syncs run every 10 s from 3 s, so the first is at 13 s", () => {
    const { s } = group("4.9");
    runAnswering(s, 45 * S);
    expect(syncTimes(s)).toEqual([13 * S, 23 * S, 33 * S, 43 * S]);
    expect(s.broker.slaveSync!.syncs).toBe(4);
    expect(s.ctx.requests[0]!.to).toBe(0);
  });

  it("5.x classic: a 3 s task from 10 s that syncs only when more than 60 s passed since the last — first at 61 s, then 124 s", () => {
    const { s } = group("5.x");
    s.runUntil(61 * S);
    expect(syncTimes(s)).toEqual([61 * S]);
    s.broker.onResponse(RequestCode.GET_ALL_CONSUMER_OFFSET, 0, new GetAllConsumerOffsetResponse(new Map(), new Array(19).fill(0)));
    s.runUntil(130 * S);
    // Task runs at 10 + 3k s; after the 61 s sync the first with more than 60 s since is 124 s (121 − 61 = 60 is not more).
    expect(syncTimes(s)).toEqual([61 * S, 124 * S]);
  });

  it("the master's table replaces the slave's entries it has, keeps the others, and is persisted (a crash keeps it)", () => {
    const { m, s } = group("4.9");
    const mq = m.queueOf(T);
    const retry = m.retryQueue(G);
    s.updateOffset(1 * S, mq, 5);
    s.updateOffset(1 * S, retry, 7);
    s.runUntil(13 * S);
    const master = new Map([[offsetKey(G, mq), 42]]);
    s.broker.onResponse(RequestCode.GET_ALL_CONSUMER_OFFSET, 0, new GetAllConsumerOffsetResponse(master, new Array(19).fill(0)));
    expect(s.broker.offsets.queryOffset(G, mq)).toBe(42);
    expect(s.broker.offsets.queryOffset(G, retry)).toBe(7);
    expect(s.broker.slaveSync!.syncs).toBe(1);
    s.broker.crash();
    s.broker.restart();
    expect(s.broker.offsets.queryOffset(G, mq)).toBe(42);
  });

  it("a master answers with its in-memory tables (not what it last flushed)", () => {
    const { m } = group("4.9");
    const mq = m.queueOf(T);
    m.updateOffset(1 * S, mq, 9); // flushed only at 5 s
    const req = m.deliver(2 * S, new GetAllConsumerOffsetRequest(), 1);
    const r = m.reply<GetAllConsumerOffsetResponse>(req);
    expect(r.offsets.get(offsetKey(G, mq))).toBe(9);
    expect(m.broker.offsets.flushedOffset(G, mq)).toBe(-1);
    expect(r.delayOffsets).toHaveLength(19);
  });
});

describe("timers of a group's node", () => {
  it("every node persists its delay offsets every 10 s (§6.3) and registers every 30 s from 10 s", () => {
    const { s } = group("4.9");
    expect(s.ctx.pendingTimers(BrokerTimer.DELAY_OFFSET_FLUSH).map((t) => t.atUs)).toEqual([10 * S]);
    expect(s.ctx.pendingTimers(BrokerTimer.REGISTER).map((t) => t.atUs)).toEqual([10 * S]);
    s.runUntil(40 * S);
    expect(s.ctx.pendingTimers(BrokerTimer.REGISTER).map((t) => t.atUs)).toEqual([70 * S]);
  });
});

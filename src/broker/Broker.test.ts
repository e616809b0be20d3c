// The broker node's own handlers and timers, driven through the fixture (testBroker.ts): requests reach
// the broker at chosen virtual times on a recording fake context; what the broker answers is read from
// ctx.replies at the time it answered, what it tells anyone else from ctx.sent, the trace and the
// observer. Expected numbers come from the spec sections cited in each describe (rocketmq-consumer.md).
// PULL_MESSAGE is in PullMessageProcessor.test.ts, long polling in PullRequestHoldService.test.ts,
// send-back and the delay levels in ScheduleMessageService.test.ts.
import { describe, expect, it } from "vitest";
import { clientAddr } from "../protocol/address.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { UpdateConsumerOffsetRequest, type GetConsumerListResponse, type QueryConsumerOffsetResponse, type SimpleResponse } from "../protocol/commands.ts";
import { BrokerFixture, BrokerTimer, MS, S, type RigInput } from "./testBroker.ts";

const T = 0; // model topic index of the fixture's default topic "T"
const G = 0; // group index of "G"

describe("QUERY_CONSUMER_OFFSET: stored offset, the start-at-0 rule, max offset and timestamp search (§13.7, §10.6, §15.6)", () => {
  /** 100 messages seeded over the hour before t = 0: born 36 s apart, the i-th at −3600 s + 36 s × i. */
  function hundred(input: RigInput = {}): BrokerFixture {
    const fx = new BrokerFixture(input);
    fx.seedBacklog(100);
    return fx;
  }
  const COLD: RigInput = { broker: { hotBytes: "1KiB" } }; // message 0 is ~100 messages from the commit-log tail

  it("no committed offset, message 0 hot: SUCCESS with offset 0 (the start-at-0 rule), not maxOffset 100", () => {
    const fx = hundred();
    const req = fx.queryOffset(5 * MS, fx.queueOf(T));
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.SUCCESS, offset: 0, maxOffset: 100 });
    expect(fx.repliesTo(req)[0]!.atUs).toBe(5 * MS);
  });

  it("no committed offset, message 0 cold: QUERY_NOT_FOUND (−1) with maxOffset 100", () => {
    const fx = hundred(COLD);
    const req = fx.queryOffset(5 * MS, fx.queueOf(T));
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.QUERY_NOT_FOUND, offset: -1, maxOffset: 100 });
  });

  it("message 0 hot but the queue truncated by retention (minOffset 3): QUERY_NOT_FOUND", () => {
    // A 3500 s retention deletes messages born before −3500 s: i < 100 / 36 = 2.78, offsets 0–2.
    const fx = hundred({ topic: { retention: "3500s" } });
    const req = fx.queryOffset(5 * MS, fx.queueOf(T));
    expect(fx.store(fx.queueOf(T)).minOffset).toBe(3);
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.QUERY_NOT_FOUND, offset: -1, maxOffset: 100 });
  });

  it.each([["hot", {}], ["cold", COLD]] as const)(
    "a committed offset is returned as is: 42, whatever the page cache says (%s)",
    (_, input) => {
      const fx = hundred(input);
      fx.updateOffset(0, fx.queueOf(T), 42);
      const req = fx.queryOffset(5 * MS, fx.queueOf(T));
      expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.SUCCESS, offset: 42, maxOffset: 100 });
    },
  );

  it("a committed 0 is SUCCESS with 0 even when message 0 is cold (ConsumerManageProcessorTest, §15.6)", () => {
    const fx = hundred(COLD);
    fx.updateOffset(0, fx.queueOf(T), 0);
    const req = fx.queryOffset(5 * MS, fx.queueOf(T));
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.SUCCESS, offset: 0 });
  });

  it("the timestamp search answers the first message born at or after 1000 s before now: 73", () => {
    // Timestamp = 5 ms − 1000 s; born_i ≥ it ⇔ i ≥ (2600 s + 5 ms) / 36 s = 72.2…
    const fx = hundred(COLD);
    const req = fx.queryOffset(5 * MS, fx.queueOf(T), { timestampUs: 5 * MS - 1000 * S });
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.QUERY_NOT_FOUND, searchOffset: 73 });
  });

  it("the retry queue, never written, is QUERY_NOT_FOUND with maxOffset 0", () => {
    const fx = hundred(COLD);
    const req = fx.queryOffset(5 * MS, fx.retryQueue(G));
    expect(fx.reply<QueryConsumerOffsetResponse>(req)).toMatchObject({ code: ResponseCode.QUERY_NOT_FOUND, offset: -1, maxOffset: 0, searchOffset: 0 });
  });
});

describe("HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP and the consumer registry (§13.8, §5)", () => {
  /** Group G with clients 0 and 1, group H with client 2. */
  function registry(): BrokerFixture {
    return new BrokerFixture({ groups: [{ name: "G", instances: 2, subscribe: { T: "*" } }, { name: "H", subscribe: { T: "*" } }] });
  }
  const H = 1;
  const addr = (slot: number) => clientAddr(slot, 0);

  it("a client's first heartbeat notifies every channel of its group at once, and only its group", () => {
    const fx = registry();
    fx.heartbeat(0, 0, 100);
    expect(fx.notifications()).toEqual([{ to: addr(0), group: G, atUs: 0 }]);
    fx.heartbeat(S, 1, 100);
    expect(fx.notifications().slice(1)).toEqual([{ to: addr(0), group: G, atUs: S }, { to: addr(1), group: G, atUs: S }]);
    fx.heartbeat(2 * S, 2, 100, { group: H });
    expect(fx.notifications().slice(3)).toEqual([{ to: addr(2), group: H, atUs: 2 * S }]);
  });

  it("a repeated heartbeat keeps the one channel, does not notify, and is answered SUCCESS each time", () => {
    const fx = registry();
    const first = fx.heartbeat(0, 0, 100);
    const again = fx.heartbeat(S, 0, 100);
    expect(fx.notifications()).toHaveLength(1);
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-0"]);
    expect(fx.reply<SimpleResponse>(first).code).toBe(ResponseCode.SUCCESS);
    expect(fx.reply<SimpleResponse>(again).code).toBe(ResponseCode.SUCCESS);
  });

  it("a oneway heartbeat registers the client without an answer", () => {
    const fx = registry();
    const hb = fx.heartbeat(0, 0, 100, { oneway: true });
    expect(fx.repliesTo(hb)).toEqual([]);
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-0"]);
  });

  it("the broker's subVersion only ever increases: after 100 then 50, a pull with subVersion 100 is served", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(10);
    fx.heartbeat(0, 0, 100);
    fx.heartbeat(10 * MS, 0, 50);
    const req = fx.pull(20 * MS, { offset: 0, subVersion: 100 });
    expect(fx.answers(req)).toMatchObject([{ code: ResponseCode.SUCCESS }]);
    expect(fx.broker.consumers.subscription(G, T)!.subVersion).toBe(100);
  });

  it("a newer subVersion is learned: after 100 then 150, a pull with subVersion 150 is served", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(10);
    fx.heartbeat(0, 0, 100);
    fx.heartbeat(10 * MS, 0, 150);
    const req = fx.pull(20 * MS, { offset: 0, subVersion: 150 });
    expect(fx.answers(req)).toMatchObject([{ code: ResponseCode.SUCCESS }]);
  });

  it("GET_CONSUMER_LIST_BY_GROUP lists the group's client ids in channel order; SYSTEM_ERROR (null) with none (§15.6)", () => {
    const fx = registry();
    expect(fx.broker.consumers.consumerIdList(G)).toBeNull();
    const before = fx.getConsumerList(0, G);
    expect(fx.reply<GetConsumerListResponse>(before)).toMatchObject({ code: ResponseCode.SYSTEM_ERROR, consumerIdList: null });
    fx.heartbeat(0, 1, 100);
    fx.heartbeat(0, 0, 100);
    const after = fx.getConsumerList(10 * MS, G);
    expect(fx.reply<GetConsumerListResponse>(after)).toMatchObject({ code: ResponseCode.SUCCESS, consumerIdList: ["client-0", "client-1"] });
    expect(fx.broker.consumers.consumerIdList(H)).toBeNull();
  });

  it("UNREGISTER_CLIENT removes the channel and notifies the channels left in its group", () => {
    const fx = registry();
    fx.heartbeat(0, 0, 100);
    fx.heartbeat(0, 1, 100);
    fx.heartbeat(0, 2, 100, { group: H });
    const sentBefore = fx.notifications().length;
    fx.unregister(S, 0);
    expect(fx.notifications().slice(sentBefore)).toEqual([{ to: addr(1), group: G, atUs: S }]);
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-1"]);
  });

  it("CHANNEL_CLOSED removes the client's channel whatever group it names, and notifies like an unregister", () => {
    const fx = registry();
    fx.heartbeat(0, 0, 100);
    fx.heartbeat(0, 1, 100);
    const sentBefore = fx.notifications().length;
    fx.unregister(S, 1, { channelClosed: true, group: H });
    expect(fx.notifications().slice(sentBefore)).toEqual([{ to: addr(0), group: G, atUs: S }]);
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-0"]);
  });

  it("the last channel of a group leaving takes the group's subscriptions with it: its pulls are SUBSCRIPTION_NOT_EXIST", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(10);
    fx.heartbeat(0, 0, 100);
    fx.unregister(S, 0);
    expect(fx.notifications()).toHaveLength(1); // the first heartbeat's; nobody is left to notify
    const req = fx.pull(2 * S, { offset: 0, subVersion: 100 });
    expect(fx.answers(req)).toMatchObject([{ code: ResponseCode.SUBSCRIPTION_NOT_EXIST }]);
  });

  it("the 10 s expiry scan removes a channel silent for more than channelExpiredTimeout (120 s), without notifying anyone", () => {
    const fx = registry();
    fx.heartbeat(0, 0, 100);
    fx.heartbeat(0, 1, 100);
    fx.heartbeat(50 * S, 1, 100);
    const sentBefore = fx.notifications().length;
    fx.runUntil(120 * S); // silent for exactly 120 s: kept
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-0", "client-1"]);
    fx.runUntil(130 * S);
    expect(fx.ctx.records("channelExpired")).toEqual([{ type: "channelExpired", tUs: 130 * S, broker: 0, consumer: addr(0) }]);
    expect(fx.broker.consumers.consumerIdList(G)).toEqual(["client-1"]);
    expect(fx.notifications()).toHaveLength(sentBefore);
  });
});

describe("the broker's timers, as the cluster starts them", () => {
  it("hold check every 5 s, expiry scan every 10 s, offset flush every 5 s, clean-up at 60 s then every 10 s (§2.1)", () => {
    const fx = new BrokerFixture();
    const at = (code: number) => fx.ctx.pendingTimers(code).map((t) => t.atUs);
    const all = () => [BrokerTimer.HOLD_CHECK, BrokerTimer.EXPIRY_SCAN, BrokerTimer.OFFSET_FLUSH, BrokerTimer.CLEAN_COMMIT_LOG, BrokerTimer.RETENTION].map(at);
    // No topic sets simple retention, so its 1 s timer never starts.
    expect(all()).toEqual([[5 * S], [10 * S], [5 * S], [60 * S], []]);
    fx.runUntil(60 * S);
    expect(all()).toEqual([[65 * S], [70 * S], [65 * S], [70 * S], []]);
  });

  it("simple retention (a topic's `retention`) runs every second", () => {
    const fx = new BrokerFixture({ topic: { retention: "1h" } });
    fx.runUntil(10 * S);
    expect(fx.ctx.pendingTimers(BrokerTimer.RETENTION).map((t) => t.atUs)).toEqual([11 * S]);
  });

  it("with longPollingEnable false the hold check runs every shortPollingTimeMills (1 s)", () => {
    const fx = new BrokerFixture({ broker: { config: { longPollingEnable: false } } });
    fx.runUntil(2 * S);
    expect(fx.ctx.pendingTimers(BrokerTimer.HOLD_CHECK).map((t) => t.atUs)).toEqual([3 * S]);
  });

  it("retention deletes by age every second: offsets 0–99 at 1 s, offset 100 (born −3248.44 s) at 2 s", () => {
    const fx = new BrokerFixture({ topic: { retention: "3250s" } });
    fx.seedBacklog(1024);
    fx.runUntil(2 * S);
    const mq = fx.queueOf(T);
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 100], [mq, 100, 101]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: S, mq, minOffset: 100 }, { tUs: 2 * S, mq, minOffset: 101 }]);
  });

  it("every handler that reads the store first brings production up to now (MessageSource#advanceTo)", () => {
    const fx = new BrokerFixture();
    fx.source.plan(fx.queueOf(T), 300 * MS);
    fx.heartbeat(0, 0, 100);
    const q = fx.queryOffset(400 * MS, fx.queueOf(T));
    expect(fx.reply<QueryConsumerOffsetResponse>(q).maxOffset).toBe(1);
    fx.source.plan(fx.queueOf(T), 500 * MS);
    const p = fx.pull(600 * MS, { offset: 0, subVersion: 100 });
    expect(fx.answers(p)).toMatchObject([{ code: ResponseCode.SUCCESS, count: 2, maxOffset: 2 }]);
    expect(fx.source.advancedTo).toEqual([400 * MS, 600 * MS]);
  });
});

describe("crash and restart", () => {
  it("a restarted broker comes back with the offsets of the last flush (every flushConsumerOffsetInterval, 5 s)", () => {
    const fx = new BrokerFixture();
    const mq = fx.queueOf(T);
    fx.updateOffset(1 * S, mq, 10);
    fx.runUntil(5 * S); // flushed: 10
    fx.updateOffset(6 * S, mq, 20);
    expect(fx.broker.offsets.unflushedCount()).toBe(1);
    fx.runUntil(7 * S);
    fx.broker.crash();
    fx.runUntil(12 * S); // the flush at 10 s finds the process down
    fx.broker.restart();
    expect(fx.broker.offsets.queryOffset(G, mq)).toBe(10);
  });

  it("a restarted broker knows no consumer until it heartbeats again", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(10);
    fx.heartbeat(0, 0, 100);
    fx.runUntil(S);
    fx.broker.crash();
    fx.broker.restart();
    expect(fx.broker.consumers.consumerIdList(G)).toBeNull();
    const before = fx.pull(2 * S, { offset: 0, subVersion: 100 });
    fx.heartbeat(3 * S, 0, 100);
    const after = fx.pull(4 * S, { offset: 0, subVersion: 100 });
    expect(fx.answers(before)).toMatchObject([{ code: ResponseCode.SUBSCRIPTION_NOT_EXIST }]);
    expect(fx.answers(after)).toMatchObject([{ code: ResponseCode.SUCCESS }]);
  });

  it("while down, channels do not expire (the scan is skipped) and writes are refused; retention still runs", () => {
    const fx = new BrokerFixture({ topic: { retention: "3250s" } });
    fx.seedBacklog(1024);
    fx.heartbeat(0, 0, 100);
    fx.broker.crash();
    expect(fx.broker.acceptsWrites()).toBe(false);
    fx.runUntil(200 * S);
    expect(fx.ctx.records("channelExpired")).toEqual([]);
    expect(fx.store(fx.queueOf(T)).minOffset).toBeGreaterThan(100);
  });

  it("setWritable(false) (brokerPermission read-only) does not refuse a normal topic's send: only the producers' route leaves it out (broker spec §7.1)", () => {
    const fx = new BrokerFixture();
    fx.broker.setWritable(false);
    expect(fx.broker.writable).toBe(false);
    expect(fx.broker.acceptsWrites()).toBe(true);
    fx.broker.crash();
    expect(fx.broker.acceptsWrites()).toBe(false);
  });
});

describe("injected faults: truncation", () => {
  it("truncate deletes up to the offset now, as retention would, and says how minOffset moved", () => {
    const fx = new BrokerFixture();
    fx.seedBacklog(100);
    fx.heartbeat(0, 0, 100);
    fx.runUntil(5 * MS);
    const mq = fx.queueOf(T);
    expect(fx.broker.truncate(mq, 50)).toBe("minOffset 0 → 50");
    expect(fx.observer.of("messagesDeleted")).toEqual([[mq, 0, 50]]);
    expect(fx.ctx.records("retention")).toMatchObject([{ tUs: 5 * MS, mq, minOffset: 50 }]);
    const req = fx.pull(10 * MS, { offset: 10, subVersion: 100 });
    expect(fx.answers(req)).toMatchObject([{ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 50 }]);
    expect(fx.broker.truncate(mq, "max")).toBe("minOffset 50 → 100");
    expect(fx.broker.truncate(mq, 500)).toBe("minOffset 100 → 100");
  });
});

describe("the fixture plays the transport's rules", () => {
  it("fires the broker's timers due before a request reaches it, and refuses to move the clock backwards", () => {
    const fx = new BrokerFixture({ topic: { retention: "3250s" } });
    fx.seedBacklog(1024);
    fx.updateOffset(2 * S, fx.queueOf(T), 1);
    expect(fx.ctx.records("retention").map((r) => r.tUs)).toEqual([S, 2 * S]);
    expect(() => fx.runUntil(S)).toThrow(RangeError);
  });

  it("a request the broker neither answers nor defers is an error (UPDATE_CONSUMER_OFFSET must be sent oneway)", () => {
    const fx = new BrokerFixture();
    const update = new UpdateConsumerOffsetRequest(G, fx.queueOf(T), 1);
    expect(() => fx.deliver(0, update, clientAddr(0, 0))).toThrow(/neither answered nor deferred/);
  });
});

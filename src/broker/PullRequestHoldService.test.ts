// Long polling (spec §13.4): a PULL_MESSAGE that finds nothing new is deferred (ctx.defer) and held until
// a message arrives (the producers' arrival wake-up → PullMessageProcessor#onArrived), the hold service's
// periodic check finds something or its hold time is up, or the broker dies (ctx.drop). Driven through the
// fixture (testBroker.ts): the test plays the producers' wake-ups with fx.wakeUp and the kernel with
// fx.runUntil, and reads the broker's answer at the time it gave it.
import { describe, expect, it } from "vitest";
import { ResponseCode } from "../protocol/codes.ts";
import type { Command } from "../protocol/commands.ts";
import { BrokerFixture, MS, S } from "./testBroker.ts";

const T = 0;
const G = 0;
const TAG_A = 0;
const TAG_B = 1;

/** Client 0 of G has sent a heartbeat with subVersion 100 at t = 0. */
function fixture(input: ConstructorParameters<typeof BrokerFixture>[0] = {}): BrokerFixture {
  const fx = new BrokerFixture(input);
  fx.heartbeat(0, 0, 100);
  return fx;
}

describe("suspendPullRequest: a pull that finds nothing new is held (§13.3 PULL_NOT_FOUND, §13.4)", () => {
  it("a pull at maxOffset is deferred, gets no answer until the next message arrives, then is answered at its birth", () => {
    // One message a second, evenly: born at 1 s, 2 s, …; at 1.5 s offset 1 is maxOffset.
    const fx = fixture();
    fx.produceEvery(S, 10);
    const req = fx.pull(1500 * MS, { offset: 1, subVersion: 100 });
    expect(fx.ctx.deferred).toEqual([req]);
    expect(fx.answers(req)).toEqual([]);
    expect(fx.ctx.records("pullHeld")).toMatchObject([{ tUs: 1500 * MS, mq: req.mq, consumer: 0, offset: 1 }]);
    expect(fx.source.wakeRequests).toEqual([{ topic: T, atUs: 1500 * MS }]);
    fx.wakeUp(2 * S);
    expect(fx.answers(req)).toMatchObject([{ atUs: 2 * S, code: ResponseCode.SUCCESS, nextBeginOffset: 2, count: 1, offsets: [1] }]);
  });

  it("offset 0 of a queue never written is held too (NO_MESSAGE_IN_QUEUE with offset 0 is PULL_NOT_FOUND)", () => {
    const fx = fixture();
    const req = fx.pull(10 * MS, { offset: 0, subVersion: 100 });
    expect(fx.ctx.deferred).toEqual([req]);
    expect(fx.broker.heldOnTopic(T)).toBe(1);
  });

  it("a hold with a tag filter ignores arrivals of other tags and wakes on the first matching one", () => {
    // Ten messages a second, evenly; the group takes only A. The first two are B, the third A.
    const tags = [TAG_B, TAG_B, TAG_A, TAG_B, TAG_A];
    const fx = fixture({ topic: { produce: { rate: 0, tags: { A: 1, B: 1 } } }, group: { subscribe: { T: "A" } } });
    fx.produceEvery(100 * MS, tags.length, { tag: (k) => tags[k - 1]! });
    const req = fx.pull(50 * MS, { offset: 0, subVersion: 100 });
    fx.wakeUp(100 * MS);
    fx.wakeUp(200 * MS);
    expect(fx.answers(req)).toEqual([]); // two B arrivals did not wake the hold
    expect(fx.source.wakeRequests.map((w) => w.atUs)).toEqual([50 * MS, 100 * MS, 200 * MS]); // each re-hold asks again
    fx.wakeUp(300 * MS);
    expect(fx.answers(req)).toMatchObject([{ atUs: 300 * MS, code: ResponseCode.SUCCESS, nextBeginOffset: 3, count: 1, offsets: [2] }]);
  });

  // Ticks every 5 s from the start; a 15 s hold is noticed at the first tick at or after its end.
  it.each([500 * MS, 2 * S, 4999 * MS, 5 * S, 7500 * MS])(
    "with no arrivals, a pull held at %i µs is answered PULL_NOT_FOUND at the first 5 s tick ≥ 15 s later",
    (heldUs) => {
      const fx = fixture();
      fx.seedBacklog(3);
      const req = fx.pull(heldUs, { offset: 3, subVersion: 100 });
      fx.runUntil(40 * S);
      const tickUs = Math.ceil((heldUs + 15 * S) / (5 * S)) * 5 * S;
      expect(tickUs - heldUs).toBeGreaterThanOrEqual(15 * S);
      expect(tickUs - heldUs).toBeLessThanOrEqual(20 * S);
      expect(fx.answers(req)).toMatchObject([{ atUs: tickUs, code: ResponseCode.PULL_NOT_FOUND, nextBeginOffset: 3, count: 0 }]);
    },
  );

  it("the hold time is the request's suspendTimeoutMillis", () => {
    const fx = fixture();
    fx.seedBacklog(3);
    const req = fx.pull(500 * MS, { offset: 3, subVersion: 100, suspendTimeoutMillis: 4000 });
    fx.runUntil(40 * S);
    expect(fx.answers(req)).toMatchObject([{ atUs: 5 * S, code: ResponseCode.PULL_NOT_FOUND }]);
  });

  it.each([500 * MS, 2500 * MS, 3 * S])(
    "longPollingEnable false: a pull held at %i µs waits shortPollingTimeMills (1 s), noticed at the next 1 s tick",
    (heldUs) => {
      const fx = fixture({ broker: { config: { longPollingEnable: false } } });
      fx.seedBacklog(3);
      const req = fx.pull(heldUs, { offset: 3, subVersion: 100 });
      fx.runUntil(10 * S);
      const tickUs = Math.ceil((heldUs + S) / S) * S;
      expect(fx.ctx.records("pullHeld")).toHaveLength(1);
      expect(fx.answers(req)).toMatchObject([{ atUs: tickUs, code: ResponseCode.PULL_NOT_FOUND }]);
      expect(fx.source.wakeRequests).toEqual([]); // a short poll asks for no arrival wake-up
    },
  );

  // §13.4: the reput thread calls notifyMessageArriving only "if longPollingEnable" (5.x; 4.9's
  // ReputMessageService has the same condition), so a short poll is answered only by the 1 s tick.
  it("longPollingEnable false (5.x): a message arriving during a short poll is delivered at the next 1 s tick, not at once", () => {
    const fx = fixture({ profile: "5.x", broker: { config: { longPollingEnable: false } } });
    fx.source.plan(fx.queueOf(T), 2700 * MS);
    const req = fx.pull(2200 * MS, { offset: 0, subVersion: 100 });
    fx.runUntil(5 * S);
    expect(fx.source.wakeRequests).toEqual([]);
    expect(fx.answers(req)).toMatchObject([{ atUs: 3 * S, code: ResponseCode.SUCCESS, nextBeginOffset: 1 }]);
  });

  it("longPollingEnable true (5.x): the same arrival answers the pull at its birth", () => {
    const fx = fixture({ profile: "5.x" });
    fx.source.plan(fx.queueOf(T), 2700 * MS);
    const req = fx.pull(2200 * MS, { offset: 0, subVersion: 100 });
    fx.wakeUp(2700 * MS);
    expect(fx.answers(req)).toMatchObject([{ atUs: 2700 * MS, code: ResponseCode.SUCCESS, nextBeginOffset: 1 }]);
  });
});

describe("notifyMessageArriving and the hold check: which held pulls are replayed (§13.4)", () => {
  it("the 5 s check replays a pull whose message was stored without a wake-up (a null tag matches every filter)", () => {
    const fx = fixture({ topic: { produce: { rate: 0, tags: { A: 1, B: 1 } } }, group: { subscribe: { T: "A" } } });
    fx.source.plan(fx.queueOf(T), 2 * S, TAG_A);
    const req = fx.pull(S + 500 * MS, { offset: 0, subVersion: 100 });
    fx.runUntil(5 * S - 1);
    expect(fx.answers(req)).toEqual([]);
    fx.runUntil(5 * S);
    expect(fx.answers(req)).toMatchObject([{ atUs: 5 * S, code: ResponseCode.SUCCESS, offsets: [0] }]);
  });

  it("a replay that finds only filtered-out messages answers PULL_RETRY_IMMEDIATELY past them, without re-holding", () => {
    const fx = fixture({ topic: { produce: { rate: 0, tags: { A: 1, B: 1 } } }, group: { subscribe: { T: "A" } } });
    fx.source.plan(fx.queueOf(T), 2 * S, TAG_B);
    fx.source.plan(fx.queueOf(T), 3 * S, TAG_B);
    const req = fx.pull(S + 500 * MS, { offset: 0, subVersion: 100 });
    fx.runUntil(5 * S);
    expect(fx.answers(req)).toMatchObject([{ atUs: 5 * S, code: ResponseCode.PULL_RETRY_IMMEDIATELY, nextBeginOffset: 2, count: 0 }]);
    expect(fx.ctx.records("pullHeld")).toHaveLength(1);
  });

  it("a notice with a maxOffset not beyond the pull's offset keeps it held", () => {
    const fx = fixture();
    fx.seedBacklog(3);
    const req = fx.pull(10 * MS, { offset: 3, subVersion: 100 });
    fx.broker.processor.notifyMessageArriving(req.mq, 3, null);
    expect(fx.answers(req)).toEqual([]);
    expect(fx.broker.processor.hold.heldCount(req.mq)).toBe(1);
  });

  it("every pull held on the queue is answered by one arrival, in the order they were held", () => {
    const fx = fixture();
    fx.heartbeat(0, 1, 100);
    fx.produceEvery(S, 3);
    const a = fx.pull(100 * MS, { offset: 0, slot: 1, subVersion: 100 });
    const b = fx.pull(200 * MS, { offset: 0, slot: 0, subVersion: 100 });
    expect(fx.broker.heldOnTopic(T)).toBe(2);
    fx.wakeUp(S);
    expect(fx.ctx.replies.filter((r) => r.request === a || r.request === b).map((r) => r.request)).toEqual([a, b]);
    expect(fx.broker.heldOnTopic(T)).toBe(0);
  });

  it("an arrival on another queue of the topic leaves a pull held on this one alone", () => {
    const fx = fixture({ topic: { queuesPerBroker: 2 } });
    fx.source.plan(fx.queueOf(T, 1), S);
    const req = fx.pull(100 * MS, { offset: 0, mq: fx.queueOf(T, 0), subVersion: 100 });
    fx.wakeUp(S);
    expect(fx.answers(req)).toEqual([]);
    expect(fx.broker.processor.hold.heldCount(fx.queueOf(T, 0))).toBe(1);
  });

  it("putMessage marks a held queue once until its arrival is handled (one wake-up per queue)", () => {
    const fx = fixture();
    const mq = fx.queueOf(T);
    expect(fx.broker.putMessage(mq, 0, 100, -1)).toBe(false); // nobody held
    const req = fx.pull(10 * MS, { offset: 1, subVersion: 100 });
    expect(fx.broker.putMessage(mq, 20 * MS, 100, -1)).toBe(true);
    expect(fx.broker.putMessage(mq, 30 * MS, 100, -1)).toBe(false);
    fx.runUntil(40 * MS);
    fx.broker.processor.onArrived(mq);
    expect(fx.answers(req)).toMatchObject([{ atUs: 40 * MS, code: ResponseCode.SUCCESS, offsets: [1, 2] }]);
    expect(fx.observer.of("messageStored")).toEqual([[mq, 0, -1], [mq, 1, -1], [mq, 2, -1]]);
  });
});

describe("crash: the broker forgets what it held", () => {
  it("drops every held pull with ctx.drop, in queue order, answers none of them, and nothing wakes them later", () => {
    const fx = fixture();
    fx.heartbeat(0, 1, 100);
    const retry = fx.pull(10 * MS, { offset: 0, mq: fx.retryQueue(G), slot: 1, subVersion: 100 });
    const first = fx.pull(20 * MS, { offset: 0, slot: 0, subVersion: 100 });
    const second = fx.pull(30 * MS, { offset: 0, slot: 1, subVersion: 100 });
    expect(fx.retryQueue(G)).toBeGreaterThan(fx.queueOf(T));
    fx.runUntil(S);
    fx.broker.crash();
    expect(fx.ctx.dropped).toEqual([first, second, retry]);
    expect(fx.broker.heldOnTopic(T)).toBe(0);
    expect(fx.broker.heldOnTopic(fx.routes.retryTopic(G))).toBe(0);
    fx.source.plan(fx.queueOf(T), 2 * S);
    fx.runUntil(30 * S);
    const held = new Set<Command>([retry, first, second]);
    expect(fx.ctx.replies.filter((r) => held.has(r.request))).toEqual([]);
  });
});

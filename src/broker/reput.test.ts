// The reput thread's 1 ms passes (reput.ts, broker spec §1.2): a message is pullable, counts in the consume
// queue's max offset and wakes held pulls only from the first pass at or after its birth. Grid: multiples
// of 1 000 µs from 0. Driven through the broker fixture (testBroker.ts); fx.wakeUp plays the producers'
// arrival wake-up at a pass.
import { describe, expect, it } from "vitest";
import { ResponseCode } from "../protocol/codes.ts";
import { BrokerFixture, MS, S } from "./testBroker.ts";
import { dispatchedMax, lastReputTickUs, REPUT_INTERVAL_US, reputTickAtOrAfterUs } from "./reput.ts";

function fixture(): BrokerFixture {
  const fx = new BrokerFixture({});
  fx.heartbeat(0, 0, 100);
  return fx;
}

describe("reput grid", () => {
  it("a time on a pass is its own pass; any other time rounds down (last pass) or up (dispatching pass)", () => {
    expect(REPUT_INTERVAL_US).toBe(1000);
    expect([lastReputTickUs(0), lastReputTickUs(999), lastReputTickUs(1000), lastReputTickUs(2_500_001)]).toEqual([0, 0, 1000, 2_500_000]);
    expect([reputTickAtOrAfterUs(0), reputTickAtOrAfterUs(1), reputTickAtOrAfterUs(1000), reputTickAtOrAfterUs(1001)]).toEqual([0, 1000, 1000, 2000]);
  });

  it("times beyond 2^31 µs (a day is 8.64e10) round as the remainder would", () => {
    for (const t of [2 ** 31 + 1, 86_399_999_999, 86_400_000_000, 2 ** 52 + 1001]) {
      expect(lastReputTickUs(t)).toBe(t - (t % 1000));
      expect(reputTickAtOrAfterUs(t)).toBe(t % 1000 === 0 ? t : t - (t % 1000) + 1000);
    }
  });
});

describe("dispatchedMax: the consume queue ends at the messages born by the last pass", () => {
  it("messages born after the last pass are stored but not counted", () => {
    // Born at 1.0, 1.2, 1.4, 1.6 ms (offsets 0..3). At 1.5 ms the last pass is 1 ms: only offset 0 is
    // dispatched; three are stored (born ≤ 1.5 ms). At 2 ms all four.
    const fx = fixture();
    const mq = fx.queueOf(0);
    for (const b of [1000, 1200, 1400, 1600]) fx.source.plan(mq, b);
    fx.source.advanceTo(1500);
    const q = fx.broker.store.queue(mq);
    expect(q.maxOffset).toBe(3);
    expect(dispatchedMax(q, 1500)).toBe(1);
    fx.source.advanceTo(2000);
    expect(dispatchedMax(q, 2000)).toBe(4);
  });

  it("a burst longer than the backward walk is found by the binary search", () => {
    // 20 messages born at 1 ms and 40 at 1.001..1.040 ms: at 1.9 ms, 20 are dispatched.
    const fx = fixture();
    const mq = fx.queueOf(0);
    for (let i = 0; i < 20; i++) fx.source.plan(mq, 1000);
    for (let i = 1; i <= 40; i++) fx.source.plan(mq, 1000 + i);
    fx.source.advanceTo(1900);
    expect(dispatchedMax(fx.broker.store.queue(mq), 1900)).toBe(20);
  });

  it("after a lost tail moved the max offset back, the cut message's born time no longer decides", () => {
    // Born at 1.0 and 1.2 ms, then the second is cut: at 1.5 ms the one left (born 1 ms) is dispatched.
    const fx = fixture();
    const mq = fx.queueOf(0);
    for (const b of [1000, 1200]) fx.source.plan(mq, b);
    fx.source.advanceTo(1300);
    const q = fx.broker.store.queue(mq);
    expect(dispatchedMax(q, 1500)).toBe(1);
    q.truncateTo(1);
    expect(dispatchedMax(q, 1500)).toBe(1);
    expect(dispatchedMax(q, 999)).toBe(0);
  });
});

describe("PULL_MESSAGE between passes", () => {
  it("a pull sees only the dispatched messages and reports the dispatched max offset", () => {
    // Born at 2 s and 2 s + 300 µs; a pull at 2 s + 500 µs (last pass 2 s) reads offset 0 only, maxOffset 1.
    const fx = fixture();
    const mq = fx.queueOf(0);
    fx.source.plan(mq, 2 * S);
    fx.source.plan(mq, 2 * S + 300);
    const req = fx.pull(2 * S + 500, { offset: 0, subVersion: 100 });
    expect(fx.answers(req)).toMatchObject([{ code: ResponseCode.SUCCESS, nextBeginOffset: 1, maxOffset: 1, offsets: [0] }]);
  });

  it("a pull held while a stored message waits for its pass is woken at that pass", () => {
    // Born at 5 s + 200 µs; the pull at 5 s + 400 µs stores it but sees max 0 (last pass 5 s): held,
    // and the queue is announced for the next pass, 5.001 s, which answers it.
    const fx = fixture();
    const mq = fx.queueOf(0);
    fx.source.plan(mq, 5 * S + 200);
    const req = fx.pull(5 * S + 400, { offset: 0, subVersion: 100 });
    expect(fx.ctx.records("pullHeld")).toMatchObject([{ mq, offset: 0 }]);
    expect(fx.source.arrived).toEqual([mq]);
    fx.wakeUp(5 * S + MS);
    expect(fx.answers(req)).toMatchObject([{ atUs: 5 * S + MS, code: ResponseCode.SUCCESS, nextBeginOffset: 1, offsets: [0] }]);
  });
});

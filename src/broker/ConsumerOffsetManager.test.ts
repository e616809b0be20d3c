// ConsumerOffsetManager (spec §13.6): the committed offset of every (group, queue), overwritten by each
// commit, and the copy flushed every flushConsumerOffsetInterval that a restarted broker comes back with.
// The broker's timer that flushes it and the crash/restart around it are in Broker.test.ts.
import { describe, expect, it } from "vitest";
import { Trace } from "../sim/Trace.ts";
import { ConsumerOffsetManager, offsetKey } from "./ConsumerOffsetManager.ts";
import { defineBrokerTrace } from "./trace.ts";

const G = 0;
const H = 1;

function manager() {
  const trace = new Trace();
  trace.setCapture(() => true);
  return { m: new ConsumerOffsetManager(trace, defineBrokerTrace(trace)), trace };
}

describe("ConsumerOffsetManager.commitOffset and queryOffset", () => {
  it("answers −1 for a (group, queue) never committed", () => {
    expect(manager().m.queryOffset(G, 3)).toBe(-1);
  });

  it("overwrites: the last commit wins, even a smaller one", () => {
    const { m } = manager();
    m.commitOffset(G, 3, 300, 1, 10);
    m.commitOffset(G, 3, 200, 0, 20);
    expect(m.queryOffset(G, 3)).toBe(200);
  });

  it("keeps groups and queues apart", () => {
    const { m } = manager();
    m.commitOffset(G, 3, 30, 0, 0);
    m.commitOffset(H, 3, 31, 0, 0);
    m.commitOffset(G, 4, 40, 0, 0);
    expect([m.queryOffset(G, 3), m.queryOffset(H, 3), m.queryOffset(G, 4), m.queryOffset(H, 4)]).toEqual([30, 31, 40, -1]);
    expect(offsetKey(H, 3)).not.toBe(offsetKey(G, 3));
  });

  it("traces every commit with how it came (viaPull 1: piggy-backed on a pull)", () => {
    const { m, trace } = manager();
    m.commitOffset(G, 3, 30, 1, 10);
    m.commitOffset(H, 4, 40, 0, 20);
    expect(trace.captured).toEqual([
      { type: "offsetCommit", tUs: 10, mq: 3, group: G, offset: 30, viaPull: 1 },
      { type: "offsetCommit", tUs: 20, mq: 4, group: H, offset: 40, viaPull: 0 },
    ]);
  });
});

describe("ConsumerOffsetManager.flush, restore and unflushedCount", () => {
  it("counts the offsets that changed since the last flush", () => {
    const { m } = manager();
    m.commitOffset(G, 3, 30, 0, 0);
    m.commitOffset(G, 4, 40, 0, 0);
    expect(m.unflushedCount()).toBe(2);
    m.flush();
    expect(m.unflushedCount()).toBe(0);
    m.commitOffset(G, 3, 30, 0, 0); // same value: nothing would be lost
    m.commitOffset(G, 4, 41, 0, 0);
    expect(m.unflushedCount()).toBe(1);
  });

  it("restore brings back the table as last flushed: later commits are lost, offsets never flushed are gone", () => {
    const { m } = manager();
    m.commitOffset(G, 3, 30, 0, 0);
    m.flush();
    m.commitOffset(G, 3, 35, 0, 0);
    m.commitOffset(G, 4, 40, 0, 0);
    m.restore();
    expect([m.queryOffset(G, 3), m.queryOffset(G, 4)]).toEqual([30, -1]);
    expect(m.unflushedCount()).toBe(0);
  });

  it("a flush is a copy: commits after it do not change what a restore finds", () => {
    const { m } = manager();
    m.commitOffset(G, 3, 30, 0, 0);
    m.flush();
    m.commitOffset(G, 3, 31, 0, 0);
    m.restore();
    m.commitOffset(G, 3, 32, 0, 0);
    m.restore();
    expect(m.queryOffset(G, 3)).toBe(30);
  });

  it("snapshot lists the entries in the order first committed, as a Map keeps them; syncFrom adds the master's", () => {
    const { m } = manager();
    m.commitOffset(H, 9, 90, 1, 0);
    m.commitOffset(G, 3, 30, 1, 0);
    m.commitOffset(H, 9, 91, 1, 0);
    expect([...m.snapshot()]).toEqual([[offsetKey(H, 9), 91], [offsetKey(G, 3), 30]]);
    m.syncFrom(new Map([[offsetKey(G, 1_000_000), 7], [offsetKey(G, 3), 33]]));
    expect([...m.snapshot()]).toEqual([[offsetKey(H, 9), 91], [offsetKey(G, 3), 33], [offsetKey(G, 1_000_000), 7]]);
    expect([m.size, m.queryOffset(G, 1_000_000), m.flushedOffset(G, 3)]).toEqual([3, 7, 33]);
  });
});

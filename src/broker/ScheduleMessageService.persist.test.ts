// ScheduleMessageService's offset table across stops, crashes and promotions (broker spec §4.7, §5, §6.3,
// §6.4), and the shared ScheduleLog's memory. A master and a slave node share one ScheduleLog and one
// recording TestContext (so one clock); each service has its own timer code, and the rig's node hands
// each fired timer to the service that set it. Every parked message's originKey is its log offset.
import { describe, expect, it } from "vitest";
import type { Node } from "../net/Node.ts";
import { TestContext } from "../net/testContext.ts";
import { FIRST_DELAY_TIME_US, ScheduleLog, ScheduleMessageService, type ScheduledRetry } from "./ScheduleMessageService.ts";

const MS = 1000;
const S = 1_000_000;
/** A short delay table, µs: level 1 = 1 s, level 2 = 5 s, level 3 = 10 s (index 0 unused). */
const LEVEL_US = [0, 1 * S, 5 * S, 10 * S];
const MASTER_TIMER = 1;
const SLAVE_TIMER = 2;

type Delivery = [node: "master" | "slave", tUs: number, key: number];

class Rig {
  readonly ctx = new TestContext();
  readonly log = new ScheduleLog(LEVEL_US.length);
  readonly delivered: Delivery[] = [];
  readonly master = this.service("master", MASTER_TIMER, true);
  readonly slave = this.service("slave", SLAVE_TIMER, false);
  private readonly node: Node = {
    receive: () => {},
    onResponse: () => {},
    onTimeout: () => {},
    onTimer: (code, arg) => (code === MASTER_TIMER ? this.master : this.slave).onDue(arg),
  };

  private service(name: Delivery[0], timerCode: number, running: boolean): ScheduleMessageService {
    const deliver = (e: ScheduledRetry): void => void this.delivered.push([name, this.ctx.nowUs, e.originKey]);
    return new ScheduleMessageService(this.ctx, timerCode, LEVEL_US, this.log, deliver, running);
  }

  /** Fires the due timers up to `atUs`, then the master parks a message with key `key` at `level`. */
  park(atUs: number, level: number, key: number): void {
    this.runUntil(atUs);
    this.master.park(level, { group: 0, originKey: key, originBornUs: -S, bodyBytes: 100, tag: -1, reconsumeTimes: 1 });
  }

  runUntil(atUs: number): void {
    this.ctx.runTimers(this.node, atUs);
  }

  timersSet(code: number): number[] {
    return this.ctx.timers.filter((t) => t.code === code).map((t) => t.atUs);
  }
}

/** Level 1 (1 s): keys 0–3 parked at 0, 3, 6 and 7.5 s, so due at 1, 4, 7 and 8.5 s. */
function fourOnLevel1(): Rig {
  const rig = new Rig();
  rig.park(0, 1, 0);
  rig.park(3 * S, 1, 1);
  rig.runUntil(5 * S);
  rig.master.persist(); // 0 and 1 delivered (1 s, 4 s): the file says level 1 resumes at offset 2
  rig.park(6 * S, 1, 2);
  rig.park(7500 * MS, 1, 3);
  rig.runUntil(8 * S); // 2 delivered at 7 s; 3 (due 8.5 s) still parked
  return rig;
}

describe("persist, crash and start (§6.3, §6.4)", () => {
  it("a crash loses the table since the last persist: start() re-delivers those messages 1 s after start, with what fell due while down", () => {
    const rig = fourOnLevel1();
    rig.master.crash();
    expect(rig.master.encode()[1]).toBe(2); // what is left is the file
    expect(rig.master.pendingReplays()).toBe(1); // offset 2: delivered at 7 s, after the 5 s persist
    rig.runUntil(20 * S); // the 8.5 s timer fires into a crashed service: nothing
    expect(rig.delivered).toHaveLength(3);
    rig.master.start();
    // From offset 2, first run at max(20 s + 1 s, due 7 s) = 21 s.
    expect(rig.ctx.pendingTimers(MASTER_TIMER)).toMatchObject([{ atUs: 20 * S + FIRST_DELAY_TIME_US, arg: 1 }]);
    rig.runUntil(30 * S);
    expect(rig.delivered).toEqual([
      ["master", 1 * S, 0], ["master", 4 * S, 1], ["master", 7 * S, 2],
      ["master", 21 * S, 2], ["master", 21 * S, 3], // 2 again; 3 was due at 8.5 s, while down
    ]);
    expect(rig.master.redelivered).toBe(1);
    expect(rig.master.pendingReplays()).toBe(2); // the file still says 2: another crash would replay 2 and 3
    rig.master.persist();
    expect(rig.master.pendingReplays()).toBe(0);
  });

  it("a clean stop persists the table first: start() delivers only what was never delivered", () => {
    const rig = fourOnLevel1();
    rig.master.stop(true);
    expect(rig.master.pendingReplays()).toBe(0);
    rig.runUntil(20 * S);
    rig.master.start();
    rig.runUntil(30 * S);
    // Offsets 0–2 were delivered and persisted at stop (table 3); 3 goes at max(21 s, 8.5 s) = 21 s.
    expect(rig.delivered.slice(3)).toEqual([["master", 21 * S, 3]]);
    expect(rig.master.redelivered).toBe(0);
  });

  it("messages that fell due while down go out 1 s after start; a later one at its own due time", () => {
    const rig = new Rig();
    rig.park(0, 1, 0); // level 1, due 1 s
    rig.park(200 * MS, 3, 0); // level 3, due 10.2 s
    rig.runUntil(500 * MS);
    rig.master.stop(true);
    rig.runUntil(5 * S);
    rig.master.start();
    rig.runUntil(20 * S);
    // Level 1: max(5 s + 1 s, 1 s) = 6 s. Level 3: max(6 s, 10.2 s) = 10.2 s.
    expect(rig.delivered).toEqual([["master", 6 * S, 0], ["master", 10200 * MS, 0]]);
  });
});

describe("syncFrom and promotion (§4.7, §5)", () => {
  /** Level 2 (5 s): keys 0–8 parked every 2 s from 0 to 16 s, due at 5, 7, …, 21 s. */
  function promoted(): Rig {
    const rig = new Rig();
    for (let i = 0; i <= 8; i++) {
      rig.park(2 * i * S, 2, i);
      // SlaveSynchronize at 10 s: the master has delivered 0–2 (5, 7, 9 s), its table says 3.
      if (2 * i === 10) rig.slave.syncFrom(rig.master.encode());
    }
    rig.runUntil(18 * S); // the master delivers 3–6 at 11, 13, 15, 17 s
    rig.master.crash();
    rig.runUntil(20 * S); // the master's timer for 7 (19 s) is stale
    rig.slave.start();
    rig.runUntil(30 * S);
    return rig;
  }

  it("a slave delivers nothing and arms no timer until started", () => {
    const rig = new Rig();
    rig.park(0, 2, 0);
    rig.slave.syncFrom([0, 0, 0, 0]);
    rig.runUntil(10 * S);
    expect(rig.delivered).toEqual([["master", 5 * S, 0]]);
    expect(rig.timersSet(SLAVE_TIMER)).toEqual([]);
    expect(rig.slave.running).toBe(false);
  });

  it("a promoted node starts from the table synced at 10 s and re-delivers everything the old master delivered after it", () => {
    const rig = promoted();
    expect(rig.delivered.filter((d) => d[0] === "master").map((d) => d[2])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // From offset 3, first run at max(20 s + 1 s, due 11 s) = 21 s: 3–6 again, 7 (due 19 s) and 8 (due 21 s).
    expect(rig.delivered.filter((d) => d[0] === "slave")).toEqual([3, 4, 5, 6, 7, 8].map((k) => ["slave", 21 * S, k]));
    expect(rig.slave.redelivered).toBe(4);
    expect(rig.master.redelivered).toBe(0);
  });

  it("a running node refuses another node's table", () => {
    const rig = new Rig();
    expect(() => rig.master.syncFrom([0, 0, 0, 0])).toThrow(/running/);
    expect(() => rig.slave.syncFrom([0, 0])).toThrow(RangeError);
  });
});

describe("onDue: stale timers", () => {
  /** Level 3 (10 s): keys 0 and 1 parked at 0 and 1 s (due 10 and 11 s); stopped cleanly at 2 s. */
  function stoppedAt2s(): Rig {
    const rig = new Rig();
    rig.park(0, 3, 0);
    rig.park(1 * S, 3, 1);
    rig.runUntil(2 * S);
    rig.master.stop(true);
    return rig;
  }

  it("a timer armed before a stop delivers nothing after a restart that re-armed the level later", () => {
    const rig = stoppedAt2s();
    rig.runUntil(9500 * MS);
    rig.master.start(); // max(10.5 s, 10 s) = 10.5 s
    rig.runUntil(20 * S);
    expect(rig.delivered).toEqual([["master", 10500 * MS, 0], ["master", 11 * S, 1]]);
    // Armed at park (10 s), at start (10.5 s), after the first run (11 s); the 10 s one found stale.
    expect(rig.timersSet(MASTER_TIMER)).toEqual([10 * S, 10500 * MS, 11 * S]);
  });

  it("when the restart re-arms at the stale timer's own time, the level is still delivered once", () => {
    const rig = stoppedAt2s();
    rig.runUntil(3 * S);
    rig.master.start(); // max(4 s, 10 s) = 10 s, the time of the timer armed before the stop
    rig.runUntil(20 * S);
    expect(rig.delivered).toEqual([["master", 10 * S, 0], ["master", 11 * S, 1]]);
    expect(rig.master.redelivered).toBe(0);
  });
});

describe("park and onDue without restarts (the single-broker behaviour)", () => {
  it("a service running from construction arms one timer per level, at its head's due time", () => {
    const rig = new Rig();
    for (let i = 0; i < 3; i++) rig.park(100 * i * MS, 1, i); // due 1, 1.1, 1.2 s
    expect(rig.ctx.pendingTimers(MASTER_TIMER)).toMatchObject([{ atUs: 1 * S, arg: 1 }]);
    rig.runUntil(2 * S);
    rig.park(3 * S, 1, 3); // the level ran dry at 1.2 s: this one arms it again, at 4 s
    rig.runUntil(5 * S);
    expect(rig.delivered.map((d) => d[1])).toEqual([1 * S, 1100 * MS, 1200 * MS, 4 * S]);
    expect(rig.timersSet(MASTER_TIMER)).toEqual([1 * S, 1100 * MS, 1200 * MS, 4 * S]);
    expect(rig.master.redelivered).toBe(0);
  });
});

describe("ScheduleLog: memory", () => {
  /** The master parks `n` messages at level 1 at `atUs` (keys from `first`) and delivers them 1 s later. */
  function parkAndDeliver(rig: Rig, atUs: number, first: number, n: number): void {
    for (let k = first; k < first + n; k++) rig.park(atUs, 1, k);
    rig.runUntil(atUs + S);
  }

  it("drops delivered entries once every node's table and file are past them, and keeps those a file or a synced table points to", () => {
    const rig = new Rig();
    parkAndDeliver(rig, 0, 0, 3000); // offsets 0–2999 delivered at 1 s
    rig.master.persist(); // the master's file: 3000
    parkAndDeliver(rig, 2 * S, 3000, 1); // 3000 delivered at 3 s; the master needs ≥ min(3001, 3000)
    expect(rig.log.begin(1)).toBe(0); // the slave, never synced, would start from 0
    rig.slave.syncFrom(rig.master.encode()); // 3001
    parkAndDeliver(rig, 4 * S, 3001, 1); // 3001 delivered at 5 s: min(master 3000, slave 3001) = 3000
    // 3000 dropped: more than 1024 and more than half of the 3002 held.
    expect([rig.log.begin(1), rig.log.end(1)]).toEqual([3000, 3002]);
    expect(rig.log.get(1, 3000).originKey).toBe(3000);
    expect(() => rig.log.get(1, 2999)).toThrow(RangeError);
    // What was kept is what a crash replays: a crash and restart at 5 s resume from the file (3000), at 6 s.
    rig.master.crash();
    rig.master.start();
    rig.runUntil(10 * S);
    expect(rig.delivered.slice(-2)).toEqual([["master", 6 * S, 3000], ["master", 6 * S, 3001]]);
    expect(rig.master.redelivered).toBe(2);
  });

  it("keeps everything while fewer than 1025 entries could be dropped", () => {
    const rig = new Rig();
    parkAndDeliver(rig, 0, 0, 1024);
    rig.master.persist();
    rig.slave.syncFrom(rig.master.encode());
    parkAndDeliver(rig, 2 * S, 1024, 1); // every node needs ≥ 1024: 1024 droppable, not more than 1024
    expect(rig.log.begin(1)).toBe(0);
  });

  it("a service refuses a log with another number of levels", () => {
    expect(() => new ScheduleMessageService(new TestContext(), MASTER_TIMER, LEVEL_US, new ScheduleLog(2), () => {})).toThrow(RangeError);
  });
});

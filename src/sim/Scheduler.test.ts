import { describe, expect, it } from "vitest";
import { PENDING_EVENTS_MAX, Scheduler, SchedulerOverflowError } from "./Scheduler.ts";
import { RandomStreams } from "./streams.ts";

/** A scheduler with one kind that records (nowUs, target) of every event it runs. */
function recording(limits?: ConstructorParameters<typeof Scheduler>[0]) {
  const scheduler = new Scheduler(limits);
  const ran: [number, number][] = [];
  const kind = scheduler.defineKind("record", (target) => {
    ran.push([scheduler.nowUs, target]);
  });
  return { scheduler, ran, kind };
}

describe("Scheduler ordering", () => {
  it("runs 10^5 random events, many at equal times, in (atUs, seq) order", () => {
    const { scheduler, ran, kind } = recording({ initialCapacity: 16 });
    const rng = new RandomStreams(7).get("scheduler-order");
    const reference: { atUs: number; seq: number }[] = [];
    for (let seq = 0; seq < 100_000; seq++) {
      // 1000 distinct times for 10^5 events: about 100 events share each time.
      const atUs = Math.floor(rng() * 1000);
      scheduler.scheduleAt(atUs, kind, seq);
      reference.push({ atUs, seq });
    }
    reference.sort((x, y) => x.atUs - y.atUs || x.seq - y.seq);
    expect(scheduler.runUntil(1_000_000)).toBe("idle");
    expect(ran.map(([, seq]) => seq)).toEqual(reference.map((r) => r.seq));
    expect(ran.map(([atUs]) => atUs)).toEqual(reference.map((r) => r.atUs));
  });

  it("keeps the order when scheduling and running are interleaved", () => {
    const scheduler = new Scheduler();
    const rng = new RandomStreams(8).get("scheduler-interleaved");
    const ran: number[] = [];
    let next = 0;
    const expected: { atUs: number; seq: number }[] = [];
    const kind = scheduler.defineKind("chain", (seq) => {
      ran.push(seq);
      // Each event schedules two more until 20 000 exist, some at the current time.
      for (let i = 0; i < 2 && next < 20_000; i++) {
        const atUs = scheduler.nowUs + Math.floor(rng() * 3);
        expected.push({ atUs, seq: next });
        scheduler.scheduleAt(atUs, kind, next++);
      }
    });
    expected.push({ atUs: 0, seq: next });
    scheduler.scheduleAt(0, kind, next++);
    scheduler.runUntil(1_000_000);
    // A sorted reference is valid because every event is scheduled no earlier than the one running.
    expected.sort((x, y) => x.atUs - y.atUs || x.seq - y.seq);
    expect(ran).toEqual(expected.map((e) => e.seq));
  });

  it("passes target, a and b to the handler of the event's kind", () => {
    const scheduler = new Scheduler();
    const seen: string[] = [];
    const one = scheduler.defineKind("one", (t, a, b) => seen.push(`one ${t} ${a} ${b}`));
    const two = scheduler.defineKind("two", (t, a, b) => seen.push(`two ${t} ${a} ${b}`));
    scheduler.scheduleIn(5, two, 1, -2, 2 ** 40);
    scheduler.scheduleIn(5, one, 3);
    scheduler.runUntil(5);
    expect(seen).toEqual([`two 1 -2 ${2 ** 40}`, "one 3 0 0"]);
    expect(scheduler.kindName(two)).toBe("two");
  });
});

describe("Scheduler scheduling from handlers", () => {
  it("runs an event scheduled for the current time after the running one, in the same runUntil", () => {
    const scheduler = new Scheduler();
    const log: string[] = [];
    const second = scheduler.defineKind("second", () => log.push(`second at ${scheduler.nowUs}`));
    const first = scheduler.defineKind("first", () => {
      log.push(`first at ${scheduler.nowUs}`);
      scheduler.scheduleIn(0, second);
      scheduler.scheduleIn(10, second);
    });
    scheduler.scheduleAt(100, first);
    expect(scheduler.runUntil(200)).toBe("idle");
    expect(log).toEqual(["first at 100", "second at 100", "second at 110"]);
  });
});

describe("Scheduler.runUntil", () => {
  it("runs events at exactly untilUs and none after, and leaves the clock at untilUs", () => {
    const { scheduler, ran, kind } = recording();
    for (const atUs of [10, 20, 20, 21]) scheduler.scheduleAt(atUs, kind, atUs);
    expect(scheduler.runUntil(20)).toBe("until");
    expect(ran.map(([t]) => t)).toEqual([10, 20, 20]);
    expect(scheduler.nowUs).toBe(20);
    expect(scheduler.pending).toBe(1);
    expect(scheduler.peekTimeUs()).toBe(21);
  });

  it("advances the clock to untilUs when idle and reports idle", () => {
    const { scheduler } = recording();
    expect(scheduler.runUntil(500)).toBe("idle");
    expect(scheduler.nowUs).toBe(500);
    expect(scheduler.peekTimeUs()).toBe(Infinity);
  });

  it("continues where the previous call stopped", () => {
    const { scheduler, ran, kind } = recording();
    for (const atUs of [5, 15, 25]) scheduler.scheduleAt(atUs, kind);
    scheduler.runUntil(10);
    scheduler.runUntil(20);
    expect(ran.map(([t]) => t)).toEqual([5, 15]);
    expect(scheduler.runUntil(30)).toBe("idle");
    expect(ran.map(([t]) => t)).toEqual([5, 15, 25]);
  });

  it("returns stopped after the event whose handler called stop()", () => {
    const scheduler = new Scheduler();
    const ran: number[] = [];
    const kind = scheduler.defineKind("maybe-stop", (target) => {
      ran.push(target);
      if (target === 2) scheduler.stop();
    });
    for (let i = 1; i <= 4; i++) scheduler.scheduleAt(i, kind, i);
    expect(scheduler.runUntil(100)).toBe("stopped");
    expect(ran).toEqual([1, 2]);
    expect(scheduler.nowUs).toBe(2);
    expect(scheduler.runUntil(100)).toBe("idle");
    expect(ran).toEqual([1, 2, 3, 4]);
  });

  it("rejects an untilUs that is negative or not an integer", () => {
    const scheduler = new Scheduler();
    expect(() => scheduler.runUntil(-1)).toThrow(RangeError);
    expect(() => scheduler.runUntil(1.5)).toThrow(RangeError);
    expect(() => scheduler.runUntil(Number.NaN)).toThrow(RangeError);
  });
});

describe("Scheduler.cancel", () => {
  it("prevents a pending event from running and does not count it", () => {
    const { scheduler, ran, kind } = recording();
    scheduler.scheduleAt(10, kind, 1);
    const id = scheduler.scheduleAt(20, kind, 2);
    scheduler.scheduleAt(30, kind, 3);
    expect(scheduler.cancel(id)).toBe(true);
    expect(scheduler.pending).toBe(2);
    scheduler.runUntil(100);
    expect(ran.map(([, target]) => target)).toEqual([1, 3]);
    expect(scheduler.eventsRun).toBe(2);
  });

  it("returns false when cancelling twice", () => {
    const { scheduler, kind } = recording();
    const id = scheduler.scheduleAt(10, kind);
    expect(scheduler.cancel(id)).toBe(true);
    expect(scheduler.cancel(id)).toBe(false);
    expect(scheduler.pending).toBe(0);
  });

  it("returns false for an event that already ran, even after its slot is reused", () => {
    const { scheduler, ran, kind } = recording();
    const id = scheduler.scheduleAt(10, kind, 1);
    scheduler.runUntil(10);
    const reuse = scheduler.scheduleAt(20, kind, 2);
    expect(scheduler.cancel(id)).toBe(false);
    scheduler.runUntil(20);
    expect(ran.map(([, target]) => target)).toEqual([1, 2]);
    expect(scheduler.cancel(reuse)).toBe(false);
  });

  it("returns false for ids it never issued", () => {
    const scheduler = new Scheduler();
    expect(scheduler.cancel(-1)).toBe(false);
    expect(scheduler.cancel(1.5)).toBe(false);
    expect(scheduler.cancel(2 ** 40)).toBe(false);
  });

  it("reports idle when only cancelled events remain and frees them for reuse", () => {
    const { scheduler, ran, kind } = recording({ initialCapacity: 16 });
    const ids = Array.from({ length: 16 }, (_, i) => scheduler.scheduleAt(100 + i, kind));
    for (const id of ids) scheduler.cancel(id);
    expect(scheduler.peekTimeUs()).toBe(Infinity);
    expect(scheduler.runUntil(50)).toBe("idle");
    expect(scheduler.nowUs).toBe(50);
    for (let i = 0; i < 16; i++) scheduler.scheduleAt(60, kind, i);
    expect(scheduler.runUntil(60)).toBe("idle");
    expect(ran.map(([, target]) => target)).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it("keeps memory bounded and order intact when a timeout is re-armed many times", () => {
    // Models a long-poll timeout: each event cancels the far-future timeout and arms a new one.
    const scheduler = new Scheduler({ initialCapacity: 16 });
    const ran: number[] = [];
    let timeoutId = -1;
    const timeout = scheduler.defineKind("timeout", (target) => ran.push(-target));
    const tick = scheduler.defineKind("tick", (target) => {
      ran.push(target);
      scheduler.cancel(timeoutId);
      timeoutId = scheduler.scheduleIn(1_000_000_000, timeout, target);
      if (target < 200_000) scheduler.scheduleIn(1, tick, target + 1);
    });
    scheduler.scheduleAt(0, tick, 1);
    expect(scheduler.runUntil(2 ** 40)).toBe("idle");
    expect(ran.length).toBe(200_001);
    expect(ran.at(-1)).toBe(-200_000);
    expect(ran.slice(0, 3)).toEqual([1, 2, 3]);
    expect(scheduler.eventsRun).toBe(200_001);
  });
});

describe("Scheduler limits", () => {
  it("reports eventLimit instead of running past maxEvents", () => {
    const scheduler = new Scheduler({ maxEvents: 1_000 });
    // A self-perpetuating event would run forever without the limit.
    const forever = scheduler.defineKind("forever", () => scheduler.scheduleIn(1, forever));
    scheduler.scheduleAt(0, forever);
    expect(scheduler.runUntil(2 ** 50)).toBe("eventLimit");
    expect(scheduler.eventsRun).toBe(1_000);
    expect(scheduler.nowUs).toBe(999);
  });

  it("reports timeLimit instead of running events due after maxTimeUs", () => {
    const { scheduler, ran, kind } = recording({ maxTimeUs: 100 });
    scheduler.scheduleAt(100, kind);
    scheduler.scheduleAt(101, kind);
    expect(scheduler.runUntil(1_000)).toBe("timeLimit");
    expect(ran.map(([t]) => t)).toEqual([100]);
    expect(scheduler.nowUs).toBe(100);
  });

  it("reports timeLimit when asked to run past maxTimeUs with nothing pending", () => {
    const scheduler = new Scheduler({ maxTimeUs: 100 });
    expect(scheduler.runUntil(1_000)).toBe("timeLimit");
    expect(scheduler.nowUs).toBe(100);
  });

  it("rejects invalid limits", () => {
    expect(() => new Scheduler({ maxEvents: -1 })).toThrow(RangeError);
    expect(() => new Scheduler({ maxTimeUs: 1.5 })).toThrow(RangeError);
    expect(() => new Scheduler({ initialCapacity: 2.5 })).toThrow(RangeError);
  });
});

describe("Scheduler time validation", () => {
  it("rejects non-integer, negative, unsafe and past times", () => {
    const { scheduler, kind } = recording();
    expect(() => scheduler.scheduleAt(1.5, kind)).toThrow(RangeError);
    expect(() => scheduler.scheduleAt(-1, kind)).toThrow(RangeError);
    expect(() => scheduler.scheduleAt(Number.NaN, kind)).toThrow(RangeError);
    expect(() => scheduler.scheduleAt(2 ** 53, kind)).toThrow(RangeError);
    expect(() => scheduler.scheduleIn(-1, kind)).toThrow(RangeError);
    expect(() => scheduler.scheduleIn(0.5, kind)).toThrow(RangeError);
    scheduler.runUntil(100);
    expect(() => scheduler.scheduleAt(99, kind)).toThrow(/≥ now \(100 µs\)/);
    expect(scheduler.pending).toBe(0);
  });

  it("rejects an unknown event kind", () => {
    const scheduler = new Scheduler();
    expect(() => scheduler.scheduleAt(0, 0)).toThrow(/unknown event kind/);
    expect(() => scheduler.scheduleAt(0, -1)).toThrow(/unknown event kind/);
  });
});

describe("Scheduler growth", () => {
  it("grows past its initial capacity and keeps every event and id valid", () => {
    const { scheduler, ran, kind } = recording({ initialCapacity: 16 });
    const ids: number[] = [];
    for (let i = 0; i < 5_000; i++) ids.push(scheduler.scheduleAt(5_000 - i, kind, i));
    expect(scheduler.pending).toBe(5_000);
    // Cancel every other event, including ones issued before the arrays grew.
    for (let i = 0; i < 5_000; i += 2) expect(scheduler.cancel(ids[i]!)).toBe(true);
    expect(scheduler.runUntil(10_000)).toBe("idle");
    const expected = Array.from({ length: 2_500 }, (_, k) => 4_999 - 2 * k);
    expect(ran.map(([, target]) => target)).toEqual(expected);
  });
});

describe("Scheduler.runUntil with an event budget", () => {
  it("returns budget after that many events and, called again, runs the rest in the same order", () => {
    const whole = recording();
    const sliced = recording();
    const rng = new RandomStreams(3).get("budget");
    for (let i = 0; i < 1_000; i++) {
      const atUs = Math.floor(rng() * 50); // many events share a microsecond, so budgets end mid-instant
      whole.scheduler.scheduleAt(atUs, whole.kind, i);
      sliced.scheduler.scheduleAt(atUs, sliced.kind, i);
    }
    expect(whole.scheduler.runUntil(100)).toBe("idle");
    const outcomes: string[] = [];
    for (;;) {
      const outcome = sliced.scheduler.runUntil(100, 64);
      outcomes.push(outcome);
      if (outcome !== "budget") break;
      expect(sliced.scheduler.eventsRun % 64).toBe(0);
    }
    expect(outcomes.length).toBe(Math.ceil(1_000 / 64));
    expect(outcomes.at(-1)).toBe("idle");
    expect(sliced.ran).toEqual(whole.ran);
    expect(sliced.scheduler.nowUs).toBe(100);
  });

  it("reports eventLimit, not budget, when maxEvents comes first", () => {
    const scheduler = new Scheduler({ maxEvents: 100 });
    const forever = scheduler.defineKind("forever", () => scheduler.scheduleIn(1, forever));
    scheduler.scheduleAt(0, forever);
    expect(scheduler.runUntil(2 ** 40, 60)).toBe("budget");
    expect(scheduler.runUntil(2 ** 40, 60)).toBe("eventLimit");
    expect(scheduler.eventsRun).toBe(100);
  });

  it("rejects a budget that is not positive", () => {
    expect(() => new Scheduler().runUntil(10, 0)).toThrow(/eventBudget/);
  });
});

describe("Scheduler pending-event limit", () => {
  it("stops with pendingLimit after the event that passed PENDING_EVENTS_MAX and names the kinds that grew", () => {
    const scheduler = new Scheduler();
    const timer = scheduler.defineKind("timer", () => {});
    const delivery = scheduler.defineKind("delivery", () => {}, (target) => (target === 1 ? "NOTIFY" : "PULL"));
    let fanOuts = 0;
    // Each event fans out 100 000 deliveries far in the future, the way a notification storm would.
    const storm = scheduler.defineKind("storm", () => {
      fanOuts++;
      for (let i = 0; i < 100_000; i++) scheduler.scheduleIn(1_000_000, delivery, i % 4 === 0 ? 2 : 1);
      scheduler.scheduleIn(1, storm);
    });
    for (let i = 0; i < 10; i++) scheduler.scheduleAt(5, timer);
    scheduler.scheduleAt(10, storm);
    expect(scheduler.runUntil(2 ** 40)).toBe("pendingLimit");
    // The event that passed the limit finished: every fan-out is whole.
    expect(fanOuts).toBe(Math.floor(PENDING_EVENTS_MAX / 100_000) + 1);
    expect(scheduler.pending).toBe(fanOuts * 100_000 + 1);
    expect(scheduler.pending).toBeGreaterThan(PENDING_EVENTS_MAX);
    const atUs = 10 + fanOuts - 1;
    const notify = fanOuts * 75_000;
    const pull = fanOuts * 25_000;
    const group = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
    expect(scheduler.describePending()).toBe(
      `more than 3 932 160 pending events at ${atUs / 1e6} s of virtual time: delivery NOTIFY ${group(notify)}, delivery PULL ${group(pull)}, storm 1`,
    );
    // It stays stopped: the run cannot go on past the limit.
    expect(scheduler.runUntil(2 ** 40)).toBe("pendingLimit");
    expect(scheduler.eventsRun).toBe(10 + fanOuts);
  });

  it("throws SchedulerOverflowError, naming the kinds, when one event schedules more than the reserve", () => {
    const scheduler = new Scheduler();
    const filler = scheduler.defineKind("filler", () => {});
    const flood = scheduler.defineKind("flood", () => {
      for (;;) scheduler.scheduleIn(1, filler);
    });
    scheduler.scheduleAt(0, flood);
    expect(() => scheduler.runUntil(10)).toThrow(SchedulerOverflowError);
    expect(scheduler.runUntil(10)).toBe("pendingLimit");
    expect(scheduler.describePending()).toMatch(/^more than 3 932 160 pending events at 0 s of virtual time: filler 4 194 30\d$/);
  });

  it("drops cancelled entries before declaring an overflow", () => {
    const { scheduler, kind } = recording();
    const ids: number[] = [];
    for (let i = 0; i < PENDING_EVENTS_MAX; i++) ids.push(scheduler.scheduleAt(1, kind));
    // Fewer than half cancelled: no compaction yet, so the cancelled ones still hold slots.
    for (let i = 0; i < 300_000; i++) scheduler.cancel(ids[i]!);
    for (let i = 0; i < 200_000; i++) scheduler.scheduleAt(2, kind);
    expect(scheduler.pending).toBe(PENDING_EVENTS_MAX - 100_000);
    expect(scheduler.runUntil(0)).toBe("until");
  });
});

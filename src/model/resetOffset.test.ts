// Issue 19: the operator's offset reset (`mqadmin resetOffsetByTime`, the resetOffset fault) in whole runs
// through simulate(), every check each 10 s of virtual time. What it replays counts as duplicates (cause
// "reset"), what it jumps over as skipped — never lost.
//
// The workload every test derives from: one broker, topic T with 2 queues, 100 msg/s evenly spaced
// ("uniform": message i is born at i × 10 ms) and sent round robin, so one queue holds the messages born
// at odd multiples of 10 ms and the other those at even ones (each message k × 20 ms apart on its queue).
// One instance consumes in 1 ms with 1 ms links: it keeps up, each message consumed ~2 ms after its birth.
import { describe, expect, it } from "vitest";
import { DROP_REASON } from "../client/trace.ts";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

function scenario(profile: "4.9" | "5.x", duration: string, faults: unknown[]): ScenarioInput {
  return {
    name: "reset", seed: 1, duration, profile, network: { latency: "1ms" },
    brokers: [{ name: "broker-a" }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 100, arrival: "uniform" } }],
    groups: [{ name: "G", instances: 1, subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults,
  } as ScenarioInput;
}

const run = (sc: ScenarioInput) =>
  simulate(sc, { checkEveryUs: 10 * S, captureTrace: (cl) => (type) => cl.trace.typeName(type) === "resetOffset" });

/** Every message is in exactly one place of the books. */
function balanced(m: ReturnType<typeof simulate>["summary"]["messages"]): number {
  return m.produced - (m.filtered + m.consumed + m.dlq + m.lost + m.skippedAtStart + m.inFlight + m.cached + m.retrying + m.unpulled);
}

const BACK_10M = [{ kind: "resetOffset", at: "20m", group: "G", topic: "T", to: { ago: "10m" } }];

describe("resetOffset back 10 minutes at t = 20 min", () => {
  it("5.x (server-side reset): re-consumes exactly the 60 000 messages born since 10:00, as duplicates caused by the reset", () => {
    // Target time 600 s. 5.x's search (BoundaryType.LOWER) takes each queue's first message stored at or
    // after it: the even queue's message of 600.00 s, the odd queue's of 600.01 s. At 1 200 s every
    // message born before 1 200 s (up to 1 199.99 s) is consumed; the reset is answered to the next pull
    // (the one held for the message of 1 200.00 s) as PULL_OFFSET_MOVED, so the queues restart at those
    // offsets: 100 msg/s × 600 s = 60 000 messages (600.00 … 1 199.99 s) are consumed a second time.
    const r = run(scenario("5.x", "22m", BACK_10M));
    const m = r.summary.messages;
    expect(m.duplicates).toBe(60_000);
    expect(r.recorder.replays.countsOf(0)).toEqual({ rollback: 0, reset: 60_000, rebalance: 0, retryReplay: 0 });
    expect(m.lost).toBe(0);
    expect(m.skippedAtStart).toBe(0);
    expect(balanced(m)).toBe(0);
    // Queue 0 gets the odd multiples of 10 ms here (round robin's start): offset k born at 10 + 20k ms.
    expect(r.summary.faults[0]!.effect).toContain("#0 → 30000, #1 → 29999");
  });

  it("4.9 (Broker2Client push): 60 001 duplicates — the 4.x search takes the nearest message, and the tie goes to the earlier", () => {
    // The 4.x getOffsetInQueueByTime binary search returns the message whose store time is nearest the
    // timestamp: on the odd queue 599.99 s and 600.01 s are both 10 ms away and the earlier wins, so that
    // queue restarts one message sooner than on 5.x: 60 000 + 1. The client drops its queues at
    // 1 200.001 s (push latency), before the message of 1 200.00 s is consumed.
    const r = run(scenario("4.9", "22m", BACK_10M));
    const m = r.summary.messages;
    expect(m.duplicates).toBe(60_001);
    expect(r.recorder.replays.countsOf(0).reset).toBe(60_001);
    expect(m.lost).toBe(0);
    expect(balanced(m)).toBe(0);
    expect(r.summary.faults[0]!.effect).toBe("broker-a: #0 → 29999, #1 → 29999 pushed to 1 client(s)");
  });

  it("4.9: the client drops its queues when the push arrives and writes the offsets 10 s later (MQClientInstance's sleep)", () => {
    // Fault at 1 200 s, push over a 1 ms link: step 0 (suspend, drop, clear: 2 queues) at 1 200.001 s,
    // step 1 (offsets written, queues removed, resume) at 1 210.001 s.
    const r = run(scenario("4.9", "21m", BACK_10M));
    const steps = r.trace.filter((t) => t.type === "resetOffset").map((t) => [t.tUs, t.step, t.queues]);
    expect(steps).toEqual([[1_200_001_000, 0, 2], [1_210_001_000, 1, 2]]);
  });

  it("the queues it removes leave the table with the reset's own drop reason (not OFFSET_ILLEGAL's), when the offsets are written", () => {
    const r = simulate(scenario("4.9", "21m", BACK_10M), { checkEveryUs: 10 * S, captureTrace: (cl) => (type) => cl.trace.typeName(type) === "pqDropped" });
    const drops = r.trace.filter((t) => t.type === "pqDropped").map((t) => [t.tUs, t.reason]);
    expect(drops).toEqual([[1_210_001_000, DROP_REASON.resetOffset], [1_210_001_000, DROP_REASON.resetOffset]]);
  });
});

describe("resetOffset to earliest", () => {
  it("re-consumes everything consumed so far: the 5 999 messages born before 60 s (10 ms … 59.99 s), in both profiles", () => {
    // As above, the message born at 60.00 s is not yet consumed when the reset takes effect (the 4.9
    // push lands at 60.001 s; the 5.x pending reset answers the pull that message wakes).
    for (const profile of ["4.9", "5.x"] as const) {
      const r = run(scenario(profile, "90s", [{ kind: "resetOffset", at: "60s", group: "G", topic: "T", to: "earliest" }]));
      expect(r.summary.messages.duplicates).toBe(5_999);
      expect(r.summary.faults[0]!.effect).toContain("#0 → 0, #1 → 0");
      expect(balanced(r.summary.messages)).toBe(0);
    }
  });
});

describe("resetOffset over two brokers (4.9)", () => {
  it("each broker pushes its own queues' table; the client (synchronized resetOffset) handles the second after the first: 20 s in all", () => {
    // T on broker-a and broker-b, 2 queues each. mqadmin asks broker-a, then broker-b, at 60 s; both pushes
    // arrive at 60.001 s. The first: queues of broker-a dropped at 60.001 s, written at 70.001 s; then
    // the second begins at once: broker-b's 2 queues dropped at 70.001 s, written at 80.001 s.
    const sc = scenario("4.9", "90s", [{ kind: "resetOffset", at: "60s", group: "G", topic: "T", to: { ago: "30s" } }]);
    sc.brokers = [{ name: "broker-a" }, { name: "broker-b" }];
    sc.topics[0]!.brokers = ["broker-a", "broker-b"];
    const r = run(sc);
    const steps = r.trace.filter((t) => t.type === "resetOffset").map((t) => [t.tUs, t.step, t.queues]);
    expect(steps).toEqual([[60_001_000, 0, 2], [70_001_000, 1, 2], [70_001_000, 0, 2], [80_001_000, 1, 2]]);
    expect(r.summary.messages.lost).toBe(0);
    expect(balanced(r.summary.messages)).toBe(0);
  });
});

describe("resetOffset to latest with a backlog", () => {
  // G is paused at 60 s (pulls stop; nothing is consumed after the cache drains), the reset to latest
  // comes at 120 s: each queue moves to its max offset, over the backlog born in (60 s, 120 s] —
  // 60 s × 100 msg/s = 6 000 messages, give or take the pulls around the pause (it stops the next pull,
  // not one in flight): between 5 998 and 6 001.
  it("4.9: the backlog is skipped, not lost, and the client resumes (DefaultMQPushConsumerImpl#resume unpauses)", () => {
    const r = run(scenario("4.9", "3m", [
      { kind: "pause", at: "60s", target: "G/0" },
      { kind: "resetOffset", at: "120s", group: "G", topic: "T", to: "latest" },
    ]));
    const m = r.summary.messages;
    expect(m.skippedAtStart).toBeGreaterThanOrEqual(5_998);
    expect(m.skippedAtStart).toBeLessThanOrEqual(6_001);
    expect(m.lost).toBe(0);
    expect(m.duplicates).toBe(0);
    // Resumed at 130.001 s: what was born from 120 s on is consumed (all but the one born at the end).
    expect(m.consumed + m.skippedAtStart + m.unpulled + m.cached + m.inFlight).toBe(m.produced);
    expect(m.unpulled + m.cached + m.inFlight).toBeLessThanOrEqual(2);
    expect(balanced(m)).toBe(0);
  });

  it("4.9 with no consumer online: CONSUMER_NOT_ONLINE, mqadmin falls back to resetOffsetByTimeOld and the restart starts past the backlog", () => {
    // G stops at 60 s (its offsets persisted; the stop runs before the message born at that same instant
    // is delivered), the reset commits the max offsets at 120 s — past the message born at 120.00 s —
    // and G restarts at 130 s from them: the messages born in [60.00 s, 120.00 s], 60 × 100 + 1 = 6 001,
    // are skipped; nothing is consumed twice.
    const r = run(scenario("4.9", "3m", [
      { kind: "consumerStop", at: "60s", target: "G/0" },
      { kind: "resetOffset", at: "120s", group: "G", topic: "T", to: "latest" },
      { kind: "consumerStart", at: "130s", target: "G/0" },
    ]));
    const m = r.summary.messages;
    expect(r.summary.faults[1]!.effect).toContain("no consumer online — resetOffsetByTimeOld committed");
    expect(m.skippedAtStart).toBe(6_001);
    expect(m.lost).toBe(0);
    expect(m.duplicates).toBe(0);
    expect(balanced(m)).toBe(0);
  });

  it("5.x: the reset overwrites the stopped group's committed offsets; it restarts past the same 6 001", () => {
    const r = run(scenario("5.x", "3m", [
      { kind: "consumerStop", at: "60s", target: "G/0" },
      { kind: "resetOffset", at: "120s", group: "G", topic: "T", to: "latest" },
      { kind: "consumerStart", at: "130s", target: "G/0" },
    ]));
    const m = r.summary.messages;
    expect(m.skippedAtStart).toBe(6_001);
    expect(m.lost).toBe(0);
    expect(m.duplicates).toBe(0);
    expect(balanced(m)).toBe(0);
  });
});

describe("resetOffset without force (4.x)", () => {
  it("a reset forward to latest moves no queue whose committed offset is already below the target", () => {
    // force false: Broker2Client keeps the committed offset unless the target is below it. Latest is
    // never below: both queues keep their offsets, nothing is skipped.
    const r = run(scenario("4.9", "3m", [
      { kind: "pause", at: "60s", target: "G/0" },
      { kind: "resetOffset", at: "120s", group: "G", topic: "T", to: "latest", force: false },
      { kind: "resume", at: "150s", target: "G/0" },
    ]));
    expect(r.summary.messages.skippedAtStart).toBe(0);
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.messages.duplicates).toBe(0);
  });
});

// Orderly consumption in whole runs (issue 12): brokers, producers, two orderly instances and the fault
// plan through simulate(), with the conservation and invariant checks every second. Numbers are derived
// from the mechanics in the comments: suspendCurrentQueueTimeMillis 1 s, lockAll at 1 s then every 20 s,
// the broker's 60 s lock expiry, the rebalance cadence of each profile.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;

/** 2 brokers × 2 queues of T at 400 msg/s (100 per queue), two orderly instances, 2 ms per message. */
function orderly(o: { profile?: "4.9" | "5.x"; duration?: string; faults?: unknown[]; listener?: Record<string, unknown>; config?: Record<string, number> } = {}): ScenarioInput {
  return {
    name: "orderly", seed: 3, phase: "aligned", duration: o.duration ?? "90s", profile: o.profile ?? "4.9", network: { latency: "1ms" },
    brokers: [{ name: "broker-a" }, { name: "broker-b" }],
    topics: [{ name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 2, produce: { rate: 400, arrival: "uniform" } }],
    groups: [{
      name: "G", instances: 2, consumeMode: "ORDERLY", subscribe: { T: "*" },
      listener: { consumeTime: "2ms", ...o.listener }, config: o.config,
    }],
    faults: o.faults ?? [],
  } as ScenarioInput;
}

const run = (sc: ScenarioInput) => simulate(sc, { captureTrace: () => () => true, checkEveryUs: S });
type Rec = ReturnType<typeof run>["trace"][number];
const ofType = (trace: readonly Rec[], type: string) => trace.filter((r) => r.type === type);

describe("a dependency outage (failure probability 1 from 30 s to 50 s)", () => {
  const r = run(orderly({ faults: [{ kind: "failureProbability", target: "G", at: "30s", for: "20s", probability: 1 }] }));
  const suspends = ofType(r.trace, "orderlySuspend");
  const queues = [0, 1, 2, 3];

  it("each queue retries its head about once per second and makes no progress while it lasts", () => {
    for (const mq of queues) {
      const mine = suspends.filter((s) => s.mq === mq);
      // The first failure right after 30 s, then one every 1 000 ms + the 2 ms call: 20 in [30 s, 50 s).
      expect(mine.length).toBe(20);
      expect(new Set(mine.map((s) => s.offset)).size).toBe(1); // always the same head
      const gaps = mine.slice(1).map((s, i) => (s.tUs - mine[i]!.tUs) / 1000);
      for (const g of gaps) expect(g).toBeCloseTo(1002, 0);
      // No offset update on the queue between the first failure and the end of the outage.
      const updates = ofType(r.trace, "offsetUpdate").filter((u) => u.mq === mq && u.tUs > mine[0]!.tUs && u.tUs < 50 * S);
      expect(updates).toEqual([]);
    }
    expect(r.summary.orderly.suspends).toBe(80);
  });

  it("the caches fill to the threshold: 1 000 + one pull of 32 at most", () => {
    // 100 msg/s per queue for 20 s = 2 000 arrive, more than 1 000 fit: count flow control from ~40 s.
    // The check (cached > 1 000) comes before a pull of up to 32, so the cache ends between 1 001 and 1 032.
    expect(r.summary.cache.countPerQueueMax).toBeGreaterThan(1000);
    expect(r.summary.cache.countPerQueueMax).toBeLessThanOrEqual(1032);
    expect(r.summary.flowControl.count).toBeGreaterThan(0);
  });

  it("every queue resumes within about a second after recovery, and nothing is lost, duplicated or dead-lettered", () => {
    for (const mq of queues) {
      const head = suspends.filter((s) => s.mq === mq)[0]!.offset as number;
      const done = ofType(r.trace, "offsetUpdate").find((u) => u.mq === mq && (u.offset as number) > head)!;
      // The last failed retry was at 49.x s; the next, ≤ 1.002 s later, succeeds.
      expect(done.tUs).toBeGreaterThanOrEqual(50 * S);
      expect(done.tUs).toBeLessThan(51.01 * S);
    }
    expect(r.summary.orderly.longestHeadBlockMs).toBeGreaterThan(20_000);
    expect(r.summary.orderly.longestHeadBlockMs).toBeLessThan(21_010);
    const m = r.summary.messages;
    expect([m.lost, m.duplicates, m.dlq]).toEqual([0, 0, 0]);
    expect(r.summary.lag.committed.final).toBeLessThan(40);
  });
});

describe("a crashed owner's queues wait for its broker locks to expire", () => {
  // Instance 0 owns broker-a's queues (AVG over sorted ids) and crashes at 50 s (connection closed: the
  // brokers notify instance 1 at once). Its locks were last refreshed by lockAll at 41 s (1, 21, 41): the
  // broker gives them away only after 41 + 60 = 101 s.
  const crash = [{ kind: "consumerCrash", target: "G/0", at: "50s" }];
  const takeover = (r: ReturnType<typeof run>) => ofType(r.trace, "pqCreated").filter((p) => p.consumer === 1 && p.tUs > 50 * S && (p.mq as number) < 2);

  it("5.x: instance 1 retries every second (rebalanceLater, unbalanced) and takes them just after 101 s", () => {
    const r = run(orderly({ profile: "5.x", duration: "110s", faults: crash }));
    const t = takeover(r);
    expect(t.map((p) => p.mq)).toEqual([0, 1]);
    for (const p of t) {
      expect(p.tUs).toBeGreaterThan(101 * S);
      expect(p.tUs).toBeLessThan(102.1 * S);
    }
    // Until then nobody consumes them: no consumeStart on queues 0–1 in (50 s, 101 s].
    const idle = ofType(r.trace, "consumeStart").filter((c) => (c.mq as number) < 2 && c.tUs > 50.1 * S && c.tUs <= 101 * S);
    expect(idle).toEqual([]);
    expect(ofType(r.trace, "lockBatch").filter((l) => l.tUs > 50 * S && l.tUs < 101 * S && l.locked === 0).length).toBeGreaterThan(40);
  });

  it("4.9: a refused lock waits for the next periodic rebalance: 50 (the notification), 70 and 90 s fail, 110 s succeeds", () => {
    const r = run(orderly({ profile: "4.9", duration: "125s", faults: crash }));
    const t = takeover(r);
    expect(t.length).toBe(2);
    for (const p of t) {
      expect(p.tUs).toBeGreaterThan(110 * S);
      expect(p.tUs).toBeLessThan(111 * S);
    }
  });
});

describe("a poison message with a finite orderly maxReconsumeTimes", () => {
  it("maxReconsumeTimes 3: four attempts a second apart, then %DLQ% and the queue moves on", () => {
    const r = run(orderly({ duration: "20s", listener: { poisonFraction: 0.002 }, config: { maxReconsumeTimes: 3 } }));
    const dlq = ofType(r.trace, "dlq");
    expect(dlq.length).toBeGreaterThan(0);
    for (const d of dlq) {
      const tries = ofType(r.trace, "orderlySuspend").filter((s) => s.mq === d.mq && s.offset === d.offset);
      // Attempts 0–3 each fail (counts 0, 1, 2, then 3 ≥ 3 sends it): four suspends ~1 s apart; the
      // send goes out when the fourth fails.
      expect(tries.map((s) => s.reconsumeTimes)).toEqual([0, 1, 2, 3]);
      expect((d.tUs - tries[0]!.tUs) / S).toBeGreaterThan(3);
      expect((d.tUs - tries[0]!.tUs) / S).toBeLessThan(3.1);
      // The next offset is consumed right after.
      const next = ofType(r.trace, "consumeStart").find((c) => c.mq === d.mq && c.offset === (d.offset as number) + 1 && c.tUs >= d.tUs);
      expect(next).toBeDefined();
      expect((next!.tUs - d.tUs) / 1000).toBeLessThan(5);
    }
    expect(r.summary.messages.dlq).toBe(dlq.length);
  });

  it("the default (Integer.MAX_VALUE) blocks the queue for good: its committed offset stops at the poison", () => {
    const r = run(orderly({ duration: "20s", listener: { poisonFraction: 0.002 } }));
    expect(r.summary.messages.dlq).toBe(0);
    const suspends = ofType(r.trace, "orderlySuspend");
    const blocked = r.summary.perQueue.filter((q) => q.topic === "T" && q.orderly !== null && q.orderly.suspends > 0);
    expect(blocked.length).toBeGreaterThan(0);
    for (const q of blocked) {
      const mq = (q.brokerName === "broker-a" ? 0 : 2) + q.queueId;
      const first = suspends.find((x) => x.mq === mq)!;
      // The broker holds the poison's offset (pulls piggy-back it) and the backlog behind it grows at
      // 100 msg/s from its first failure to the end: 20 s − t.
      expect(q.committedOffset).toBe(first.offset);
      expect(q.maxOffset - q.committedOffset).toBeCloseTo(100 * (20 - first.tUs / S), -1);
      // Retried once a second ever since.
      expect(q.orderly!.suspends).toBe(Math.floor((20 * S - first.tUs) / 1_002_000) + 1);
    }
  });
});

describe("a partition between an orderly instance and a broker (scenarios/orderly-lock-expiry.json)", () => {
  it("the instance's locks there go held → expired 30 s after their last refresh → held at the first lockAll that gets through", async () => {
    const { readFileSync } = await import("node:fs");
    const sc = JSON.parse(readFileSync(new URL("../../scenarios/orderly-lock-expiry.json", import.meta.url), "utf8")) as ScenarioInput;
    const r = simulate(sc, { checkEveryUs: S });
    for (const q of r.summary.perQueue.filter((x) => x.brokerName === "broker-b")) {
      // lockAll at 1, 21, 41 s (answered 1–2 ms later); the partition from 60 s to 105 s swallows the
      // 61, 81 and 101 s ones; 121 s gets through.
      expect(q.orderly!.locks.map((l) => [l.state, Math.floor(l.fromMs / 1000), l.toMs === null ? null : Math.floor(l.toMs / 1000)])).toEqual([
        ["held", 0, 71], ["expired", 71, 121], ["held", 121, null],
      ]);
    }
    for (const q of r.summary.perQueue.filter((x) => x.brokerName === "broker-a")) {
      expect(q.orderly!.locks.map((l) => l.state)).toEqual(["held"]);
    }
  });
});

describe("review findings (issue 12): runs that used to fail their checks", () => {
  const T2 = { name: "T", brokers: ["broker-a", "broker-b"], queuesPerBroker: 4, produce: { rate: 400, arrival: "poisson", bodyBytes: "1KiB" } };
  const base = (groups: unknown[], faults: unknown[] = [], duration = "150s", profile = "4.9") => ({
    name: "review", seed: 1, phase: "aligned", duration, profile, brokers: [{ name: "broker-a" }, { name: "broker-b" }], topics: [T2], groups, faults,
  }) as unknown as ScenarioInput;
  const G = (o: Record<string, unknown>) => ({ name: "G", subscribe: { T: "*" }, listener: { consumeTime: { dist: "lognormal", median: "2ms", p99: "10ms" } }, ...o });

  it("BROADCASTING + ORDERLY, no offset file: the first pull's later max offset is a start the books learn (the messages between are skipped at start)", () => {
    for (const profile of ["4.9", "5.x"]) {
      const r = simulate(base([G({ instances: 1, consumeMode: "ORDERLY", messageModel: "BROADCASTING" })], [], "30s", profile), { checkEveryUs: S });
      const m = r.summary.messages;
      expect(m.produced - (m.consumed + m.skippedAtStart + m.inFlight + m.cached + m.unpulled)).toBe(0);
      expect(m.skippedAtStart).toBeGreaterThan(0);
    }
  });

  it("4.9 hung orderly queue then scale 2 → 3 → 1: a dropped ProcessQueue kept in the table keeps its cache (no invariant failure)", () => {
    const r = simulate(base([G({ instances: 2, consumeMode: "ORDERLY" })], [
      { kind: "hangMessage", target: "T@broker-a#3", duration: "forever", at: "20s" },
      { kind: "scale", target: "G", instances: 3, at: "40s" },
      { kind: "scale", target: "G", instances: 1, at: "80s" },
    ]), { checkEveryUs: S });
    expect(r.summary.complete).toBe(true);
  });
});

// Issue 11: the message store tells the truth under replays and resets. Whole runs through simulate(),
// with the invariants (cache counters, committed offsets, conservation) checked every second of virtual
// time, so a defect that bends the books fails the run.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import type { ScenarioInput } from "../scenario/types.ts";

const S = 1_000_000;
const CHECKS = { checkEveryUs: S };

/**
 * One queue at 2 000 msg/s (uniform arrivals). G has 20 workers at 1 ms per message: it keeps up, so by
 * t its committed offset is about 2 000·t. `extraGroups` adds groups beside it.
 */
function replayScenario(duration: string, faults: unknown[], extraGroups: unknown[] = []): ScenarioInput {
  return {
    name: "replay", phase: "aligned", duration, profile: "5.x", network: { latency: "1ms" }, brokers: [{ name: "b" }],
    topics: [{ name: "T", brokers: ["b"], queuesPerBroker: 1, produce: { rate: 2000, arrival: "uniform" } }],
    groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }, ...(extraGroups as ScenarioInput["groups"])],
    faults: faults as ScenarioInput["faults"],
  };
}

describe("a replay re-consumes exactly what was consumed (defect 1)", () => {
  // At 120 s the broker answers G's next pull PULL_OFFSET_MOVED to the queue's min offset, 0 (retention
  // deleted nothing). 5.x fixes the offset at once and re-creates the queue; G then re-reads every
  // message from 0. By then it had consumed N ≈ 240 000 messages; re-reading at up to 20 000 msg/s takes
  // ~15 s, so by 200 s every one of them came back once: duplicates = N, give or take the pulls in flight
  // when the fault hit (a 32-message batch or two).
  const rewind = [{ kind: "offsetIllegal", at: "120s", target: "T@b#0", nextBeginOffset: "min" }];
  const consumedBy120s = simulate(replayScenario("120s", []), CHECKS).summary.messages.consumed;

  it("duplicates = messages consumed before the rewind, and none is lost", () => {
    const r = simulate(replayScenario("200s", rewind), CHECKS);
    expect(consumedBy120s).toBeGreaterThan(239_000);
    expect(Math.abs(r.summary.messages.duplicates - consumedBy120s)).toBeLessThanOrEqual(64);
    expect(r.summary.messages.lost).toBe(0);
    expect(r.summary.perQueue[0]!.minOffset).toBe(0);
  });

  it("whether or not another group holds old messages in memory (it used to change duplicates 15×)", () => {
    // H consumes 10 msg/s with one thread, so it holds the store from near offset 0 the whole run.
    const slow = { name: "H", subscribe: { T: "*" }, consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "100ms" } };
    const alone = simulate(replayScenario("200s", rewind), CHECKS);
    const pinned = simulate(replayScenario("200s", rewind, [slow]), CHECKS);
    const g = (r: typeof alone) => r.summary.groups.find((x) => x.group === "G")!;
    expect(g(pinned).duplicates).toBe(g(alone).duplicates);
    expect(g(pinned).consumed).toBe(g(alone).consumed);
  });
});

describe("offsetIllegal beyond the max offset (defect 3)", () => {
  it("is clamped to the max: the run's books hold, and the messages between are skipped (lost) once", () => {
    // At 30 s G is ~60 000 messages in and fully caught up; a next offset of 10 000 000 becomes max (~60 000).
    const r = simulate(replayScenario("60s", [{ kind: "offsetIllegal", at: "30s", target: "T@b#0", nextBeginOffset: 10_000_000 }]), CHECKS);
    expect(r.summary.messages.consumed + r.summary.messages.lost + r.summary.messages.unpulled + r.summary.messages.cached + r.summary.messages.inFlight)
      .toBe(r.summary.messages.produced);
    expect(r.summary.messages.lost).toBeLessThan(100); // caught up: at most a pull's worth skipped
  });
});

describe("a crash that loses the commit-log tail (brokerCrash lose)", () => {
  // Brokers b and c, one queue each, 2 000 msg/s uniform round robin: 1 000 msg/s per queue. At 30 s b
  // crashes losing everything stored since 1 s: b#0 keeps offsets 0–999 and its next message reuses
  // offset 1 000. G had consumed ~30 000 there. b restarts at 35 s; the producer's route dropped it at the
  // 30.01 s poll and takes it back at 60.01 s, so b#0 refills from then at 1 000 msg/s. G's pulls get
  // SUBSCRIPTION_NOT_EXIST (b's registry is empty) until its heartbeat at ~61 s; the next pull finds b#0's
  // max ~2 040 < 30 000: OFFSET_OVERFLOW_BADLY.
  const crash = (legacy: boolean): ScenarioInput => ({
    name: "tail", phase: "aligned", duration: "120s", profile: "4.9", network: { latency: "1ms" },
    brokers: [{ name: "b", config: { overflowBadlyToZero: legacy } }, { name: "c" }],
    topics: [{ name: "T", brokers: ["b", "c"], queuesPerBroker: 1, produce: { rate: 2000, arrival: "uniform" } }],
    groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    faults: [{ kind: "brokerCrash", at: "30s", target: "b", restartAfter: "5s", lose: "29s" }],
  });

  it("4.9.4+: the consumer moves to the new max, skipping the refilled messages below it (lost), no duplicates", () => {
    const r = simulate(crash(false), CHECKS);
    expect(r.summary.pulls.offsetIllegal).toBeGreaterThanOrEqual(1);
    expect(r.summary.messages.duplicates).toBe(0);
    // What b#0 took from 60.01 s until G's OFFSET_MOVED at ~61 s: ~1 000 × 1.04.
    expect(r.summary.messages.lost).toBeGreaterThan(900);
    expect(r.summary.messages.lost).toBeLessThan(1200);
  });

  it("≤ 4.9.3 (overflowBadlyToZero): moved to 0, it consumes the queue again: the 1 000 kept messages come back as duplicates", () => {
    const r = simulate(crash(true), CHECKS);
    // Lost: only messages of the old tail G had not yet pulled when b crashed (it was caught up: a few).
    expect(r.summary.messages.lost).toBeLessThanOrEqual(5);
    expect(r.summary.messages.duplicates).toBeGreaterThanOrEqual(998);
    expect(r.summary.messages.duplicates).toBeLessThanOrEqual(1001);
  });

  it('"unflushed" loses the last 500 ms, and the books hold', () => {
    const input = crash(false);
    (input.faults![0] as Record<string, unknown>).lose = "unflushed";
    const r = simulate(input, CHECKS);
    // ~500 messages of b#0 lost with the tail; G had read most of them, and the refill past its offset
    // before its pulls resume means the refilled ones below it are skipped: about 500 lost in all.
    expect(r.summary.messages.lost).toBeGreaterThan(300);
    expect(r.summary.messages.lost).toBeLessThanOrEqual(510);
  });
});

describe("a full disk (diskSpaceWarningLevelRatio, broker spec §2.5)", () => {
  it("refuses producers from the first clean-up on (they go to the other broker) while pulls go on", () => {
    // 1 000 msg/s of 1 KiB round robin over b and c: b stores ~590 KB/s, 35 MB by the first clean-up at
    // 60 s, over its 30 MiB disk: DISK_FULL. Its one 1 GiB file is the newest and never deleted, so it
    // stays full. From 60 s a send drawn for b is refused and retried: selectOneMessageQueue(lastBrokerName)
    // moves the round-robin index on to c (broker spec §7.2), so the next send's plain draw is b again —
    // every one of the 60 000 sends of the last minute tries b first and is stored on c.
    const r = simulate({
      name: "disk", phase: "aligned", duration: "120s", network: { latency: "1ms" },
      brokers: [{ name: "b", store: { diskBytes: "30MiB" } }, { name: "c" }],
      topics: [{ name: "T", brokers: ["b", "c"], queuesPerBroker: 1, produce: { rate: 1000, arrival: "uniform" } }],
      groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" } }],
    }, CHECKS);
    expect(r.summary.store.writesRefused).toBeGreaterThanOrEqual(59_900);
    expect(r.summary.store.writesRefused).toBeLessThanOrEqual(60_000);
    expect(r.summary.store.produceFailed).toBe(0);
    expect(r.summary.messages.produced).toBe(120_000);
    expect(r.summary.messages.lost).toBe(0);
    const b = r.summary.perQueue.find((q) => q.brokerName === "b" && q.topic === "T")!;
    expect(b.maxOffset).toBe(30_000); // 60 s × 500 msg/s, then nothing
    expect(b.committedOffset).toBe(30_000); // consumed to the end: pulls were served
  });
});

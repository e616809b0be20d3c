// Acceptance tests of issue 16 (part 2a): the reasons the capture measures as records pass (the consume
// pool, failed send-backs, held pulls), the named causes of a missing owner (a shared client id), pull
// expiry, and the group's %RETRY% queues — each on a scenario built here, with bounds derived from its
// numbers (rates, threads, RocketMQ's timers), never copied from the output.
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import { explain } from "./explain.ts";
import { formatCount } from "./format.ts";
import { REASON, type ExplainedInterval, type Explanation } from "./types.ts";

const S = 1_000_000;

function oneQueue(name: string, extra: { duration: string; rate: number; group?: Record<string, unknown>; broker?: Record<string, unknown>; queues?: number; faults?: unknown[] }): Model {
  return normalizeScenario({
    name, duration: extra.duration, phase: "aligned",
    brokers: [{ name: "broker-a", ...extra.broker }],
    topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: extra.queues ?? 1, produce: { rate: extra.rate } }],
    groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" }, ...extra.group }],
    faults: extra.faults ?? [],
  });
}

function intervalsOf(e: Explanation, queue: string, reason: string): ExplainedInterval[] {
  return (e.queues.find((q) => q.queue === queue)?.intervals ?? []).filter((i) => i.reason === reason);
}

describe("explain: pool saturation", () => {
  // 4 threads × 10 ms = 400 msg/s against 600 msg/s produced; the thresholds are out of reach, so no flow
  // control: the executor queue grows by 200 msg/s. A message arriving at a waits (200·a) / 400 = a/2 and
  // starts at T = 3a/2, so one starting at T has waited T/3: over [0, D] the mean is about D/6, the max D/3.
  const threads = 4;
  const durationS = 10;
  const model = oneQueue("pool", {
    duration: `${durationS}s`, rate: 600,
    group: { config: { consumeThreadMin: threads, consumeThreadMax: threads, pullThresholdForQueue: 50_000, consumeConcurrentlyMaxSpan: 50_000 }, listener: { consumeTime: "10ms" } },
  });

  it("names the full pool and the executor-queue wait, with no flow control, from the start to the end of the run", () => {
    const e = explain(model);
    const q = e.queues.find((x) => x.queue === "TopicTest@broker-a#0")!;
    expect(q.intervals.map((i) => i.reason)).toEqual([REASON.poolSaturated]);
    const i = q.intervals[0]!;
    expect(i.startUs).toBeLessThan(0.5 * S);
    expect(i.ongoing).toBe(true);
    expect(i.figures.poolThreads).toBe(threads);
    expect(i.figures.poolBusyMean as number).toBeGreaterThanOrEqual(threads - 0.5);
    expect(i.figures.poolWaitMaxMs as number).toBeGreaterThan(0.85 * (durationS / 3) * 1000);
    expect(i.figures.poolWaitMaxMs as number).toBeLessThan(1.1 * (durationS / 3) * 1000);
    expect(i.figures.poolWaitMeanMs as number).toBeGreaterThan(0.8 * (durationS / 6) * 1000);
    expect(i.figures.poolWaitMeanMs as number).toBeLessThan(1.2 * (durationS / 6) * 1000);
    // About 400 msg/s started over the interval.
    expect(i.figures.poolStarted as number).toBeGreaterThan(0.9 * 400 * durationS * ((i.endUs - i.startUs) / (durationS * S)));
    expect(i.progress).toBe("slow");
    expect(i.sentence).toContain(`all ${threads} consume threads`);
    expect(i.settings[0]!.setting).toBe("consumeThreadMin");
    // The retry queue, owned by the same instance but with nothing to consume, is not held back by the pool.
    expect(intervalsOf(e, "%RETRY%G1@broker-a#0", REASON.poolSaturated)).toEqual([]);
  });
});

describe("explain: failed send-backs", () => {
  // From 3 s to 7 s every message fails and every send-back (and its fallback) fails: each stays in the
  // ProcessQueue, is consumed again 5 s later (LOCAL_CONSUME_RETRY_DELAY) and pins the committed offset at
  // the first one that failed — until that one's retry at about 8 s succeeds (the faults are over).
  const faultAtUs = 3 * S;
  const faultUs = 4 * S;
  const rate = 100;
  const model = oneQueue("send-back", {
    duration: "15s", rate, group: { listener: { consumeTime: "1ms" } },
    faults: [
      { kind: "failureProbability", at: "3s", target: "G1", probability: 1, for: "4s" },
      { kind: "sendBackFailure", at: "3s", target: "broker-a", for: "4s" },
    ],
  });

  it("names the pinned offset — the first message consumed after the faults began — until its local retry 5 s later", () => {
    // The first offset started at or after the fault, from the per-message records the explainer does not keep.
    const run = simulate(model, { captureTrace: (cl) => (type, mq) => mq === 0 && cl.trace.typeName(type) === "consumeStart" });
    const firstFailed = run.trace.find((r) => r.tUs >= faultAtUs)!.offset as number;
    const e = explain(model);
    const [i, ...rest] = intervalsOf(e, "TopicTest@broker-a#0", REASON.sendBackFailed);
    expect(rest).toEqual([]);
    expect(i!.figures.pinnedOffset).toBe(firstFailed);
    expect(i!.sentence).toContain(formatCount(firstFailed));
    expect(i!.figures.fault).toBe(model.faults[1]!.label);
    expect(i!.startUs).toBeGreaterThanOrEqual(faultAtUs);
    expect(i!.startUs).toBeLessThan(faultAtUs + 0.1 * S);
    const retryUs = CLIENT_CONSTANTS.LOCAL_CONSUME_RETRY_DELAY * 1000;
    expect(i!.endUs - i!.startUs).toBeGreaterThanOrEqual(retryUs);
    expect(i!.endUs - i!.startUs).toBeLessThan(retryUs + 0.1 * S);
    expect(i!.figures.end).toBe("released");
    // Every message that failed during the 4 s is consumed once more (at ≈ rate × 4 s), the last 5 s after the faults.
    expect(i!.figures.retries as number).toBeGreaterThan(0.85 * rate * (faultUs / S));
    expect(i!.figures.retries as number).toBeLessThan(1.15 * rate * (faultUs / S));
    expect(i!.figures.drainedUs as number).toBeGreaterThan(faultAtUs + faultUs + retryUs - 0.1 * S);
    expect(i!.figures.drainedUs as number).toBeLessThan(faultAtUs + faultUs + retryUs + 0.1 * S);
  });

  it("span flow control follows the pin: it names the failed send-back, not a hung listener, about maxSpan ÷ rate after the failure", () => {
    // 1 000 msg/s, 1 % of them failing with their send-backs from 3 s: newer messages run 2 000 offsets
    // (consumeConcurrentlyMaxSpan) past the first pinned one about 2 s after it failed.
    const spanRate = 1000;
    const m = oneQueue("send-back-span", {
      duration: "10s", rate: spanRate, group: { listener: { consumeTime: "1ms" } },
      faults: [
        { kind: "failureProbability", at: "3s", target: "G1", probability: 0.01, for: "6s" },
        { kind: "sendBackFailure", at: "3s", target: "broker-a", for: "6s" },
      ],
    });
    const e = explain(m);
    const [pin] = intervalsOf(e, "TopicTest@broker-a#0", REASON.sendBackFailed);
    const [span] = intervalsOf(e, "TopicTest@broker-a#0", REASON.flowControlSpan);
    expect(span!.figures.committedAtStart).toBe(pin!.figures.pinnedOffset);
    expect(span!.figures.pinnedBy).toBe(REASON.sendBackFailed);
    expect(span!.sentence).not.toContain("hung");
    const onsetUs = (m.groups[0]!.config.consumeConcurrentlyMaxSpan / spanRate) * S;
    expect(span!.startUs - pin!.startUs).toBeGreaterThan(0.9 * onsetUs);
    expect(span!.startUs - pin!.startUs).toBeLessThan(1.2 * onsetUs);
  });
});

describe("explain: long-poll hold", () => {
  // Short polling (longPollingEnable false): a pull finding nothing is held until the next 1 s check
  // (shortPollingTimeMills) while 20 msg/s arrive behind it; every answer brings about 20 of them.
  const rate = 20;
  const model = oneQueue("short-polling", { duration: "20s", rate, broker: { config: { longPollingEnable: false } }, group: { listener: { consumeTime: "1ms" } } });

  it("names the held pulls that delayed arrived messages, with the hold ≈ shortPollingTimeMills", () => {
    const e = explain(model);
    const [i, ...rest] = intervalsOf(e, "TopicTest@broker-a#0", REASON.longPollHold);
    expect(rest).toEqual([]);
    const shortMs = model.brokers[0]!.config.shortPollingTimeMills;
    expect(i!.figures.longPollingEnable).toBe(0);
    expect(i!.figures.heldMeanMs as number).toBeGreaterThan(0.9 * shortMs);
    expect(i!.figures.heldMeanMs as number).toBeLessThanOrEqual(shortMs);
    // One hold per check over the run, each answered with about a second's messages.
    expect(i!.figures.holds as number).toBeGreaterThan(0.9 * (20 * S) / (shortMs * 1000) - 1);
    expect((i!.figures.msgs as number) / (i!.figures.holds as number)).toBeGreaterThan(0.8 * rate * (shortMs / 1000));
    expect(i!.startUs).toBeLessThan(0.1 * S);
    expect(i!.endUs).toBeGreaterThan(20 * S - 1.1 * shortMs * 1000);
    expect(i!.sentence).toContain("shortPollingTimeMills");
  });

  it("with long polling on, lost wake-ups: pulls wait for the hold service's 5 s check, and the fault is named", () => {
    // Every notify lost from 5 s to 25 s: a pull held after an answer sleeps until the next 5 s tick (broker spec §9.2).
    const tickUs = 5 * S;
    const m = oneQueue("lost-wakeup", {
      duration: "30s", rate, group: { listener: { consumeTime: "1ms" } },
      faults: [{ kind: "lostWakeup", at: "5s", target: "broker-a", for: "20s" }],
    });
    const [i, ...rest] = intervalsOf(explain(m), "TopicTest@broker-a#0", REASON.longPollHold);
    expect(rest).toEqual([]);
    expect(i!.figures.longPollingEnable).toBe(1);
    expect(i!.figures.fault).toBe(m.faults[0]!.label);
    expect(i!.figures.heldMeanMs as number).toBeGreaterThan((0.9 * tickUs) / 1000);
    expect(i!.figures.heldMeanMs as number).toBeLessThan((tickUs + 0.1 * S) / 1000);
    // A pull held up to one tick before the fault may be the first to lose its wake-up; none after the fault ends.
    expect(i!.startUs).toBeGreaterThan(5 * S - tickUs);
    expect(i!.endUs).toBeLessThanOrEqual(25 * S + tickUs);
    expect(i!.sentence).toContain("5 s check");
  });

  it("says nothing with long polling on: an idle queue's held pulls are woken by the first arrival", () => {
    const on = oneQueue("long-polling", { duration: "20s", rate, group: { listener: { consumeTime: "1ms" } } });
    expect(intervalsOf(explain(on), "TopicTest@broker-a#0", REASON.longPollHold)).toEqual([]);
  });
});

describe("explain: pull failures named by their cause", () => {
  it("a partition: the pull in flight is not answered and times out 30 s after it was sent (noticed by the 1 s response-table scan)", () => {
    const model = oneQueue("partition", {
      duration: "40s", rate: 100,
      faults: [{ kind: "partition", at: "5s", clients: ["G1/0"], brokers: ["broker-a"], for: "30s" }],
    });
    const faultAtUs = 5 * S;
    const timeoutUs = CLIENT_CONSTANTS.CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND * 1000;
    const [i] = intervalsOf(explain(model), "TopicTest@broker-a#0", REASON.pullFailures);
    expect(i!.figures.cause).toBe("network partition");
    expect(i!.figures.fault).toBe(model.faults[0]!.label);
    expect(i!.figures.timeouts as number).toBeGreaterThanOrEqual(1);
    // From the partition (the pull was sent just before it), to its time-out.
    expect(i!.startUs).toBe(faultAtUs);
    expect(i!.endUs - faultAtUs).toBeGreaterThanOrEqual(timeoutUs);
    expect(i!.endUs - faultAtUs).toBeLessThan(timeoutUs + 2 * S);
    expect(i!.progress).toBe("stopped");
    expect(i!.sentence).toContain("partition");
  });
});

describe("explain: named causes of a missing owner, pull expiry, retry queues", () => {
  it("a shared client id: the queues meant for the second index have no owner from the start, and the id is named", () => {
    // Two instances report "CID": cidAll = [CID, CID], both take the first half of the 4 queues.
    const model = oneQueue("dup", { duration: "20s", rate: 200, queues: 4, group: { instances: 2, clientIds: ["CID", "CID"] } });
    const e = explain(model, { top: 8 });
    const orphans = e.queues.flatMap((q) => q.intervals.filter((i) => i.reason === REASON.noOwner).map((i) => ({ q: q.queue, i })));
    expect(orphans.map((o) => o.q).sort()).toEqual(["TopicTest@broker-a#2", "TopicTest@broker-a#3"]);
    for (const { i } of orphans) {
      expect(i.figures.sharedClientId).toBe("CID");
      expect(i.startUs).toBe(model.groups[0]!.startAtUs);
      expect(i.ongoing).toBe(true);
      expect(i.sentence).toContain("client id CID");
    }
  });

  it("pull expiry: pullInterval 150 s > PULL_MAX_IDLE_TIME, so the queue is dropped after 120 s idle and recreated at that rebalance", () => {
    const model = oneQueue("expire", { duration: "6m", rate: 10, group: { config: { pullInterval: 150_000 } } });
    const e = explain(model);
    const expired = intervalsOf(e, "TopicTest@broker-a#0", REASON.pullExpired);
    const idleUs = CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME * 1000;
    const rebalanceUs = CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL * 1000;
    // One expiry per 120–140 s over 6 minutes.
    expect(expired.length).toBeGreaterThanOrEqual(2);
    for (const i of expired) {
      expect((i.figures.droppedUs as number) - i.startUs).toBeGreaterThan(idleUs);
      expect((i.figures.droppedUs as number) - i.startUs).toBeLessThanOrEqual(idleUs + rebalanceUs);
      if (!i.ongoing) expect(i.endUs - (i.figures.droppedUs as number)).toBeLessThan(0.1 * S);
      expect(i.progress).toBe("stopped");
      expect(i.sentence).toContain("PULL_MAX_IDLE_TIME");
    }
    // Not also told as a missing owner.
    expect(intervalsOf(e, "TopicTest@broker-a#0", REASON.noOwner)).toEqual([]);
  });

  it("explains the group's %RETRY% queues, named as routes name them, and accepts one as --queue", () => {
    const model = oneQueue("retry", { duration: "3s", rate: 10 });
    const e = explain(model);
    expect(e.queues.map((q) => q.queue)).toEqual(["TopicTest@broker-a#0", "%RETRY%G1@broker-a#0"]);
    expect(explain(model, { queue: "%RETRY%G1@broker-a#0" }).queues.map((q) => q.queue)).toEqual(["%RETRY%G1@broker-a#0"]);
  });
});

// Acceptance tests of issue 16 (part 1): on the shipped scenarios the explainer names the real reason,
// and each interval's bounds follow from the scenario's own numbers (rates, thresholds, fault times,
// RocketMQ's timers) — not from a copy of the output.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { simulate } from "../run/simulate.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model } from "../scenario/types.ts";
import { explain, ExplainInputError } from "./explain.ts";
import { formatCount, formatTimeUs, renderExplanation } from "./format.ts";
import { REASON, type ExplainedInterval, type QueueExplanation } from "./types.ts";

const SCENARIOS = join(dirname(fileURLToPath(import.meta.url)), "../../scenarios");
const S = 1_000_000;

function scenario(name: string): Model {
  return normalizeScenario(JSON.parse(readFileSync(join(SCENARIOS, `${name}.json`), "utf8")));
}

function withReason(q: QueueExplanation, reason: string): ExplainedInterval[] {
  return q.intervals.filter((i) => i.reason === reason);
}

describe("formatTimeUs and formatCount", () => {
  it("formats times as 4m12.050s, 12.050s and 1h02m03.000s, and counts with thin groups", () => {
    expect(formatTimeUs(252_050_000)).toBe("4m12.050s");
    expect(formatTimeUs(12_050_999)).toBe("12.050s");
    expect(formatTimeUs(3_723_000_000)).toBe("1h02m03.000s");
    expect(formatTimeUs(0)).toBe("0.000s");
    expect(formatCount(1_873)).toBe("1 873");
    expect(formatCount(41_000)).toBe("41 000");
  });
});

describe("explain: the reasons named on the shipped scenarios", () => {
  it("hung-message: span flow control starts about maxSpan ÷ queue rate after the hang and names the pinned (hung) offset", () => {
    const model = scenario("hung-message");
    const durationUs = 30 * S;
    // The hung offsets, from the per-message records the explainer does not read: started, never ended.
    const run = simulate(model, {
      durationUs,
      captureTrace: (cl) => (type) => cl.trace.typeName(type) === "consumeStart" || cl.trace.typeName(type) === "consumeEnd",
    });
    const open = new Map<string, number>();
    for (const r of run.trace) {
      const k = `${r.mq}:${r.offset}`;
      if (r.type === "consumeStart") open.set(k, (open.get(k) ?? 0) + 1);
      else open.set(k, (open.get(k) ?? 0) - 1);
    }
    const hung = new Set([...open].filter(([, n]) => n > 0).map(([k]) => Number(k.split(":")[1])));

    const e = explain(model, { durationUs });
    const topic = model.topics[0]!;
    const queueRate = topic.produce!.rate / topic.queuesPerBroker;
    const maxSpan = model.groups[0]!.config.consumeConcurrentlyMaxSpan;
    const spans = e.queues.flatMap((q) => withReason(q, REASON.flowControlSpan));
    expect(spans.length).toBeGreaterThanOrEqual(2);
    for (const i of spans) {
      expect(i.figures.committedPinned).toBe(1);
      const hungOffset = i.figures.committedAtStart as number;
      expect(hung.has(hungOffset)).toBe(true);
      expect(i.sentence).toContain(formatCount(hungOffset));
      expect(i.sentence).toContain("hung");
      const hangUs = i.figures.committedSinceUs as number;
      // 2 000 newer offsets arrive behind the hung one at the queue's rate: the onset follows.
      const onsetUs = (maxSpan / queueRate) * S;
      expect(i.startUs).toBeGreaterThan(hangUs);
      expect(i.startUs - hangUs).toBeGreaterThan(0.8 * onsetUs);
      expect(i.startUs - hangUs).toBeLessThan(1.2 * onsetUs);
      expect(i.ongoing).toBe(true);
      expect(i.settings.map((a) => a.setting)).toEqual(expect.arrayContaining(["consumeConcurrentlyMaxSpan", "consumeTimeout"]));
    }
    expect(e.queues.flatMap((q) => withReason(q, REASON.flowControlCount))).toEqual([]);
  });

  it("count-flow-control: the pool saturates first, then count flow control from when the cache fills (threshold ÷ surplus per queue) to the end, caused by the full pool", () => {
    const model = scenario("count-flow-control");
    const durationUs = 20 * S;
    const e = explain(model, { durationUs });
    const g = model.groups[0]!;
    const topic = model.topics[0]!;
    const consumeRate = g.config.consumeThreadMin / 0.01; // 10 ms a message (the listener's consumeTime)
    const surplusPerQueue = (topic.produce!.rate - consumeRate) / topic.queuesPerBroker;
    const fillUs = (g.config.pullThresholdForQueue / surplusPerQueue) * S;
    const ordinary = e.queues.filter((q) => !q.queue.startsWith("%RETRY%"));
    expect(ordinary).toHaveLength(topic.queuesPerBroker);
    // Executor-queue wait once every queue's cache is full: the cached messages of all queues ahead, at the pool's rate.
    const fullWaitUs = ((topic.queuesPerBroker * g.config.pullThresholdForQueue) / consumeRate) * S;
    for (const q of ordinary) {
      // Before the cache fills, the 8 threads are already all busy and messages wait ever longer.
      expect(q.intervals.map((i) => i.reason)).toEqual([REASON.poolSaturated, REASON.flowControlCount]);
      const [pool, i] = q.intervals as [ExplainedInterval, ExplainedInterval];
      expect(pool.startUs).toBeLessThan(0.5 * S);
      expect(pool.endUs).toBe(i.startUs);
      expect(pool.figures.poolThreads).toBe(g.config.consumeThreadMin);
      expect(i.figures.poolSaturated).toBe(1);
      expect(i.figures.poolThreads).toBe(g.config.consumeThreadMin);
      expect(i.figures.poolWaitMaxMs as number).toBeGreaterThan((0.9 * fullWaitUs) / 1000);
      expect(i.figures.poolWaitMaxMs as number).toBeLessThanOrEqual((((topic.queuesPerBroker * (g.config.pullThresholdForQueue + g.config.pullBatchSize)) / consumeRate) * S) / 1000);
      expect(i.figures.poolWaitMeanMs as number).toBeGreaterThan((0.7 * fullWaitUs) / 1000);
      expect(i.sentence).toContain(`all ${g.config.consumeThreadMin} consume threads are busy`);
      expect(i.startUs).toBeGreaterThan(0.8 * fillUs);
      expect(i.startUs).toBeLessThan(1.2 * fillUs);
      expect(i.ongoing).toBe(true);
      expect(i.endUs).toBe(durationUs);
      expect(i.figures.threshold).toBe(g.config.pullThresholdForQueue);
      expect(i.figures.valueMax).toBeLessThanOrEqual(g.config.pullThresholdForQueue + g.config.pullBatchSize);
      expect(i.progress).toBe("slow");
      // The queue still moves at its share of the consumer's rate.
      const rate = (i.figures.pulled as number) / ((i.endUs - i.startUs) / S);
      expect(rate).toBeGreaterThan(0.8 * (consumeRate / topic.queuesPerBroker));
      expect(rate).toBeLessThan(1.2 * (consumeRate / topic.queuesPerBroker));
    }
  });

  it("consumer-crash: the vanished owner's queues have no owner from the crash until the broker's expiry and the next rebalance", () => {
    const model = scenario("consumer-crash");
    const e = explain(model, { durationUs: 240 * S });
    const crash = model.faults.find((f) => f.kind === "consumerCrash" && f.mode === "vanished")!;
    const expiryUs = model.brokers[0]!.config.channelExpiredTimeout * 1000;
    const heartbeatUs = model.groups[0]!.config.heartbeatBrokerInterval * 1000;
    const scanUs = 10 * S; // the broker's scanNotActiveChannel period
    const rebalanceUs = CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL * 1000;
    const orphans = e.queues.flatMap((q) => withReason(q, REASON.noOwner).map((i) => ({ q, i })));
    // The vanished instance held 2 of the 8 queues (4 instances, AllocateMessageQueueAveragely).
    expect(orphans).toHaveLength(2);
    for (const { q, i } of orphans) {
      expect(e.queues.indexOf(q)).toBeLessThan(2); // ranked first
      expect(i.startUs).toBe(crash.atUs);
      expect(i.figures.fault).toBe(crash.label);
      const expiredUs = i.figures.channelExpiredUs as number;
      // Its last heartbeat was at most one interval before the crash; expiry comes at the first scan after.
      expect(expiredUs).toBeGreaterThan(crash.atUs + expiryUs - heartbeatUs);
      expect(expiredUs).toBeLessThanOrEqual(crash.atUs + expiryUs + scanUs);
      // A peer notices at its next periodic rebalance.
      expect(i.endUs).toBeGreaterThan(expiredUs);
      expect(i.endUs).toBeLessThanOrEqual(expiredUs + rebalanceUs + S);
      expect(i.ongoing).toBe(false);
      expect(i.progress).toBe("stopped");
      expect(i.sentence).toContain("vanished");
    }
  });

  it("retention-offset-illegal: OFFSET_ILLEGAL skips to the broker's min offset; 4.9 fixes after 10 s and recreates at the next rebalance", () => {
    const model = scenario("retention-offset-illegal");
    const e = explain(model, { durationUs: 90 * S });
    const [q] = e.queues;
    const illegal = withReason(q!, REASON.offsetIllegal);
    expect(illegal.length).toBeGreaterThanOrEqual(2);
    const rate = model.topics[0]!.produce!.rate;
    const retentionUs = model.topics[0]!.retentionUs;
    for (const i of illegal) {
      const next = i.figures.nextBeginOffset as number;
      const asked = i.figures.requestedOffset as number;
      expect(i.figures.skipped).toBe(next - asked);
      expect(next).toBeGreaterThan(asked);
      // The min offset is what was produced more than `retention` ago (a constant rate from 0).
      expect(next).toBeGreaterThan(((i.startUs - retentionUs) / S) * rate * 0.95);
      expect(next).toBeLessThanOrEqual((i.startUs / S) * rate);
      if (i.figures.fixedUs !== undefined) expect(i.figures.fixedUs).toBe(i.startUs + CLIENT_CONSTANTS.OFFSET_ILLEGAL_FIX_DELAY_49 * 1000);
      if (!i.ongoing) expect(i.endUs - i.startUs).toBeLessThanOrEqual(CLIENT_CONSTANTS.OFFSET_ILLEGAL_FIX_DELAY_49 * 1000 + CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL * 1000 + S);
      expect(i.progress).toBe("stopped");
    }
    // From the second on, the recreated queue starts at an offset already expired: the skips chain.
    expect(illegal[1]!.figures.requestedOffset).toBe(illegal[0]!.figures.nextBeginOffset);
  });

  it("broker-crash: broker-b's queues fail their pulls from the crash until the restart (held pulls time out after 30 s)", () => {
    const model = scenario("broker-crash");
    const e = explain(model, { durationUs: 120 * S, top: 8 });
    const crash = model.faults.find((f) => f.kind === "brokerCrash")!;
    if (crash.kind !== "brokerCrash") throw new Error("unreachable");
    const restartUs = crash.atUs + crash.restartAfterUs!;
    const heartbeatUs = model.groups[0]!.config.heartbeatBrokerInterval * 1000;
    // The topic's queues on broker-b and the group's %RETRY% queue there, which fails the same way.
    const onB = e.queues.filter((q) => q.queue.includes("@broker-b#"));
    expect(onB).toHaveLength(model.topics[0]!.queuesPerBroker + 1);
    expect(onB.map((q) => q.queue)).toContain(`%RETRY%${model.groups[0]!.name}@broker-b#0`);
    for (const q of onB) {
      const [i] = withReason(q, REASON.pullFailures);
      expect(i).toBeDefined();
      expect(i!.figures.fault).toBe(crash.label);
      // A pull held at the crash was sent just before it; otherwise the next pull, a round trip
      // (a few ms of simulated latency) after the crash, is refused.
      expect(i!.startUs).toBeGreaterThan(crash.atUs - S);
      expect(i!.startUs).toBeLessThan(crash.atUs + 0.1 * S);
      // …until the restart, and at most a heartbeat later (SUBSCRIPTION_NOT_EXIST meanwhile).
      expect(i!.endUs).toBeGreaterThanOrEqual(restartUs);
      expect(i!.endUs).toBeLessThanOrEqual(restartUs + heartbeatUs + 2 * S);
      expect((i!.figures.timeouts as number) + (i!.figures.refused as number)).toBeGreaterThan(0);
      expect(i!.figures.cause).toBe("broker down");
      expect(i!.sentence).toContain("30 s");
    }
    for (const q of e.queues.filter((x) => x.queue.includes("@broker-a#"))) expect(withReason(q, REASON.pullFailures)).toEqual([]);
  });
});

describe("explain: more reasons", () => {
  it("topic-thresholds: count flow control at pullThresholdForTopic ÷ the instance's queues (its retry queue counts)", () => {
    const model = scenario("topic-thresholds");
    const e = explain(model, { durationUs: 15 * S, top: 8 });
    const perTopic = model.groups[0]!.config.pullThresholdForTopic;
    const thresholds = new Set<number>();
    for (const q of e.queues) {
      const [i] = withReason(q, REASON.flowControlCount);
      expect(i).toBeDefined();
      expect(i!.figures.perTopic).toBe(perTopic);
      thresholds.add(i!.figures.threshold as number);
      expect(i!.sentence).toContain("pullThresholdForTopic");
    }
    // Two instances share 8 queues; the one that also holds %RETRY%G1 divides by 5, the other by 4.
    expect([...thresholds].sort()).toEqual([perTopic / 5, perTopic / 4]);
  });

  it("a pause: pulls put off every PULL_TIME_DELAY_MILLS_WHEN_SUSPEND from the pause to the resume", () => {
    const pauseAtUs = 3 * S;
    const pauseUs = 4 * S;
    const model = normalizeScenario({
      name: "pause", duration: "10s", phase: "aligned",
      brokers: [{ name: "broker-a" }],
      topics: [{ name: "TopicTest", brokers: ["broker-a"], queuesPerBroker: 2, produce: { rate: 200 } }],
      groups: [{ name: "G1", instances: 1, subscribe: { TopicTest: "*" } }],
      faults: [{ kind: "pause", at: "3s", target: "G1/0", for: "4s" }],
    });
    const e = explain(model);
    // Both queues, and %RETRY%G1 — idle: its pull is held at the broker through the pause, so it is never put off.
    expect(e.queues).toHaveLength(2 + 1);
    expect(e.queues.find((q) => q.queue.startsWith("%RETRY%"))!.intervals).toEqual([]);
    const delayUs = CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_SUSPEND * 1000;
    for (const q of e.queues.filter((x) => !x.queue.startsWith("%RETRY%"))) {
      expect(q.intervals.map((i) => i.reason)).toEqual([REASON.paused]);
      const i = q.intervals[0]!;
      // The first pull after the pause is put off (within a pull round trip); the last one ends a delay after the resume at most.
      expect(i.startUs).toBeGreaterThanOrEqual(pauseAtUs);
      expect(i.startUs).toBeLessThan(pauseAtUs + 0.1 * S);
      expect(i.endUs).toBeGreaterThanOrEqual(pauseAtUs + pauseUs);
      expect(i.endUs).toBeLessThanOrEqual(pauseAtUs + pauseUs + delayUs);
      expect(i.progress).toBe("stopped");
    }
  });
});

describe("explain: options", () => {
  const model = scenario("count-flow-control");

  it("changes nothing in the run: the trace hash is the one simulate gives without capture", () => {
    const e = explain(model, { durationUs: 5 * S });
    expect(e.traceHash).toBe(simulate(model, { durationUs: 5 * S }).traceHash);
  });

  it("explains one queue with --queue, the top N without, and keeps only intervals overlapping --at/--window", () => {
    const one = explain(model, { durationUs: 10 * S, queue: "TopicTest@broker-a#2", top: 1 });
    expect(one.queues.map((q) => q.queue)).toEqual(["TopicTest@broker-a#2"]);
    const top = explain(model, { durationUs: 10 * S, top: 2 });
    expect(top.queues).toHaveLength(2);
    // The topic's 4 queues and the group's %RETRY%G1 (retryQueueNums 1, one broker).
    expect(top.queuesExamined).toBe(4 + 1);
    const early = explain(model, { durationUs: 10 * S, atUs: 0, windowUs: 1 * S });
    // The cache fills after about 3 s: in the first second only the saturated pool shows.
    expect(early.queues.flatMap((q) => q.intervals).every((i) => i.startUs <= 1 * S && i.reason === REASON.poolSaturated)).toBe(true);
    expect(renderExplanation(one)).toContain("TopicTest@broker-a#2 (group G1)");
  });

  it("rejects an unknown queue or group, naming the option", () => {
    expect(() => explain(model, { queue: "TopicTest@broker-z#0" })).toThrow(ExplainInputError);
    try {
      explain(model, { group: "nope" });
    } catch (error) {
      expect((error as ExplainInputError).option).toBe("--group");
    }
  });
});

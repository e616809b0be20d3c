// Client and broker together, through the cluster's transport: what crosses the network, and what the
// unit tests of either side (each against a recording NodeContext) cannot see at once — the broker's
// long poll woken by a producer's arrival, requests to a broker that dies or is down failing at their
// time-outs, the client's retry delays that follow, a restarted broker that has forgotten the group,
// and a late answer reaching a dead incarnation. Every link is a constant 1 ms hop, so round trips are
// exact; each test reads the captured trace and ends with the invariant and conservation checks.
import { describe, expect, it } from "vitest";
import { checkRun } from "../checks/invariants.ts";
import { LATER_REASON } from "../client/trace.ts";
import { Recorder } from "../metrics/Recorder.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { TraceRecord } from "../sim/Trace.ts";
import { Cluster } from "./Cluster.ts";

const S = 1_000_000;
const MS = 1000;
const HOP_US = 1000;
/** CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND: a pull's RPC time-out. */
const PULL_TIMEOUT_US = 30 * S;
/** pullTimeDelayMillsWhenException (default, §2.1). */
const EXCEPTION_DELAY_MS = 1000;
/** mqClientApiTimeout (default): GET_CONSUMER_LIST_BY_GROUP's time-out. */
const API_TIMEOUT_US = 3 * S;
/** Pull result code of a time-out (no answer). */
const TIMED_OUT = -1;

interface RigInput {
  /** Merged into broker-a. */
  broker?: Record<string, unknown>;
  /** Merged into topic T (one queue on broker-a, no production). */
  topic?: Record<string, unknown>;
  /** Merged into group G (one instance, subscribes T "*", starts at 0). */
  group?: Record<string, unknown>;
}

/** A started cluster: broker-a, topic T, group G, 1 ms links, capturing every trace record. */
function rig(input: RigInput = {}) {
  const model = normalizeScenario({
    name: "client-broker", phase: "aligned",
    seed: 1,
    duration: "10m",
    profile: "4.9",
    network: { latency: "1ms" },
    brokers: [{ name: "broker-a", ...input.broker }],
    topics: [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 0 }, ...input.topic }],
    groups: [{ name: "G", subscribe: { T: "*" }, listener: { consumeTime: "1ms" }, ...input.group }],
  });
  const routes = new Routes(model);
  const rec = new Recorder(model, routes, []);
  const cl = new Cluster(model, rec, { routes });
  cl.trace.setCapture(() => true);
  cl.start();
  /** Captured records of one type whose fields equal `where`. */
  const records = (type: string, where: Record<string, number> = {}): TraceRecord[] =>
    cl.trace.captured.filter((r) => r.type === type && Object.entries(where).every(([k, v]) => r[k] === v));
  return { cl, rec, records, mqT: routes.topicQueues(0)[0]!, mqRetry: routes.retryQueue(0, 0) };
}

const within = (r: TraceRecord, fromUs: number, toUs: number) => r.tUs >= fromUs && r.tUs < toUs;

describe("long polling across the network: a held pull is woken by the producer's arrival (§13.4)", () => {
  // No production until 1.7 s, then one message a second, evenly: offset k is born at 2.7 s + k s.
  const topic = { produce: { rate: 0, arrival: "uniform", rateChanges: [{ at: "1700ms", rate: 1 }] } };

  it("the broker holds the pull at maxOffset and answers it one hop after the message is born (Producers.wakeAtNextArrival), not at a hold-service tick", () => {
    const { cl, rec, records, mqT } = rig({ topic });
    cl.sched.runUntil(5 * S);
    const held = records("pullHeld", { mq: mqT });
    expect(held.map((r) => r.offset)).toEqual([0, 1, 2, 3]);
    expect(held[0]!.tUs).toBeLessThan(100 * MS); // the first pull, right after the start-up rebalance
    // Each answer is the arrival at 2.7 s + k s plus one hop; the hold checks run at 5 s multiples.
    expect(records("pullResult", { mq: mqT }).map((r) => [r.tUs, r.code, r.nextBeginOffset])).toEqual([
      [2.7 * S + HOP_US, ResponseCode.SUCCESS, 1],
      [3.7 * S + HOP_US, ResponseCode.SUCCESS, 2],
      [4.7 * S + HOP_US, ResponseCode.SUCCESS, 3],
    ]);
    // The message is consumed as it arrives, and the next pull is held one hop later.
    expect(records("consumeStart", { mq: mqT, offset: 0 }).map((r) => r.tUs)).toEqual([2.7 * S + HOP_US]);
    expect(held[1]!.tUs).toBe(2.7 * S + 2 * HOP_US);
    checkRun(cl, rec);
  });

  it("with longPollingEnable false the arrival wakes nothing: the short poll is answered at the next 1 s hold-service tick", () => {
    const { cl, rec, records, mqT } = rig({ topic, broker: { config: { longPollingEnable: false } } });
    cl.sched.runUntil(3.5 * S);
    // Held at 11 ms for shortPollingTimeMills (1 s): the 1 s tick finds it not yet due, the 2 s tick
    // answers PULL_NOT_FOUND; the pull re-sent at once is held until the 3 s tick, which finds the
    // message born at 2.7 s.
    expect(records("pullResult", { mq: mqT }).map((r) => [r.tUs, r.code, r.nextBeginOffset])).toEqual([
      [2 * S + HOP_US, ResponseCode.PULL_NOT_FOUND, 0],
      [3 * S + HOP_US, ResponseCode.SUCCESS, 1],
    ]);
    checkRun(cl, rec);
  });
});

/**
 * Nothing is produced, so the consumer's two pulls (the retry queue's, sent at 6 ms, and T's, at
 * 10 ms) are held by the broker. The broker crashes at 10 s and restarts at 45.5 s; the run goes on
 * to 70 s. Heartbeats leave at 1 s, 31 s (lost: the broker is down) and 61 s.
 */
function brokerCrashRun() {
  const r = rig();
  const { cl } = r;
  cl.sched.runUntil(10 * S);
  const heldAtCrash = r.records("pullHeld");
  const sentAtCrash = r.records("pullSent");
  cl.crashBroker(0);
  cl.sched.runUntil(45.5 * S);
  cl.restartBroker(0);
  cl.sched.runUntil(70 * S);
  return { ...r, heldAtCrash, sentAtCrash, crashUs: 10 * S, restartUs: 45.5 * S, heartbeatUs: 61 * S };
}

describe("a broker crash with pulls held (Cluster.crashBroker, §4.4)", () => {
  const run = brokerCrashRun();
  const { records } = run;

  it("each held pull fails at its time-out, 30 s after it was sent, and is retried after pullTimeDelayMillsWhenException (1000 ms)", () => {
    expect(run.heldAtCrash.map((r) => r.mq).sort()).toEqual([run.mqT, run.mqRetry].sort());
    for (const mq of [run.mqT, run.mqRetry]) {
      const sentUs = run.sentAtCrash.filter((r) => r.mq === mq).at(-1)!.tUs;
      const timeoutUs = sentUs + PULL_TIMEOUT_US;
      // The time-out is the pull's only outcome: nothing else comes back for it in between.
      const results = records("pullResult", { mq }).filter((r) => r.tUs > sentUs);
      expect(results[0], `queue ${mq}`).toMatchObject({ tUs: timeoutUs, code: TIMED_OUT });
      expect(records("pullLater", { mq }).filter((r) => r.tUs === timeoutUs).map((r) => [r.delayMs, r.reason])).toEqual([
        [EXCEPTION_DELAY_MS, LATER_REASON.exception],
      ]);
    }
  });

  it("while the broker is down, each retry finds the connection refused and waits another 1000 ms without sending", () => {
    for (const mq of [run.mqT, run.mqRetry]) {
      expect(records("pullSent", { mq }).filter((r) => within(r, run.crashUs, run.restartUs))).toEqual([]);
      const later = records("pullLater", { mq }).filter((r) => within(r, run.crashUs, run.restartUs));
      expect(later.length).toBe(16); // the time-out at ~30 s, then refusals at ~31 s … ~45 s
      for (let i = 1; i < later.length; i++) {
        expect(later[i]!.tUs - later[i - 1]!.tUs).toBe(EXCEPTION_DELAY_MS * MS);
        expect(later[i]!.reason).toBe(LATER_REASON.exception);
      }
    }
    // Every time-out and refusal counts as a pull exception, and so does each SUBSCRIPTION_NOT_EXIST
    // answer after the restart (15 a queue, below): nothing else went wrong by 70 s.
    expect(run.cl.clientStats.pulls).toMatchObject({ exception: 2 * 16 + 2 * 15, found: 0 });
  });

  it("the periodic rebalance's GET_CONSUMER_LIST_BY_GROUP to the down broker fails at its 3000 ms time-out, once per subscribed topic", () => {
    const rebalances = records("rebalance").map((r) => r.tUs);
    // The start-up rebalance ends at 10 ms; the next starts 20 s later, at 20.01 s, while the broker is
    // down: two topics (%RETRY%G and T), each waiting out its request's time-out.
    expect(rebalances[1]).toBe(rebalances[0]! + 20 * S + 2 * API_TIMEOUT_US);
    // The one after starts at 46.01 s with the broker back: two round trips of two hops.
    expect(rebalances[2]).toBe(rebalances[1]! + 20 * S + 2 * 2 * HOP_US);
    checkRun(run.cl, run.rec);
  });
});

describe("SUBSCRIPTION_NOT_EXIST before the group's first heartbeat to a restarted broker (§13.1 step 6, §4.4)", () => {
  const run = brokerCrashRun();
  const { records } = run;

  it("the restarted broker has forgotten the group: each pull is answered SUBSCRIPTION_NOT_EXIST and retried after 1000 ms", () => {
    for (const mq of [run.mqT, run.mqRetry]) {
      const refused = records("pullResult", { mq, code: ResponseCode.SUBSCRIPTION_NOT_EXIST });
      expect(refused.length).toBe(15); // one a second (plus a round trip) from ~46 s to ~60 s
      expect(refused[0]!.tUs).toBeGreaterThan(run.restartUs);
      expect(refused.at(-1)!.tUs).toBeLessThan(run.heartbeatUs);
      for (const r of refused) {
        // Sent one hop before the answer, retried 1000 ms after it, at the same offset.
        expect(records("pullSent", { mq }).some((s) => s.tUs === r.tUs - 2 * HOP_US && s.offset === 0)).toBe(true);
        expect(records("pullLater", { mq }).filter((l) => l.tUs === r.tUs).map((l) => [l.delayMs, l.reason])).toEqual([
          [EXCEPTION_DELAY_MS, LATER_REASON.exception],
        ]);
      }
    }
  });

  it("the next heartbeat registers the group again and the following pulls are held, not refused", () => {
    for (const mq of [run.mqT, run.mqRetry]) {
      const after = records("pullHeld", { mq }).filter((r) => r.tUs > run.heartbeatUs);
      expect(after.length).toBe(1);
      expect(after[0]!.tUs).toBeLessThan(run.heartbeatUs + (EXCEPTION_DELAY_MS + 100) * MS);
      expect(records("pullResult", { mq }).filter((r) => r.tUs > run.heartbeatUs)).toEqual([]);
    }
    checkRun(run.cl, run.rec);
  });
});

describe("a request on its way to a broker that goes down", () => {
  // The start-up rebalance sends the retry queue's first pull and T's GET_CONSUMER_LIST_BY_GROUP at
  // 6 ms; both are due at the broker at 7 ms, and the broker dies at 6.5 ms.
  const { cl, rec, records, mqRetry } = rig();
  cl.sched.runUntil(6.5 * MS);
  const sent = records("pullSent", { mq: mqRetry });
  cl.crashBroker(0);
  cl.sched.runUntil(32 * S);

  it("a pull that reaches the down broker fails 30 s after it was sent and is retried 1000 ms later", () => {
    expect(sent.map((r) => r.tUs)).toEqual([6 * MS]);
    expect(records("pullResult", { mq: mqRetry }).map((r) => [r.tUs, r.code])).toEqual([[6 * MS + PULL_TIMEOUT_US, TIMED_OUT]]);
    expect(records("pullLater", { mq: mqRetry })[0]).toMatchObject({ tUs: 6 * MS + PULL_TIMEOUT_US, delayMs: EXCEPTION_DELAY_MS, reason: LATER_REASON.exception });
  });

  it("a GET_CONSUMER_LIST_BY_GROUP that reaches it fails at its 3000 ms time-out, ending the rebalance without T", () => {
    const first = records("rebalance")[0]!;
    expect(first).toMatchObject({ tUs: 6 * MS + API_TIMEOUT_US, queues: 1 });
    expect(records("pqCreated").map((r) => r.mq)).toEqual([mqRetry]);
    checkRun(cl, rec);
  });
});

describe("a dead incarnation's late pull answer (PullMessageService.abandon, §4.3)", () => {
  // 40 messages wait in T; one consume thread takes 1 s a message. The start-up pulls cache all 40 (32,
  // then 8) and the third pull, at offset 40, is held; the retry queue's pull is held too. The instance
  // vanishes at 3.5 s holding 37 cached messages. Production starts at 10 s: the message born at 11 s
  // wakes the held pull on T, whose answer reaches the dead incarnation at 11.001 s; the retry queue's
  // pull is answered PULL_NOT_FOUND by the 20 s hold-service tick.
  const { cl, rec, records, mqT, mqRetry } = rig({
    topic: { produce: { rate: 0, backlog: 40, arrival: "uniform", rateChanges: [{ at: "10s", rate: 1 }] } },
    group: { config: { consumeThreadMin: 1, consumeThreadMax: 1 }, listener: { consumeTime: "1s" } },
  });
  cl.sched.runUntil(3.5 * S);
  const dead = cl.consumers[0]!;
  dead.crash("vanished");
  const consumedAtCrash = rec.groups[0]!.consumed;
  const pullOf = (mq: number) => dead.pullRequests.filter((p) => p.mq === mq).at(-1)!;
  const cachedOffsets = (mq: number) => {
    const out: number[] = [];
    pullOf(mq).pq.forEachCached((o) => out.push(o));
    return out;
  };

  it("keeps the dropped ProcessQueue's cache while the pull is in flight, and releases it when the answer arrives", () => {
    cl.sched.runUntil(11 * S + HOP_US - 1);
    expect(dead.alive).toBe(false);
    expect(pullOf(mqT)).toMatchObject({ inFlight: true, reqOffset: 40 });
    expect(pullOf(mqT).pq.dropped).toBe(true);
    expect(cachedOffsets(mqT)).toEqual(Array.from({ length: 37 }, (_, i) => i + 3));
    cl.sched.runUntil(11 * S + HOP_US);
    expect(pullOf(mqT).inFlight).toBe(false);
    expect(cachedOffsets(mqT)).toEqual([]); // released: the 37 messages and the late one are gone
  });

  it("handles nothing of the answer: no pull result, no message consumed, no new pull", () => {
    expect(records("pullResult").filter((r) => r.tUs > 3.5 * S)).toEqual([]);
    expect(records("pullSent").filter((r) => r.tUs > 3.5 * S)).toEqual([]);
    expect(rec.groups[0]!.consumed).toBe(consumedAtCrash);
    expect(consumedAtCrash).toBe(3); // offsets 0–2 finished before 3.5 s
  });

  it("ends the retry queue's held pull the same way at the 20 s hold-service tick", () => {
    cl.sched.runUntil(20 * S + HOP_US - 1);
    expect(pullOf(mqRetry).inFlight).toBe(true);
    cl.sched.runUntil(20 * S + HOP_US);
    expect(pullOf(mqRetry).inFlight).toBe(false);
    expect(dead.pullRequests.some((p) => p.inFlight)).toBe(false);
    // The messages the dead instance had cached are back to unpulled in the books.
    checkRun(cl, rec);
  });
});

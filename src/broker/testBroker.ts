// A test rig for the broker: a real World built from a scenario with a constant 1 ms network hop, whose
// consumers do not start (unless a test asks), so a test can play the client's side of the protocol by
// hand — send a PULL_MESSAGE or a HEART_BEAT that reaches the broker at a chosen virtual time — and
// read what came back from the trace. Nothing here reaches into private state: requests are scheduled
// as the same event kinds the client uses, answers are the client-side trace records.
import { ProcessQueue } from "../client/ProcessQueue.ts";
import type { PullRequest } from "../client/PullRequest.ts";
import { World } from "../model/World.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { TraceRecord } from "../sim/Trace.ts";

/** One-way latency of every link in a rig, µs (the scenario's constant "1ms"). */
export const HOP_US = 1000;
/** Consumers of a rig start this late unless the group says otherwise: never, within a test. */
const DORMANT = "10h";

export interface RigInput {
  seed?: number;
  profile?: "4.9" | "5.x";
  /** Merged into the one broker, "broker-a". */
  broker?: Record<string, unknown>;
  /** Merged into the default topic "T" (1 queue on broker-a, no production). */
  topic?: Record<string, unknown>;
  /** Replaces the topic list. */
  topics?: Record<string, unknown>[];
  /** Merged into the default group "G" (subscribes T "*", dormant). */
  group?: Record<string, unknown>;
  /** Replaces the group list; groups without startAt are dormant. */
  groups?: Record<string, unknown>[];
}

/** Builds and starts (hold ticks, consumer starts) a World capturing every trace record. */
export function rig(input: RigInput = {}): World {
  const topics = input.topics ?? [{ name: "T", brokers: ["broker-a"], queuesPerBroker: 1, produce: { rate: 0 }, ...input.topic }];
  const groups = (input.groups ?? [{ name: "G", subscribe: { T: "*" }, ...input.group }]).map((g) => ({ startAt: DORMANT, ...g }));
  const w = new World(normalizeScenario({
    name: "rig",
    seed: input.seed ?? 1,
    duration: "10h",
    profile: input.profile ?? "4.9",
    network: { latency: "1ms" },
    brokers: [{ name: "broker-a", ...input.broker }],
    topics,
    groups,
  }));
  w.trace.setCapture(() => true);
  w.start();
  return w;
}

/** Runs `fn` at virtual time `atUs` (a one-off event kind: tests only, never the hot path). */
export function at(w: World, atUs: number, fn: () => void): void {
  w.sched.scheduleAt(atUs, w.sched.defineKind("test", fn));
}

/** Global queue index of queue `i` of topic `topic` (model topics first, then %RETRY% and %DLQ%). */
export function queueOf(w: World, topic: number, i = 0): number {
  return w.topicQueues(topic)[i]!;
}

/**
 * A HEART_BEAT from `consumer` reaching the broker at `atUs`, carrying `subVersionMs` for every topic
 * the consumer subscribes (its retry topic included), without asking for a reply.
 */
export function heartbeatAt(w: World, atUs: number, consumer: number, subVersionMs: number): void {
  at(w, atUs, () => {
    const c = w.consumers[consumer]!;
    for (const s of c.groupModel.subscriptions) c.setSubVersion(s.topic, subVersionMs);
    c.setSubVersion(w.retryTopic(c.group), subVersionMs);
    for (const b of w.brokers) w.sched.scheduleAt(atUs, w.kinds.heartbeat, b.index, consumer, 0);
  });
}

export interface PullInput {
  offset: number;
  mq?: number;
  consumer?: number;
  /** −1 = COMMIT_OFFSET bit clear. */
  commitOffset?: number;
  subVersion?: number;
  maxMsgNums?: number;
}

/** A PULL_MESSAGE request (SUSPEND bit set, 15 s) reaching the broker at `atUs`. */
export function pullAt(w: World, atUs: number, p: PullInput): PullRequest {
  const c = w.consumers[p.consumer ?? 0]!;
  const mq = p.mq ?? queueOf(w, 0);
  const pr = w.newPullRequest(c, mq, new ProcessQueue(atUs), p.offset);
  pr.reqOffset = p.offset;
  pr.reqMaxMsgNums = p.maxMsgNums ?? c.config.pullBatchSize;
  pr.reqCommitOffset = p.commitOffset ?? -1;
  pr.reqSubVersion = p.subVersion ?? 0;
  pr.reqSuspendTimeoutMs = 15_000;
  pr.reqSentUs = atUs - HOP_US;
  pr.inFlight = true;
  const serial = ++pr.reqSerial;
  w.sched.scheduleAt(atUs, w.kinds.brokerPull, pr.id, serial);
  return pr;
}

/** Captured records of one type, optionally only those whose fields equal `where`. */
export function records(w: World, type: string, where: Record<string, number> = {}): TraceRecord[] {
  return w.trace.captured.filter((r) => r.type === type && Object.entries(where).every(([k, v]) => r[k] === v));
}

/** The answers the client received for pull request `pr` (pullResult records on its queue and consumer). */
export function answers(w: World, pr: PullRequest): TraceRecord[] {
  return records(w, "pullResult", { mq: pr.mq, consumer: pr.consumer });
}

export const S = 1_000_000;
export const MS = 1000;

// Test helper for the client transitions: builds a World from a tiny scenario (one broker "broker-a",
// one topic "T", one group "G") and offers short ways to read the captured trace. Tests drive
// transitions by calling the consumer's handlers directly and run the scheduler to see what those
// handlers asked for. Not imported by model code.
import { World } from "../model/World.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Profile } from "../scenario/types.ts";
import type { TraceRecord } from "../sim/Trace.ts";
import { ProcessQueue, type BodySizes } from "./ProcessQueue.ts";
import type { PullRequest } from "./PullRequest.ts";
import type { PushConsumer } from "./PushConsumer.ts";

export const MiB = 1024 * 1024;
export const MS = 1000; // µs per ms
/** Index of topic "T" (model topics come first in the world's topic table). */
export const TOPIC_T = 0;

export interface TinyScenario {
  profile?: Profile;
  /** Queues of topic T (all on broker-a). */
  queues?: number;
  /** Messages already stored in every queue of T at t = 0, born evenly over the hour before. */
  backlog?: number;
  /** Messages per second produced into T (0: none). */
  rate?: number;
  bodyBytes?: string | number;
  retention?: string;
  consumeFromWhere?: string;
  instances?: number;
  /** Consumer config overrides (RocketMQ names and units). */
  config?: Record<string, number | boolean>;
  /** Listener model; consumeTime defaults to a constant 10 ms so task timings are exact. */
  listener?: Record<string, unknown>;
  /** One-way network latency; a constant 1 ms by default so RPC round trips are exact. */
  latency?: unknown;
}

/** A World for the tiny scenario, capturing every trace record. Nothing is scheduled yet. */
export function tinyWorld(s: TinyScenario = {}): World {
  const produce: Record<string, unknown> = { rate: s.rate ?? 0, bodyBytes: s.bodyBytes ?? "1KiB" };
  if (s.backlog !== undefined) produce.backlog = s.backlog;
  const topic: Record<string, unknown> = { name: "T", brokers: ["broker-a"], queuesPerBroker: s.queues ?? 1, produce };
  if (s.retention !== undefined) topic.retention = s.retention;
  const group: Record<string, unknown> = {
    name: "G",
    instances: s.instances ?? 1,
    subscribe: { T: "*" },
    listener: { consumeTime: "10ms", ...s.listener },
  };
  if (s.config !== undefined) group.config = s.config;
  if (s.consumeFromWhere !== undefined) group.consumeFromWhere = s.consumeFromWhere;
  const model = normalizeScenario({
    name: "tiny",
    seed: 7,
    duration: "10m",
    profile: s.profile ?? "4.9",
    network: { latency: s.latency ?? "1ms" },
    brokers: [{ name: "broker-a" }],
    topics: [topic],
    groups: [group],
  });
  const w = new World(model);
  w.trace.setCapture(() => true);
  return w;
}

/** Captured records of one type, oldest first. */
export function records(w: World, type: string): TraceRecord[] {
  return w.trace.captured.filter((r) => r.type === type);
}

/** Captured records of one type on one queue. */
export function recordsOn(w: World, type: string, mq: number): TraceRecord[] {
  return records(w, type).filter((r) => r.mq === mq);
}

/**
 * The world's first consumer made ready to pull without starting it: RUNNING, subscribed to T
 * (subVersion 0), with no timers, heartbeats or rebalance scheduled. Tests then own the clock.
 */
export function readyConsumer(w: World): PushConsumer {
  const c = w.consumers[0]!;
  c.state = "RUNNING";
  c.setSubVersion(TOPIC_T, 0);
  return c;
}

/** A fresh ProcessQueue and its PullRequest on queue `queue` of T, created now. */
export function manualPullRequest(w: World, c: PushConsumer, nextOffset = 0, queue = 0): PullRequest {
  const mq = w.topicQueues(TOPIC_T)[queue]!;
  const pq = new ProcessQueue(w.sched.nowUs);
  return w.newPullRequest(c, mq, pq, nextOffset);
}

/** Every cached message has a body of `bytes` (for driving the cache without a store). */
export function bodies(bytes: number): BodySizes {
  return { bodyBytes: () => bytes };
}

/** Offsets [from, from + n). */
export function range(from: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from + i);
}

/** Puts `offsets` into `pq` using `store` for the body sizes. */
export function cache(pq: ProcessQueue, offsets: number[], store: BodySizes): void {
  pq.putMessage(offsets, offsets.length, store);
}

/** Writes a broker answer into the request, as Broker#processRequest does before the response event. */
export function answer(
  pr: PullRequest,
  code: number,
  r: { nextBeginOffset: number; offsets?: number[]; minOffset?: number; maxOffset?: number },
): void {
  const offsets = r.offsets ?? [];
  pr.respCode = code;
  pr.result.nextBeginOffset = r.nextBeginOffset;
  pr.result.minOffset = r.minOffset ?? 0;
  pr.result.maxOffset = r.maxOffset ?? r.nextBeginOffset;
  pr.result.count = offsets.length;
  offsets.forEach((o, i) => (pr.result.offsets[i] = o));
}

/** Moves the clock of a world with nothing scheduled (or runs what is due) up to `tUs`. */
export function advanceTo(w: World, tUs: number): void {
  w.sched.runUntil(tUs);
}

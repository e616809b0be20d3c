// Test fixture for the client's unit tests: one PushConsumer of a tiny scenario (broker "broker-a", topic
// "T", group "G") on the recording TestContext. Nothing else exists: the test plays the rest of the
// cluster. It moves the clock and fires the consumer's own timers (ctx.runTimers), hands it the answers
// and time-outs of its requests (onResponse / onTimeout), and reads what it asked for — ctx.requests,
// ctx.sent, ctx.timers, the captured trace, the ClientStats and the recording observer. playBroker
// answers the consumer's requests the way a broker would, one network latency each way, for the tests
// of sequences (start, rebalance, send-back). Not imported by model code.
import { TestContext, type RecordedRequest } from "../net/testContext.ts";
import { brokerAddr, clientAddr } from "../protocol/address.ts";
import { PullSysFlag, RequestCode, ResponseCode } from "../protocol/codes.ts";
import {
  GetConsumerListResponse, LockBatchResponse, MessageBatch, PullMessageResponse, QueryConsumerOffsetResponse, SimpleResponse,
  type Command, type LockBatchRequest, type PullMessageRequest, type QueryConsumerOffsetRequest, type UpdateConsumerOffsetRequest,
} from "../protocol/commands.ts";
import { Routes } from "../protocol/routes.ts";
import { normalizeScenario } from "../scenario/normalize.ts";
import type { Model, Profile } from "../scenario/types.ts";
import { makeStrategy } from "./allocate/strategies.ts";
import { ClientStats, type ClientObserver } from "./ClientObserver.ts";
import { ConsumeListeners } from "./ConsumeListeners.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import type { PullRequest } from "./PullRequest.ts";
import { PushConsumer } from "./PushConsumer.ts";

export const MiB = 1024 * 1024;
export const MS = 1000; // µs per ms
/** Index of topic "T" (scenario topics come first in the routes' topic table). */
export const TOPIC_T = 0;
/** Address of broker-a. */
export const BROKER_A = brokerAddr(0);

export interface TinyScenario {
  profile?: Profile;
  /** Queues of topic T (all on broker-a). */
  queues?: number;
  /** Messages stored in every queue of T at t = 0: playBroker's default maxOffset, and what serveBacklog serves. */
  backlog?: number;
  /** Messages per second produced into T (0: none). Shapes the model only: no store exists here. */
  rate?: number;
  bodyBytes?: string | number;
  /** T's retention. Shapes the model only: a test derives what retention would have deleted. */
  retention?: string;
  consumeFromWhere?: string;
  instances?: number;
  /** Consumer config overrides (RocketMQ names and units). */
  config?: Record<string, number | boolean>;
  /** Listener model; consumeTime defaults to a constant 10 ms so task timings are exact. */
  listener?: Record<string, unknown>;
  /** One-way network latency; a constant 1 ms by default: playBroker's round trips take twice that. */
  latency?: unknown;
  /** Brokers: "broker-a" and, with more, "broker-b", … (T stays on broker-a; %RETRY%G is on every broker). */
  brokers?: number;
  /** T's tags and their weights (producer side), so a subscription may name them. */
  tags?: Record<string, number>;
  /** G's subscription expression on T ("*" by default). */
  subscribe?: string;
  /** G's listener kind and message model (CONCURRENTLY, CLUSTERING by default). */
  consumeMode?: "CONCURRENTLY" | "ORDERLY";
  messageModel?: "CLUSTERING" | "BROADCASTING";
}

/** The normalised model of the tiny scenario (the same input the old world tests used). */
export function tinyModel(s: TinyScenario = {}): Model {
  const produce: Record<string, unknown> = { rate: s.rate ?? 0, bodyBytes: s.bodyBytes ?? "1KiB" };
  if (s.backlog !== undefined) produce.backlog = s.backlog;
  if (s.tags !== undefined) produce.tags = s.tags;
  const topic: Record<string, unknown> = { name: "T", brokers: ["broker-a"], queuesPerBroker: s.queues ?? 1, produce };
  if (s.retention !== undefined) topic.retention = s.retention;
  const group: Record<string, unknown> = {
    name: "G",
    instances: s.instances ?? 1,
    subscribe: { T: s.subscribe ?? "*" },
    listener: { consumeTime: "10ms", ...s.listener },
  };
  if (s.config !== undefined) group.config = s.config;
  if (s.consumeFromWhere !== undefined) group.consumeFromWhere = s.consumeFromWhere;
  if (s.consumeMode !== undefined) group.consumeMode = s.consumeMode;
  if (s.messageModel !== undefined) group.messageModel = s.messageModel;
  const brokers = Array.from({ length: s.brokers ?? 1 }, (_, i) => ({ name: `broker-${String.fromCharCode(97 + i)}` }));
  return normalizeScenario({
    name: "tiny",
    seed: 7,
    duration: "10m",
    profile: s.profile ?? "4.9",
    network: { latency: s.latency ?? "1ms" },
    brokers,
    topics: [topic],
    groups: [group],
  });
}

// ------------------------------------------------------------------------------------------ the observer

/** A ClientObserver that writes every call down. */
export class RecordingObserver implements ClientObserver {
  readonly consumedCalls: { group: number; mq: number; offset: number; originKey: number; originBornUs: number; consumerAddr: number; nowUs: number }[] = [];
  readonly opened: { group: number; mq: number; consumerAddr: number; clientId: string; nowUs: number }[] = [];
  readonly closed: { group: number; mq: number; consumerAddr: number; nowUs: number }[] = [];
  readonly assignments: { nowUs: number; label: string }[] = [];
  readonly skipped: { group: number; mq: number; offset: number }[] = [];
  readonly starts: { group: number; mq: number; offset: number; fromStoredOffset: boolean }[] = [];
  readonly drops: { group: number; mq: number; offset: number; originKey: number; consumerAddr: number; nowUs: number }[] = [];
  readonly locks: { group: number; mq: number; consumerAddr: number; nowUs: number; held: boolean }[] = [];
  readonly suspends: { group: number; mq: number; offset: number; consumerAddr: number; nowUs: number }[] = [];
  readonly commits: { group: number; mq: number; offset: number; consumerAddr: number; nowUs: number }[] = [];

  consumed(group: number, mq: number, offset: number, originKey: number, originBornUs: number, consumerAddr: number, nowUs: number): void {
    this.consumedCalls.push({ group, mq, offset, originKey, originBornUs, consumerAddr, nowUs });
  }
  queueOpened(group: number, mq: number, consumerAddr: number, clientId: string, nowUs: number): void {
    this.opened.push({ group, mq, consumerAddr, clientId, nowUs });
  }
  queueClosed(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.closed.push({ group, mq, consumerAddr, nowUs });
  }
  assignmentChanged(nowUs: number, label: string): void {
    this.assignments.push({ nowUs, label });
  }
  offsetSkipped(group: number, mq: number, offset: number): void {
    this.skipped.push({ group, mq, offset });
  }
  startOffsetChosen(group: number, mq: number, offset: number, fromStoredOffset: boolean): void {
    this.starts.push({ group, mq, offset, fromStoredOffset });
  }
  consumeDropped(group: number, mq: number, offset: number, originKey: number, consumerAddr: number, nowUs: number): void {
    this.drops.push({ group, mq, offset, originKey, consumerAddr, nowUs });
  }
  lockRefreshed(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.locks.push({ group, mq, consumerAddr, nowUs, held: true });
  }
  lockLost(group: number, mq: number, consumerAddr: number, nowUs: number): void {
    this.locks.push({ group, mq, consumerAddr, nowUs, held: false });
  }
  orderlySuspended(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void {
    this.suspends.push({ group, mq, offset, consumerAddr, nowUs });
  }
  orderlyCommitted(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void {
    this.commits.push({ group, mq, offset, consumerAddr, nowUs });
  }
}

// ------------------------------------------------------------------------------------------ the consumer

export interface ConsumerBench {
  readonly model: Model;
  readonly routes: Routes;
  readonly ctx: TestContext;
  readonly c: PushConsumer;
  readonly stats: ClientStats;
  readonly listeners: ConsumeListeners;
  readonly observer: RecordingObserver;
  /** One-way latency of the scenario's network, µs (constant in the tiny scenario). */
  readonly latencyUs: number;
  /** Requests already answered or timed out (by playBroker or a helper below). */
  readonly handled: Set<RecordedRequest>;
  /** When each timer was set, as far as playBroker saw (its tie-break among events due together). */
  readonly timerSetUs: Map<number, number>;
}

/**
 * Instance `instance` of group G of the tiny scenario (or of `model`), built as the cluster builds one —
 * routes, listeners, the group's allocation strategy — on a fresh TestContext at `nowUs`. Not started.
 */
export function tinyConsumer(
  s: TinyScenario = {},
  options: { instance?: number; model?: Model; nowUs?: number; localOffsetFile?: Map<number, number> } = {},
): ConsumerBench {
  const model = options.model ?? tinyModel(s);
  const instance = options.instance ?? 0;
  const g = model.groups[0]!;
  const routes = new Routes(model);
  const listeners = new ConsumeListeners(model.groups, model.seed);
  const stats = new ClientStats();
  const observer = new RecordingObserver();
  const strategy = makeStrategy<number>(g.allocate, (mq) => {
    const q = routes.queues[mq]!;
    return { topic: q.topic, brokerName: q.brokerName, queueId: q.queueId };
  });
  const ctx = new TestContext(clientAddr(instance, 0), model.seed);
  ctx.nowUs = options.nowUs ?? 0;
  const c = new PushConsumer(ctx, instance, 0, g, instance, g.clientIds[instance]!, {
    routes, profile: model.profile, listeners, stats, observer, strategy,
    localOffsetFile: options.localOffsetFile,
  });
  return {
    model, routes, ctx, c, stats, listeners, observer,
    latencyUs: model.latency.quantile(0.5), handled: new Set(), timerSetUs: new Map(),
  };
}

/**
 * A consumer made ready to pull without starting it: RUNNING, subscribed to T (subVersion 0), with no
 * timers, heartbeats or rebalance scheduled. The test owns the clock.
 */
export function readyConsumer(s: TinyScenario = {}): ConsumerBench {
  const b = tinyConsumer(s);
  b.c.state = "RUNNING";
  b.c.setSubVersion(TOPIC_T, 0);
  return b;
}

/** Global index of queue `i` of T. */
export function queueOfT(b: ConsumerBench, i = 0): number {
  return b.routes.topicQueues(TOPIC_T)[i]!;
}

/** A fresh ProcessQueue and its PullRequest on queue `queue` of T, created now (not in the rebalance table). */
export function manualPullRequest(b: ConsumerBench, nextOffset = 0, queue = 0): PullRequest {
  return b.c.newPullRequest(queueOfT(b, queue), new ProcessQueue(b.ctx.nowUs), nextOffset);
}

/** The ProcessQueue the rebalance table holds for `mq` (throws if none). */
export function tableQueue(b: ConsumerBench, mq: number): ProcessQueue {
  const entry = b.c.rebalance.processQueues().find(([q]) => q === mq);
  if (!entry) throw new Error(`queue ${mq} is not in the rebalance table`);
  return entry[1];
}

// ------------------------------------------------------------------------------------------ messages

/** Offsets [from, from + n). */
export function range(from: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from + i);
}

export interface MessageOptions {
  /** The queue the messages were pulled from (their originKey is mq × 2^32 + offset); 0 by default. */
  mq?: number;
  /** Body length, bytes, of every message or per offset; 1 KiB (the tiny scenario's) by default. */
  bodyBytes?: number | ((offset: number) => number);
  /** Tag index (−1: none, the default). */
  tag?: number;
  /** RECONSUME_TIME of every message (0: originals). */
  reconsumeTimes?: number;
  /** originKey per offset, when the messages are retry copies of other messages. */
  originKey?: (offset: number) => number;
  /** Born time of every message's original, µs. */
  originBornUs?: number;
}

/** Message columns for `offsets`, as a pull answer carries them (a MessageBatch, count = offsets.length). */
export function messages(offsets: readonly number[], o: MessageOptions = {}): MessageBatch {
  const batch = new MessageBatch(Math.max(1, offsets.length));
  const size = o.bodyBytes ?? 1024;
  const mq = o.mq ?? 0;
  offsets.forEach((offset, i) => {
    batch.offsets[i] = offset;
    batch.bodyBytes[i] = typeof size === "number" ? size : size(offset);
    batch.tag[i] = o.tag ?? -1;
    batch.originKey[i] = o.originKey ? o.originKey(offset) : mq * 2 ** 32 + offset;
    batch.originBornUs[i] = o.originBornUs ?? 0;
    batch.reconsumeTimes[i] = o.reconsumeTimes ?? 0;
  });
  batch.count = offsets.length;
  return batch;
}

/** Puts `offsets` into `pq`, each with a body of `bodyBytes`. */
export function cache(pq: ProcessQueue, offsets: readonly number[], bodyBytes: number): void {
  pq.putMessage(messages(offsets, { bodyBytes }));
}

// ------------------------------------------------------------------------------------------ answers

export interface PullAnswer {
  nextBeginOffset: number;
  /** Offsets of the messages found (FOUND only). */
  offsets?: readonly number[];
  minOffset?: number;
  /** The queue's max offset; nextBeginOffset by default. */
  maxOffset?: number;
  /** Columns of the messages (their mq is the pull's queue). */
  columns?: Omit<MessageOptions, "mq">;
}

/** A PULL_MESSAGE answer of queue `mq` as PullMessageProcessor would write it. */
export function pullResponse(mq: number, code: number, r: PullAnswer): PullMessageResponse {
  const resp = new PullMessageResponse();
  resp.code = code;
  resp.nextBeginOffset = r.nextBeginOffset;
  resp.minOffset = r.minOffset ?? 0;
  resp.maxOffset = r.maxOffset ?? r.nextBeginOffset;
  const offsets = r.offsets ?? [];
  const batch = messages(offsets, { ...r.columns, mq });
  resp.msgs.reserve(batch.count);
  resp.msgs.offsets.set(batch.offsets.subarray(0, batch.count));
  resp.msgs.bodyBytes.set(batch.bodyBytes.subarray(0, batch.count));
  resp.msgs.tag.set(batch.tag.subarray(0, batch.count));
  resp.msgs.originKey.set(batch.originKey.subarray(0, batch.count));
  resp.msgs.originBornUs.set(batch.originBornUs.subarray(0, batch.count));
  resp.msgs.reconsumeTimes.set(batch.reconsumeTimes.subarray(0, batch.count));
  resp.msgs.count = batch.count;
  return resp;
}

/**
 * The broker's answer to the pull request `pr`, handed to the consumer now:
 * c.onResponse(PULL_MESSAGE, pr.id, response). Works whether or not the pull was sent.
 */
export function answerPull(b: ConsumerBench, pr: PullRequest, code: number, r: PullAnswer): PullMessageResponse {
  for (const q of b.ctx.requests) if (q.msg.code === RequestCode.PULL_MESSAGE && q.cookie === pr.id) b.handled.add(q);
  const resp = pullResponse(pr.mq, code, r);
  b.c.onResponse(RequestCode.PULL_MESSAGE, pr.id, resp);
  return resp;
}

/** Hands the consumer the outcome of a recorded request: `response`, or its time-out when null. */
export function deliver(b: ConsumerBench, r: RecordedRequest, response: Command | null): void {
  b.handled.add(r);
  if (response === null) b.c.onTimeout(r.msg.code, r.cookie);
  else b.c.onResponse(r.msg.code, r.cookie, response);
}

/** The records of one code the consumer sent oneway, with when and to whom. */
export function sentOf<T extends Command>(b: ConsumerBench, code: number): { to: number; msg: T; atUs: number }[] {
  return b.ctx.sent.filter((s) => s.msg.code === code).map((s) => ({ to: s.to, msg: s.msg as T, atUs: s.atUs }));
}

/** The requests of one code the consumer sent. */
export function requestsOf<T extends Command>(b: ConsumerBench, code: number): (RecordedRequest & { msg: T })[] {
  return b.ctx.requests.filter((r) => r.msg.code === code) as (RecordedRequest & { msg: T })[];
}

/** The oneway UPDATE_CONSUMER_OFFSET messages sent: [time, queue, offset]. */
export function offsetCommits(b: ConsumerBench): [number, number, number][] {
  return sentOf<UpdateConsumerOffsetRequest>(b, RequestCode.UPDATE_CONSUMER_OFFSET).map((s) => [s.atUs, s.msg.mq, s.msg.commitOffset]);
}

/**
 * The offset the broker holds for the group on `mq`, as far as this consumer told it before `beforeUs`:
 * the last UPDATE_CONSUMER_OFFSET, or commit offset piggy-backed on a pull (§13.5); −1 if none.
 */
export function committedOffset(b: ConsumerBench, mq: number, beforeUs = Infinity): number {
  let atUs = -1;
  let offset = -1;
  for (const s of b.ctx.sent) {
    if (s.msg.code !== RequestCode.UPDATE_CONSUMER_OFFSET || s.atUs > beforeUs) continue;
    const u = s.msg as UpdateConsumerOffsetRequest;
    if (u.mq === mq && s.atUs >= atUs) [atUs, offset] = [s.atUs, u.commitOffset];
  }
  for (const r of b.ctx.requests) {
    if (r.msg.code !== RequestCode.PULL_MESSAGE || r.sentUs > beforeUs) continue;
    const p = r.msg as PullMessageRequest;
    if (p.mq === mq && (p.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0 && r.sentUs >= atUs) [atUs, offset] = [r.sentUs, p.commitOffset];
  }
  return offset;
}

// ------------------------------------------------------------------------------------------ a broker

/** What the broker knows of a queue when asked where a new queue starts (QUERY_CONSUMER_OFFSET, §13.7). */
export interface QueueFacts {
  /** The group's stored offset (−1: none); by default what this consumer committed (committedOffset). */
  stored?: number;
  /** 0 by default (nothing deleted yet). */
  minOffset?: number;
  /** The backlog for T's queues, 0 for the others, by default (rate 0). */
  maxOffset?: number;
  /** searchOffset(consumeTimestamp); 0 by default. */
  searchOffset?: number;
}

/** How playBroker answers; every field has the default of a broker with this consumer alone. */
export interface BrokerPlay {
  /** GET_CONSUMER_LIST_BY_GROUP: the group's client ids (default: this consumer only); null: SYSTEM_ERROR. */
  consumerIds?: readonly string[] | null;
  /** QUERY_CONSUMER_OFFSET: facts of the queue, overriding the defaults of QueueFacts. */
  queue?: (mq: number) => QueueFacts;
  /** QUERY_CONSUMER_OFFSET: an error code to answer with instead (max and timestamp offsets still given). */
  queryError?: (mq: number, cookie: number) => number | undefined;
  /**
   * PULL_MESSAGE: the answer, or null when nothing is new: the pull is then held for its suspend time-out
   * (15 s) and answered NO_NEW_MSG. Every pull is held by default.
   */
  pull?: (req: PullMessageRequest) => PullMessageResponse | null;
  /** CONSUMER_SEND_MSG_BACK and the orderly retry SEND_MESSAGE: the answer's code (SUCCESS by default). */
  sendBackCode?: number;
  /** LOCK_BATCH_MQ: the queues of the request the broker locks for the client (all of them by default). */
  lock?: (mqs: readonly number[], nowUs: number) => readonly number[];
  /** Requests that are lost (or whose answers are): the consumer's time-out fires instead. */
  lose?: (r: RecordedRequest) => boolean;
}

interface Due {
  atUs: number;
  /** When the world would have scheduled the event (its FIFO tie-break at equal times). */
  scheduledUs: number;
  run: () => void;
}

/**
 * Runs the consumer up to `untilUs` against one broker per address that answers its requests after a
 * round trip of 2 × latency (GET_CONSUMER_LIST_BY_GROUP, QUERY_CONSUMER_OFFSET, HEART_BEAT,
 * CONSUMER_SEND_MSG_BACK and, with `play.pull`, PULL_MESSAGE), fires time-outs of lost requests, and
 * fires the consumer's timers, all in time order. Oneway messages are left in ctx.sent. The clock ends
 * at `untilUs`.
 */
export function playBroker(b: ConsumerBench, untilUs: number, play: BrokerPlay = {}): void {
  const { ctx } = b;
  const startUs = ctx.nowUs;
  const held = new Set<RecordedRequest>();
  const decided = new Map<RecordedRequest, Due>();
  for (;;) {
    for (const t of ctx.timers) if (!b.timerSetUs.has(t.id)) b.timerSetUs.set(t.id, ctx.nowUs);
    let next: Due | null = null;
    const timer = ctx.pendingTimers()[0];
    if (timer !== undefined) {
      next = { atUs: timer.atUs, scheduledUs: b.timerSetUs.get(timer.id)!, run: () => fireTimer(b, timer.id) };
    }
    for (const r of ctx.requests) {
      if (b.handled.has(r) || held.has(r)) continue;
      let due = decided.get(r);
      if (due === undefined) {
        const d = outcome(b, r, play, startUs);
        if (d === null) {
          held.add(r);
          continue;
        }
        decided.set(r, d);
        due = d;
      }
      if (next === null || due.atUs < next.atUs || (due.atUs === next.atUs && due.scheduledUs < next.scheduledUs)) next = due;
    }
    if (next === null || next.atUs > untilUs) break;
    ctx.nowUs = next.atUs;
    next.run();
  }
  if (untilUs > ctx.nowUs) ctx.nowUs = untilUs;
}

function fireTimer(b: ConsumerBench, id: number): void {
  const t = b.ctx.timers[id]!;
  t.fired = true;
  b.c.onTimer(t.code, t.arg);
}

/** When and how a request ends: null when the broker holds it past every horizon. */
function outcome(b: ConsumerBench, r: RecordedRequest, play: BrokerPlay, startUs: number): Due | null {
  if (play.lose?.(r)) {
    const atUs = Math.max(startUs, r.sentUs + r.timeoutUs);
    return { atUs, scheduledUs: r.sentUs, run: () => deliver(b, r, null) };
  }
  let answer: (() => Command) | null;
  switch (r.msg.code) {
    case RequestCode.HEART_BEAT:
    case RequestCode.UNREGISTER_CLIENT:
      answer = () => new SimpleResponse(ResponseCode.SUCCESS);
      break;
    case RequestCode.GET_CONSUMER_LIST_BY_GROUP: {
      const ids = play.consumerIds === undefined ? [b.c.clientId] : play.consumerIds;
      answer = () => new GetConsumerListResponse(ids === null ? ResponseCode.SYSTEM_ERROR : ResponseCode.SUCCESS, ids === null ? null : [...ids]);
      break;
    }
    case RequestCode.QUERY_CONSUMER_OFFSET:
      answer = () => queryAnswer(b, r, play);
      break;
    case RequestCode.CONSUMER_SEND_MSG_BACK:
    case RequestCode.SEND_MESSAGE:
      answer = () => new SimpleResponse(play.sendBackCode ?? ResponseCode.SUCCESS);
      break;
    case RequestCode.LOCK_BATCH_MQ: {
      const asked = (r.msg as LockBatchRequest).mqs;
      answer = () => new LockBatchResponse(play.lock ? [...play.lock(asked, b.ctx.nowUs)] : [...asked]);
      break;
    }
    case RequestCode.PULL_MESSAGE: {
      const req = r.msg as PullMessageRequest;
      const resp = play.pull?.(req) ?? null;
      if (resp !== null) {
        answer = () => resp;
        break;
      }
      // Nothing new: the broker holds the pull (long polling, §13.4) and answers NO_NEW_MSG when the
      // suspend time-out is over.
      const heldUs = (req.sysFlag & PullSysFlag.FLAG_SUSPEND) !== 0 ? req.suspendTimeoutMillis * 1000 : 0;
      const atUs = Math.max(startUs, r.sentUs + 2 * b.latencyUs + heldUs);
      const held = () => pullResponse(req.mq, ResponseCode.PULL_NOT_FOUND, { nextBeginOffset: req.queueOffset, maxOffset: req.queueOffset });
      return { atUs, scheduledUs: r.sentUs + b.latencyUs + heldUs, run: () => deliver(b, r, held()) };
    }
    default:
      answer = null;
  }
  if (answer === null) return null;
  const make = answer;
  const atUs = Math.max(startUs, r.sentUs + 2 * b.latencyUs);
  return { atUs, scheduledUs: r.sentUs + b.latencyUs, run: () => deliver(b, r, make()) };
}

/** QUERY_CONSUMER_OFFSET as ConsumerManageProcessor answers it (§13.7), with maxOffset and searchOffset. */
function queryAnswer(b: ConsumerBench, r: RecordedRequest, play: BrokerPlay): QueryConsumerOffsetResponse {
  const mq = (r.msg as QueryConsumerOffsetRequest).mq;
  const backlog = b.model.topics[TOPIC_T]!.produce?.backlog ?? 0;
  const f = play.queue?.(mq) ?? {};
  const minOffset = f.minOffset ?? 0;
  const maxOffset = f.maxOffset ?? (b.routes.topicOf(mq) === TOPIC_T ? backlog : 0);
  let stored = f.stored ?? committedOffset(b, mq, r.sentUs);
  // No stored offset: 0 when the queue was never truncated and holds messages (its first in page cache).
  if (stored < 0 && minOffset <= 0 && maxOffset > 0) stored = 0;
  const resp = new QueryConsumerOffsetResponse();
  resp.code = stored >= 0 ? ResponseCode.SUCCESS : ResponseCode.QUERY_NOT_FOUND;
  resp.offset = stored;
  const err = play.queryError?.(mq, r.cookie);
  if (err !== undefined) {
    resp.code = err;
    resp.offset = -1;
  }
  resp.maxOffset = maxOffset;
  resp.searchOffset = f.searchOffset ?? 0;
  return resp;
}

/**
 * A PULL_MESSAGE answerer for playBroker serving T's backlog: FOUND with up to maxMsgNums messages
 * below the backlog, the pull held when nothing is new; other topics' pulls are held.
 */
export function serveBacklog(b: ConsumerBench): (req: PullMessageRequest) => PullMessageResponse | null {
  const backlog = b.model.topics[TOPIC_T]!.produce?.backlog ?? 0;
  return (req) => {
    if (b.routes.topicOf(req.mq) !== TOPIC_T || req.queueOffset >= backlog) return null;
    const end = Math.min(backlog, req.queueOffset + req.maxMsgNums);
    return pullResponse(req.mq, ResponseCode.SUCCESS, { nextBeginOffset: end, offsets: range(req.queueOffset, end - req.queueOffset), maxOffset: backlog });
  };
}

// RebalanceService (§10.1) and RebalanceImpl / RebalancePushImpl (§10.2–§10.6). A rebalance blocks
// RebalanceService while it waits for the broker's answers, so here it is a small state machine: each
// topic in name order is allocated (CLUSTERING: after asking a broker for the group's consumer ids;
// BROADCASTING: every queue), its surplus queues dropped, its new queues locked at their brokers (orderly
// CLUSTERING) and their start offsets asked for; when the answers are back the ProcessQueues and
// PullRequests are created, messageQueueChanged runs, and the next topic follows. The RPCs of one step
// go out together rather than one after another (RocketMQ sends them in turn, each waiting for its
// answer): a rebalance takes one round trip per step instead of one per queue.
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { ResponseCode } from "../protocol/codes.ts";
import {
  GetConsumerListRequest, QueryConsumerOffsetRequest, type GetConsumerListResponse, type LockBatchResponse, type QueryConsumerOffsetResponse,
} from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { Rng } from "../sim/streams.ts";
import type { AllocateStrategy } from "./allocate/strategies.ts";
import type { ClientObserver } from "./ClientObserver.ts";
import { computePullFromWhere, storedOffsetOf, type StartOffsetFacts } from "./computePullFromWhere.ts";
import { LocalFileOffsetStore } from "./LocalFileOffsetStore.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import type { PullRequest } from "./PullRequest.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import { LockCookie, QueueLocks } from "./QueueLocks.ts";
import { messageQueueChanged } from "./messageQueueChanged.ts";
import { ClientTimer } from "./timers.ts";
import { DROP_REASON, LATER_REASON, type ClientTrace } from "./trace.ts";

/** Slot and rebalance serial travel in one cookie: slot + serial × QUERY_SLOT_SPAN. */
export const QUERY_SLOT_SPAN = 65536;
/** RemoteBrokerOffsetStore's query time-out (§0.4). */
const OFFSET_RPC_TIMEOUT_US = 5_000_000;

/** A new queue's lock and start-offset questions and, once back, their answers (stored −2: no answer). */
interface QuerySlot extends StartOffsetFacts {
  mq: number;
  /** Orderly CLUSTERING: whether lock(mq) succeeded. */
  locked: boolean;
  /** Whether the broker must be asked (BROADCASTING asks only when the local file has no offset). */
  ask: boolean;
}

export class RebalanceImpl {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  /** processQueueTable: mq → ProcessQueue (orderly: dropped ones whose removal failed stay in it). */
  private readonly table = new Map<number, ProcessQueue>();
  /** ProcessQueues of the table whose ownership already ended (dropped, told to the observer). */
  private readonly closed = new Set<ProcessQueue>();
  private readonly requests = new Map<number, PullRequest>();
  private timerId = -1;
  private running = false;
  private wakeupPending = false;
  private cidSerial = 0;
  private querySerial = 0;
  private lockSerial = 0;
  private pendingLocks = 0;
  /** Orderly: new queues are locked first (needLock = isOrder, §10.3) — in CLUSTERING, and in 4.9's
   * BROADCASTING too (5.x never locks there, §14). */
  private readonly needLock: boolean;
  /** Orderly CLUSTERING: removal goes through the locks (§10.5). */
  private readonly orderlyRemoval: boolean;
  readonly locks: QueueLocks;
  private lastRebalanceUs = 0;
  // Progress of the rebalance in flight.
  private topicCursor = 0;
  private balanced = true;
  private changed = false;
  private pendingAnswers = 0;
  private allocated = new Set<number>();
  private slots: QuerySlot[] = [];
  private mqAll: readonly number[] = [];
  private readonly brokerPick: Rng;
  /** Rebalance runs completed, and those that changed this consumer's assignment. */
  runs = 0;
  changes = 0;

  constructor(
    private readonly consumer: PushConsumer,
    private readonly ctx: NodeContext,
    private readonly T: ClientTrace,
    private readonly routes: Routes,
    private readonly strategy: AllocateStrategy<number>,
    private readonly observer: ClientObserver,
  ) {
    this.trace = ctx.trace;
    this.brokerPick = ctx.rng(`consumer/${consumer.clientId}/findConsumerIdList`);
    this.needLock = consumer.orderly && (consumer.clustering || consumer.profile !== "5.x");
    this.orderlyRemoval = consumer.orderly && consumer.clustering;
    this.locks = new QueueLocks(consumer, ctx, routes, observer, this.table);
  }

  /** RebalanceService thread start: its first wait is the full interval unless woken. */
  start(): void {
    this.lastRebalanceUs = this.ctx.nowUs; // 5.2+: lastRebalanceTimestamp = construction time
    this.timerId = this.ctx.timer(Math.round(CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL * 1000 * (1 - this.consumer.phase())), ClientTimer.REBALANCE);
  }

  /** MQClientInstance#rebalanceImmediately. */
  wakeup(): void {
    if (this.running) {
      this.wakeupPending = true;
      return;
    }
    if (this.timerId >= 0) this.ctx.cancelTimer(this.timerId);
    this.timerId = this.ctx.timer(0, ClientTimer.REBALANCE);
  }

  /** RebalanceService loop body. */
  onTimer(): void {
    this.timerId = -1;
    const c = this.consumer;
    if (c.state !== "RUNNING") return;
    if (c.profile === "5.x") {
      const sinceUs = this.ctx.nowUs - this.lastRebalanceUs;
      const minUs = CLIENT_CONSTANTS.REBALANCE_MIN_INTERVAL * 1000;
      if (sinceUs < minUs) {
        this.timerId = this.ctx.timer(minUs - sinceUs, ClientTimer.REBALANCE);
        return;
      }
    }
    if (c.paused) {
      // Paused: no doRebalance, the queues are kept (broker spec §8.3); 5.x is "unbalanced": a wake-up a second.
      this.wakeupPending = this.balanced = false;
      this.timerId = this.ctx.timer((c.profile === "5.x" ? CLIENT_CONSTANTS.REBALANCE_MIN_INTERVAL : CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL) * 1000, ClientTimer.REBALANCE);
      return;
    }
    this.running = true;
    this.topicCursor = 0;
    this.balanced = true;
    this.nextTopic();
  }

  private finishRun(): void {
    const now = this.ctx.nowUs;
    this.running = false;
    this.runs++;
    this.lastRebalanceUs = now;
    this.trace.emit(this.T.rebalance, now, this.consumer.index, this.table.size, this.changes);
    let waitMs: number = CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL;
    if (this.consumer.profile === "5.x" && !this.balanced) waitMs = CLIENT_CONSTANTS.REBALANCE_MIN_INTERVAL;
    if (this.wakeupPending) {
      this.wakeupPending = false;
      waitMs = 0;
    }
    this.timerId = this.ctx.timer(waitMs * 1000, ClientTimer.REBALANCE);
  }

  /** rebalanceByTopic for the next subscribed topic, CLUSTERING (§10.3). */
  private nextTopic(): void {
    const c = this.consumer;
    const topics = c.subscribedTopics;
    if (this.topicCursor >= topics.length) return this.finishRun();
    const topic = topics[this.topicCursor++]!;
    const route = this.routes.topics[topic]!;
    if (route.queues.length === 0) return this.nextTopic();
    // BROADCASTING: every readable queue of the topic is this instance's (§10.3).
    this.mqAll = c.route.subscribeQueues(topic); // topicSubscribeInfoTable, read before findConsumerIdList
    if (!c.clustering) return this.allocatedTopic(topic, this.mqAll);
    // findConsumerIdList: GET_CONSUMER_LIST_BY_GROUP to a random broker of the topic, a synchronous
    // RPC (time-out mqClientApiTimeout); a failure returns null and the topic is left alone (§10.3).
    const broker = c.route.groupNode(route.brokers[Math.floor(this.brokerPick() * route.brokers.length)]!);
    this.ctx.request(broker, new GetConsumerListRequest(c.group), c.config.mqClientApiTimeout * 1000, ++this.cidSerial);
  }

  /** The answer (null: time-out) of GET_CONSUMER_LIST_BY_GROUP for the topic being rebalanced. */
  onConsumerList(serial: number, response: GetConsumerListResponse | null): void {
    if (!this.running || serial !== this.cidSerial) return;
    const c = this.consumer;
    const now = this.ctx.nowUs;
    const topic = c.subscribedTopics[this.topicCursor - 1]!;
    const cidAll = response !== null && response.code === ResponseCode.SUCCESS ? response.consumerIdList : null;
    if (cidAll === null) return this.nextTopic();
    cidAll.sort();
    let allocation: number[];
    try {
      allocation = this.strategy(c.clientId, this.mqAll, cidAll);
    } catch {
      this.balanced = false; // an allocation exception ends this topic's rebalance (§10.3)
      return this.nextTopic();
    }
    this.allocatedTopic(topic, allocation);
  }

  /** updateProcessQueueTableInRebalance (§10.3) with the topic's allocation. */
  private allocatedTopic(topic: number, allocation: readonly number[]): void {
    const now = this.ctx.nowUs;
    this.allocated = new Set(allocation);
    this.changed = false;
    // Steps 1–2: drop what is no longer ours, or whose pull loop died; remove what removal lets go.
    for (const mq of this.queuesOfTopic(topic)) {
      const pq = this.table.get(mq)!;
      let reason = -1;
      if (!this.allocated.has(mq)) reason = DROP_REASON.notAssigned;
      else if (pq.isPullExpired(now, CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME)) reason = DROP_REASON.pullExpired;
      if (reason < 0) continue;
      pq.dropped = true;
      this.remove(mq, pq, reason);
    }
    // Step 3: new queues — lock them (orderly CLUSTERING), then removeDirtyOffset and ask where to start.
    this.slots = [];
    for (const mq of this.routes.topicQueues(topic)) {
      if (!this.allocated.has(mq) || this.table.has(mq)) continue;
      this.slots.push({ mq, stored: -2, maxOffset: 0, searchOffset: 0, locked: true, ask: true });
    }
    if (!this.needLock || this.slots.length === 0) return this.askStartOffsets(topic);
    const serial = ++this.lockSerial;
    this.pendingLocks = this.slots.length;
    // A refused lock answers at once (and the last answer moves the rebalance on): walk a fixed list.
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) this.locks.lock(slots[i]!.mq, LockCookie.rebalance, i + serial * QUERY_SLOT_SPAN);
  }

  /** The answer (null: time-out) of a new queue's lock(mq) for the rebalance in flight. */
  onLockAnswer(n: number, locked: ReadonlySet<number> | null): void {
    const slot = n % QUERY_SLOT_SPAN;
    if (!this.running || Math.floor(n / QUERY_SLOT_SPAN) !== this.lockSerial || this.pendingLocks === 0) return;
    const s = this.slots[slot]!;
    s.locked = locked !== null && locked.has(s.mq);
    if (--this.pendingLocks > 0) return;
    const refused = this.slots.filter((x) => !x.locked).length;
    this.slots = this.slots.filter((x) => x.locked);
    if (refused > 0) {
      // "add a new mq failed, because lock failed": skipped; 5.x asks for a rebalance in 500 ms.
      this.balanced = false;
      if (this.consumer.profile === "5.x") this.ctx.timer(CLIENT_CONSTANTS.REBALANCE_LATER_ON_LOCK_FAIL * 1000, ClientTimer.REBALANCE_LATER);
    }
    this.askStartOffsets(this.consumer.subscribedTopics[this.topicCursor - 1]!);
  }

  /** removeDirtyOffset, then readOffset(READ_FROM_STORE) and the broker's max / timestamp offsets (§10.6). */
  private askStartOffsets(topic: number): void {
    const c = this.consumer;
    const tsUs = this.ctx.nowUs - c.groupModel.consumeTimestampBeforeUs;
    const local = c.offsetStore instanceof LocalFileOffsetStore ? c.offsetStore : null;
    this.pendingAnswers = 0;
    const querySerial = ++this.querySerial;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const s = this.slots[slot]!;
      c.offsetStore.removeOffset(s.mq);
      if (local !== null) {
        // LocalFileOffsetStore: the file answers; only without an entry is the broker asked (max offset…).
        s.stored = local.readFromStore(s.mq);
        s.ask = s.stored < 0 && c.groupModel.consumeFromWhere !== "CONSUME_FROM_FIRST_OFFSET"; // FIRST: 0, no RPC
        if (!s.ask) continue;
      }
      // QUERY_CONSUMER_OFFSET is a synchronous RPC (time-out 5 s): no answer reads as an error (−2), as
      // does a broker group with no node in the route (the lookup throws, broker spec §4.6).
      const node = c.route.adminNode(s.mq);
      if (node < 0) {
        s.stored = -2;
        continue;
      }
      this.pendingAnswers++;
      this.ctx.request(node, new QueryConsumerOffsetRequest(c.group, s.mq, tsUs), OFFSET_RPC_TIMEOUT_US, slot + querySerial * QUERY_SLOT_SPAN);
    }
    if (this.pendingAnswers === 0) this.createQueues(topic);
  }

  /** A QUERY_CONSUMER_OFFSET answer (null: time-out) for the rebalance with this cookie's serial. */
  onQueryAnswer(cookie: number, response: QueryConsumerOffsetResponse | null): void {
    const slot = cookie % QUERY_SLOT_SPAN;
    const serial = Math.floor(cookie / QUERY_SLOT_SPAN);
    if (!this.running || serial !== this.querySerial) return;
    const s = this.slots[slot]!;
    if (response !== null) {
      // BROADCASTING keeps no offset at the broker: the file already said "none" (−1).
      s.stored = !this.consumer.clustering ? -1 : storedOffsetOf(this.consumer.profile, response.code, response.offset);
      s.maxOffset = response.maxOffset;
      s.searchOffset = response.searchOffset;
    } else if (!this.consumer.clustering) s.stored = -2;
    if (--this.pendingAnswers > 0) return;
    this.createQueues(this.consumer.subscribedTopics[this.topicCursor - 1]!);
  }

  /** Step 3's end: a ProcessQueue (locked = true) and a PullRequest for every queue with a start offset. */
  private createQueues(topic: number): void {
    const c = this.consumer;
    const now = this.ctx.nowUs;
    const isRetry = this.routes.isRetryTopic(topic);
    const created: PullRequest[] = [];
    for (const slot of this.slots) {
      const nextOffset = computePullFromWhere(c.groupModel.consumeFromWhere, isRetry, slot);
      if (nextOffset < 0) {
        this.balanced = false; // retried at the next rebalance
        continue;
      }
      const pq = new ProcessQueue(now);
      pq.locked = true;
      this.table.set(slot.mq, pq);
      this.observer.queueOpened(c.group, slot.mq, c.addr, c.clientId, now);
      if (this.orderlyRemoval) this.observer.lockRefreshed(c.group, slot.mq, c.addr, now);
      this.observer.startOffsetChosen(c.group, slot.mq, nextOffset, slot.stored >= 0, c.addr);
      const pr = c.newPullRequest(slot.mq, pq, nextOffset);
      this.requests.set(slot.mq, pr);
      this.trace.emit(this.T.pqCreated, now, slot.mq, c.index, nextOffset);
      created.push(pr);
      this.changed = true;
    }
    // dispatchPullRequest: 4.9 at once; 5.x after 500 ms.
    for (const pr of created) {
      if (c.profile === "5.x") c.pull.executePullRequestLater(pr, CLIENT_CONSTANTS.NEW_QUEUE_PULL_DELAY_5X, LATER_REASON.newQueue);
      else c.pull.executePullRequestImmediately(pr);
    }
    this.topicDone(topic);
  }

  private topicDone(topic: number): void {
    if (this.changed) {
      this.changes++;
      this.observer.assignmentChanged(this.ctx.nowUs, `${this.consumer.clientId} ${this.routes.topicName(topic)}: ${this.queuesOfTopic(topic).length} queues`);
      messageQueueChanged(this.consumer, topic, this.table.size);
    }
    // balanced = (allocated set == working set of non-dropped queues of this topic)
    const working = this.queuesOfTopic(topic).filter((mq) => !this.table.get(mq)!.dropped);
    if (working.length !== this.allocated.size || working.some((mq) => !this.allocated.has(mq))) this.balanced = false;
    this.nextTopic();
  }

  /**
   * A dropped ProcessQueue: removeUnnecessaryMessageQueue (§10.5) — concurrent and BROADCASTING: persist,
   * forget the offset, remove; orderly CLUSTERING: QueueLocks decides, and a queue it cannot release yet
   * stays in the table, dropped, until a later rebalance manages. Its ownership ends now either way.
   */
  private remove(mq: number, pq: ProcessQueue, reason: number): void {
    const c = this.consumer;
    let removed = true;
    if (this.orderlyRemoval) removed = this.locks.removeOrderly(mq, pq);
    else {
      c.offsetStore.persist(mq);
      c.offsetStore.removeOffset(mq);
    }
    this.close(mq, pq, reason);
    if (removed) {
      this.table.delete(mq);
      this.requests.delete(mq);
      this.closed.delete(pq);
      this.changed = true;
    }
  }

  /** Tells the observer (once) that this ProcessQueue no longer consumes its queue. */
  private close(mq: number, pq: ProcessQueue, reason: number): void {
    if (this.closed.has(pq)) return;
    this.closed.add(pq);
    this.observer.queueClosed(this.consumer.group, mq, this.consumer.addr, this.ctx.nowUs);
    this.trace.emit(this.T.pqDropped, this.ctx.nowUs, mq, this.consumer.index, reason);
  }

  /** removeProcessQueue (OFFSET_ILLEGAL path, resetOffset): out of the table whatever removal says, dropped, cleaned up. */
  removeProcessQueue(mq: number, pq: ProcessQueue, reason: number = DROP_REASON.offsetIllegal): void {
    if (this.table.get(mq) !== pq) return;
    pq.dropped = true;
    this.remove(mq, pq, reason);
    this.table.delete(mq);
    this.requests.delete(mq);
    this.closed.delete(pq);
  }

  /** The queues of a topic in the table, ascending global index (= MessageQueue order). */
  private queuesOfTopic(topic: number): number[] {
    const out: number[] = [];
    for (const mq of this.table.keys()) if (this.routes.topicOf(mq) === topic) out.push(mq);
    return out.sort((a, b) => a - b);
  }

  /** RebalanceImpl#destroy on shutdown or crash: every ProcessQueue is dropped. */
  destroy(): void {
    const c = this.consumer;
    const now = this.ctx.nowUs;
    for (const [mq, pq] of this.table) {
      pq.dropped = true;
      if (!this.closed.has(pq)) this.observer.queueClosed(c.group, mq, c.addr, now);
    }
    this.table.clear();
    this.closed.clear();
    this.requests.clear();
    if (this.timerId >= 0) this.ctx.cancelTimer(this.timerId);
    this.timerId = -1;
  }

  assignedQueues(): Set<number> {
    return new Set(this.table.keys());
  }
  /** (mq, pq) pairs sorted by mq. */
  processQueues(): [number, ProcessQueue][] {
    return [...this.table.entries()].sort((a, b) => a[0] - b[0]);
  }
  /** Whether `pq` is the table's ProcessQueue for `mq`. */
  holds(mq: number, pq: ProcessQueue): boolean {
    return this.table.get(mq) === pq;
  }
  pullRequestOf(mq: number): PullRequest | undefined {
    return this.requests.get(mq);
  }
  get queueCount(): number {
    return this.table.size;
  }
}

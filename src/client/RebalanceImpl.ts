// RebalanceService (§10.1) and RebalanceImpl / RebalancePushImpl (§10.2–§10.6) for CLUSTERING,
// concurrent consumption. A rebalance blocks RebalanceService while it waits for the broker's offset
// answers, so here it is a small state machine: each topic in name order is allocated, its surplus
// queues dropped, its new queues' start offsets asked for; when the answers are back the ProcessQueues
// and PullRequests are created, messageQueueChanged runs, and the next topic follows.
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";
import type { World } from "../model/World.ts";
import { DROP_REASON, LATER_REASON } from "../model/kinds.ts";
import { computePullFromWhere } from "./computePullFromWhere.ts";
import { ProcessQueue } from "./ProcessQueue.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import type { Rng } from "../sim/streams.ts";

/** Slot and rebalance serial travel in one number: slot + serial × QUERY_SLOT_SPAN. */
export const QUERY_SLOT_SPAN = 65536;
const OFFSET_RPC_TIMEOUT_US = 5_000_000;

export class RebalanceImpl {
  /** processQueueTable: mq → ProcessQueue. */
  private readonly table = new Map<number, ProcessQueue>();
  private readonly requests = new Map<number, number>(); // mq → pull request id
  private timerId = -1;
  private running = false;
  private wakeupPending = false;
  private cidSerial = 0;
  private cidSentUs = 0;
  private cidList: string[] | null = null;
  private querySerial = 0;
  private lastRebalanceUs = 0;
  // Progress of the rebalance in flight.
  private topicCursor = 0;
  private balanced = true;
  private changed = false;
  private pendingAnswers = 0;
  private allocated = new Set<number>();
  private readonly brokerPick: Rng;
  /** Rebalance runs completed, and those that changed this consumer's assignment. */
  runs = 0;
  changes = 0;

  constructor(
    private readonly consumer: PushConsumer,
    private readonly world: World,
  ) {
    this.brokerPick = world.streams.get(`consumer/${consumer.clientId}/findConsumerIdList`);
  }

  /** RebalanceService thread start: its first wait is the full interval unless woken. */
  start(): void {
    const w = this.world;
    this.lastRebalanceUs = w.sched.nowUs; // 5.2+: lastRebalanceTimestamp = construction time
    this.timerId = w.sched.scheduleIn(CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL * 1000, w.kinds.rebalance, this.consumer.addr);
  }

  /** MQClientInstance#rebalanceImmediately. */
  wakeup(): void {
    if (this.running) {
      this.wakeupPending = true;
      return;
    }
    const w = this.world;
    if (this.timerId >= 0) w.sched.cancel(this.timerId);
    this.timerId = w.sched.scheduleIn(0, w.kinds.rebalance, this.consumer.addr);
  }

  /** RebalanceService loop body. */
  onTimer(): void {
    const w = this.world;
    this.timerId = -1;
    if (this.consumer.state !== "RUNNING") return;
    if (w.model.profile === "5.x") {
      const sinceUs = w.sched.nowUs - this.lastRebalanceUs;
      const minUs = CLIENT_CONSTANTS.REBALANCE_MIN_INTERVAL * 1000;
      if (sinceUs < minUs) {
        this.timerId = w.sched.scheduleIn(minUs - sinceUs, w.kinds.rebalance, this.consumer.addr);
        return;
      }
    }
    this.running = true;
    this.topicCursor = 0;
    this.balanced = !this.consumer.paused;
    this.nextTopic();
  }

  private finishRun(): void {
    const w = this.world;
    this.running = false;
    this.runs++;
    this.lastRebalanceUs = w.sched.nowUs;
    w.trace.emit(w.T.rebalance, w.sched.nowUs, this.consumer.index, this.table.size, this.changes);
    let waitMs: number = CLIENT_CONSTANTS.REBALANCE_WAIT_INTERVAL;
    if (w.model.profile === "5.x" && !this.balanced) waitMs = CLIENT_CONSTANTS.REBALANCE_MIN_INTERVAL;
    if (this.wakeupPending) {
      this.wakeupPending = false;
      waitMs = 0;
    }
    this.timerId = w.sched.scheduleIn(waitMs * 1000, w.kinds.rebalance, this.consumer.addr);
  }

  /** rebalanceByTopic for the next subscribed topic, CLUSTERING (§10.3). */
  private nextTopic(): void {
    const w = this.world;
    const c = this.consumer;
    const topics = c.subscribedTopics;
    if (this.topicCursor >= topics.length) return this.finishRun();
    const topic = topics[this.topicCursor++]!;
    if (w.topicQueues(topic).length === 0) return this.nextTopic();
    // findConsumerIdList: GET_CONSUMER_LIST_BY_GROUP to a random broker of the topic, a synchronous
    // RPC (timeout mqClientApiTimeout); a failure returns null and the topic is left alone (§10.3).
    const broker = w.topicBroker(topic, this.brokerPick);
    const serial = ++this.cidSerial;
    this.cidSentUs = w.sched.nowUs;
    this.cidList = null;
    const t = w.net.upAt(w.sched.nowUs, c.index, broker);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.consumerListRequest, broker, c.addr, serial);
    else this.consumerListLost();
  }

  /** The GET_CONSUMER_LIST_BY_GROUP request or its answer was lost: the RPC fails at its time-out. */
  consumerListLost(): void {
    const w = this.world;
    const at = Math.max(w.sched.nowUs, this.cidSentUs + this.consumer.config.mqClientApiTimeout * 1000);
    w.sched.scheduleAt(at, w.kinds.consumerListResponse, this.consumer.addr, this.cidSerial, 0);
  }

  /** What the broker answers, written before its reply crosses the network (null: SYSTEM_ERROR). */
  setConsumerList(list: string[] | null): void {
    this.cidList = list;
  }

  get consumerListSerial(): number {
    return this.cidSerial;
  }

  /** The answer (or time-out) of GET_CONSUMER_LIST_BY_GROUP for the topic being rebalanced. */
  onConsumerList(listSerial: number, ok: boolean): void {
    if (!this.running || listSerial !== this.cidSerial) return;
    const w = this.world;
    const c = this.consumer;
    const topic = c.subscribedTopics[this.topicCursor - 1]!;
    const mqAll = w.topicQueues(topic);
    const cidAll = ok ? this.cidList : null;
    if (cidAll === null) return this.nextTopic();
    cidAll.sort();
    let allocation: number[];
    try {
      allocation = w.strategyOf(c.group)(c.clientId, mqAll, cidAll);
    } catch {
      this.balanced = false; // an allocation exception ends this topic's rebalance (§10.3)
      return this.nextTopic();
    }
    this.allocated = new Set(allocation);
    this.changed = false;
    // updateProcessQueueTableInRebalance step 1–2: drop what is no longer ours, or whose pull loop died.
    for (const mq of this.queuesOfTopic(topic)) {
      const pq = this.table.get(mq)!;
      if (!this.allocated.has(mq)) {
        pq.dropped = true;
        this.removeUnnecessary(mq, pq, DROP_REASON.notAssigned);
        this.changed = true;
      } else if (pq.isPullExpired(w.sched.nowUs, CLIENT_CONSTANTS.PULL_MAX_IDLE_TIME)) {
        pq.dropped = true;
        this.removeUnnecessary(mq, pq, DROP_REASON.pullExpired);
        this.changed = true;
      }
    }
    // Step 3: new queues — removeDirtyOffset, then ask the broker where to start.
    c.clearSlots();
    this.pendingAnswers = 0;
    const serial = ++this.querySerial;
    const tsUs = w.sched.nowUs - c.groupModel.consumeTimestampBeforeUs;
    for (const mq of mqAll) {
      if (!this.allocated.has(mq) || this.table.has(mq)) continue;
      c.offsetStore.removeOffset(mq);
      const slot = c.allocSlot(mq, tsUs);
      const broker = w.queues[mq]!.brokerIndex;
      this.pendingAnswers++;
      const t = w.net.upAt(w.sched.nowUs, c.index, broker);
      // QUERY_CONSUMER_OFFSET is a synchronous RPC (timeout 5 s): a lost request reads as an error (−2).
      if (t >= 0) w.sched.scheduleAt(t, w.kinds.queryOffset, broker, c.addr, slot + serial * QUERY_SLOT_SPAN);
      else w.sched.scheduleIn(OFFSET_RPC_TIMEOUT_US, w.kinds.queryOffsetResponse, c.addr, slot, serial);
    }
    if (this.pendingAnswers === 0) this.topicDone(topic);
  }

  /** A QUERY_CONSUMER_OFFSET answer (or its time-out) arrived for the rebalance with this serial. */
  onQueryAnswer(slot: number, serial: number): void {
    if (!this.running || serial !== this.querySerial) return;
    void slot;
    if (--this.pendingAnswers > 0) return;
    const w = this.world;
    const c = this.consumer;
    const topic = c.subscribedTopics[this.topicCursor - 1]!;
    const isRetry = w.isRetryTopic(topic);
    const created: number[] = [];
    for (let s = 0; s < c.slotCount; s++) {
      const slot = c.querySlot(s);
      const nextOffset = computePullFromWhere(c.groupModel.consumeFromWhere, isRetry, slot);
      if (nextOffset < 0) {
        this.balanced = false; // retried at the next rebalance
        continue;
      }
      const pq = new ProcessQueue(w.sched.nowUs);
      pq.locked = true;
      this.table.set(slot.mq, pq);
      w.ownership.open(c.group, slot.mq, c.addr, c.clientId, w.sched.nowUs);
      const pr = w.newPullRequest(c, slot.mq, pq, nextOffset);
      this.requests.set(slot.mq, pr.id);
      w.trace.emit(w.T.pqCreated, w.sched.nowUs, slot.mq, c.index, nextOffset);
      created.push(pr.id);
      this.changed = true;
    }
    // dispatchPullRequest: 4.9 at once; 5.x after 500 ms.
    for (const id of created) {
      const pr = w.pullRequests[id]!;
      if (w.model.profile === "5.x") c.executePullRequestLater(pr, CLIENT_CONSTANTS.NEW_QUEUE_PULL_DELAY_5X, LATER_REASON.newQueue);
      else c.executePullRequestImmediately(pr);
    }
    this.topicDone(topic);
  }

  private topicDone(topic: number): void {
    if (this.changed) {
      this.changes++;
      const w = this.world;
      w.markers.push({ tUs: w.sched.nowUs, kind: "rebalance", label: `${this.consumer.clientId} ${w.topicName(topic)}: ${this.queuesOfTopic(topic).length} queues` });
      this.messageQueueChanged(topic);
    }
    // balanced = (allocated set == working set of non-dropped queues of this topic)
    const working = this.queuesOfTopic(topic).filter((mq) => !this.table.get(mq)!.dropped);
    if (working.length !== this.allocated.size || working.some((mq) => !this.allocated.has(mq))) this.balanced = false;
    this.nextTopic();
  }

  /** RebalancePushImpl#messageQueueChanged (§10.4). */
  private messageQueueChanged(topic: number): void {
    const w = this.world;
    const c = this.consumer;
    c.setSubVersion(topic, Math.floor(w.sched.nowUs / 1000));
    const n = this.table.size;
    if (n !== 0) {
      const g = c.groupModel.config;
      if (g.pullThresholdForTopic !== -1) c.config.pullThresholdForQueue = Math.max(1, Math.floor(g.pullThresholdForTopic / n));
      if (g.pullThresholdSizeForTopic !== -1) c.config.pullThresholdSizeForQueue = Math.max(1, Math.floor(g.pullThresholdSizeForTopic / n));
      w.trace.emit(w.T.thresholdChanged, w.sched.nowUs, c.index, c.config.pullThresholdForQueue, c.config.pullThresholdSizeForQueue);
    }
    c.sendHeartbeats(false);
  }

  /** removeUnnecessaryMessageQueue, concurrent (§10.5): persist, forget the offset, remove. */
  private removeUnnecessary(mq: number, pq: ProcessQueue, reason: number): void {
    const c = this.consumer;
    const w = this.world;
    c.offsetStore.persist(mq);
    c.offsetStore.removeOffset(mq);
    this.table.delete(mq);
    this.requests.delete(mq);
    w.ownership.close(c.group, mq, c.addr, w.sched.nowUs);
    w.trace.emit(w.T.pqDropped, w.sched.nowUs, mq, c.index, reason);
    void pq;
  }

  /** removeProcessQueue (OFFSET_ILLEGAL path): remove from the table, mark dropped, clean up. */
  removeProcessQueue(mq: number, pq: ProcessQueue): void {
    if (this.table.get(mq) !== pq) return;
    pq.dropped = true;
    this.removeUnnecessary(mq, pq, DROP_REASON.offsetIllegal);
  }

  /** The queues of a topic in the table, ascending global index (= MessageQueue order). */
  private queuesOfTopic(topic: number): number[] {
    const w = this.world;
    const out: number[] = [];
    for (const mq of this.table.keys()) if (w.queues[mq]!.topicIndex === topic) out.push(mq);
    return out.sort((a, b) => a - b);
  }

  /** RebalanceImpl#destroy on shutdown or crash: every ProcessQueue is dropped. */
  destroy(): void {
    const w = this.world;
    const c = this.consumer;
    for (const [mq, pq] of this.table) {
      pq.dropped = true;
      w.ownership.close(c.group, mq, c.addr, w.sched.nowUs);
    }
    this.table.clear();
    this.requests.clear();
    if (this.timerId >= 0) this.world.sched.cancel(this.timerId);
    this.timerId = -1;
  }

  assignedQueues(): Set<number> {
    return new Set(this.table.keys());
  }

  /** (mq, pq) pairs sorted by mq. */
  processQueues(): [number, ProcessQueue][] {
    return [...this.table.entries()].sort((a, b) => a[0] - b[0]);
  }

  pullRequestOf(mq: number): number | undefined {
    return this.requests.get(mq);
  }

  get queueCount(): number {
    return this.table.size;
  }
}

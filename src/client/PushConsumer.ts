// One push-consumer instance (a DefaultMQPushConsumer in its own client JVM): PullMessageService (§1),
// DefaultMQPushConsumerImpl#pullMessage (§2), PullCallback (§4.3, §4.4), the offset store (§12.1) and
// the client's scheduled tasks (§12.4). Rebalancing lives in RebalanceImpl.
import { CLIENT_CONSTANTS, type ConsumerConfig } from "../scenario/defaults.ts";
import type { GroupModel } from "../scenario/types.ts";
import type { World } from "../model/World.ts";
import { CONSUMER_ADDR_SPAN, FLOW_KIND, LATER_REASON } from "../model/kinds.ts";
import { ResponseCode } from "../broker/getMessage.ts";
import { ConsumeMessageConcurrentlyService } from "./ConsumeMessageConcurrentlyService.ts";
import { RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";
import { RebalanceImpl } from "./RebalanceImpl.ts";
import type { PullRequest } from "./PullRequest.ts";
import { offsetKey, type MessageAttributes } from "../broker/Broker.ts";

export type ServiceState = "CREATE_JUST" | "RUNNING" | "SHUTDOWN_ALREADY";

/** The answer slots of QUERY_CONSUMER_OFFSET requests made by rebalance. */
export interface QuerySlot {
  mq: number;
  timestampUs: number;
  stored: number;
  maxOffset: number;
  searchOffset: number;
  sentUs: number;
}

export class PushConsumer {
  state: ServiceState = "CREATE_JUST";
  paused = false;
  /** Mutable copy: messageQueueChanged rewrites the per-queue thresholds (§10.4). */
  readonly config: ConsumerConfig;
  readonly offsetStore: RemoteBrokerOffsetStore;
  readonly consumeService: ConsumeMessageConcurrentlyService;
  readonly rebalance: RebalanceImpl;
  /** Subscribed topics (including %RETRY%<group>), sorted by name, with their subVersion (ms). */
  readonly subscribedTopics: number[] = [];
  private readonly subVersion = new Map<number, number>();
  readonly maxReconsumeTimes: number;
  /** queueFlowControlTimes and queueMaxSpanFlowControlTimes (§2 steps 6–8). */
  queueFlowControlTimes = 0;
  queueMaxSpanFlowControlTimes = 0;
  private readonly slots: QuerySlot[] = [];
  private heartbeatRepliesAwaited = 0;
  private readonly cleanJobs = new Map<number, MessageAttributes & { delayLevel: number }>();
  private cleanTicketNext = 0;

  /** False once this incarnation crashed or shut down: its pending events are ignored. */
  alive = true;

  constructor(
    /** Slot in the world's consumer table (stable across restarts). */
    readonly index: number,
    /** Incarnation number: a restart creates a new PushConsumer with epoch + 1. */
    readonly epoch: number,
    readonly groupModel: GroupModel,
    /** Instance number within the group (0-based). */
    readonly instance: number,
    readonly clientId: string,
    private readonly world: World,
  ) {
    this.config = { ...groupModel.config };
    this.maxReconsumeTimes = this.config.maxReconsumeTimes === -1 ? 16 : this.config.maxReconsumeTimes;
    this.offsetStore = new RemoteBrokerOffsetStore({
      commitOffset: (mq, offset) => this.sendOffsetUpdate(mq, offset),
    });
    this.consumeService = new ConsumeMessageConcurrentlyService(this, world);
    this.rebalance = new RebalanceImpl(this, world);
  }

  get group(): number {
    return this.groupModel.index;
  }

  /** Event address of this incarnation. */
  get addr(): number {
    return this.index + this.epoch * CONSUMER_ADDR_SPAN;
  }

  // ---------------------------------------------------------------- lifecycle

  /** DefaultMQPushConsumerImpl#start (§12.4): copySubscription adds the retry topic; heartbeat; timers. */
  start(): void {
    const w = this.world;
    const nowMs = Math.floor(w.sched.nowUs / 1000);
    const topics = [...this.groupModel.subscriptions.map((s) => s.topic), w.retryTopic(this.group)];
    topics.sort((a, b) => (w.topicName(a) < w.topicName(b) ? -1 : w.topicName(a) > w.topicName(b) ? 1 : 0));
    for (const t of topics) {
      this.subscribedTopics.push(t);
      this.subVersion.set(t, nowMs); // SubscriptionData.subVersion = construction time
    }
    this.state = "RUNNING";
    this.rebalance.start();
    // sendHeartbeatToAllBrokerWithLock, then rebalanceImmediately once every broker answered.
    this.heartbeatRepliesAwaited = w.brokers.length;
    this.sendHeartbeats(true);
    const k = w.kinds;
    w.sched.scheduleIn(CLIENT_CONSTANTS.PERSIST_INITIAL_DELAY * 1000, k.persistAll, this.addr);
    w.sched.scheduleIn(CLIENT_CONSTANTS.HEARTBEAT_INITIAL_DELAY * 1000, k.heartbeatTimer, this.addr);
    w.sched.scheduleIn(this.config.consumeTimeout * 60_000_000, k.cleanExpired, this.addr);
  }

  /**
   * DefaultMQPushConsumerImpl#shutdown: stop consuming (results of running listener calls are
   * discarded with their dropped ProcessQueues), persist every offset, unregister from every broker.
   */
  shutdown(): void {
    if (this.state !== "RUNNING") return;
    const w = this.world;
    this.offsetStore.persistAll(this.rebalance.assignedQueues());
    for (const b of w.brokers) {
      const t = w.net.upAt(w.sched.nowUs, this.index, b.index);
      if (t >= 0) w.sched.scheduleAt(t, w.kinds.unregister, b.index, this.addr);
    }
    this.rebalance.destroy();
    this.state = "SHUTDOWN_ALREADY";
    this.alive = false;
  }

  /**
   * The JVM dies: nothing is persisted. With "connectionClosed" the brokers see the TCP connections
   * close and notify the group at once; with "vanished" (host gone) only the 120 s expiry notices.
   */
  crash(mode: "connectionClosed" | "vanished"): void {
    if (!this.alive) return;
    const w = this.world;
    if (mode === "connectionClosed" && this.state === "RUNNING") {
      for (const b of w.brokers) {
        const t = w.net.upAt(w.sched.nowUs, this.index, b.index);
        if (t >= 0) w.sched.scheduleAt(t, w.kinds.channelClosed, b.index, this.addr);
      }
    }
    this.rebalance.destroy();
    this.state = "SHUTDOWN_ALREADY";
    this.alive = false;
  }

  subscriptionVersions(): Iterable<[number, number]> {
    return this.subVersion.entries();
  }

  subVersionOf(topic: number): number {
    return this.subVersion.get(topic) ?? 0;
  }

  setSubVersion(topic: number, versionMs: number): void {
    this.subVersion.set(topic, versionMs);
  }

  sendHeartbeats(wantReply: boolean): void {
    const w = this.world;
    for (const b of w.brokers) {
      const t = w.net.upAt(w.sched.nowUs, this.index, b.index);
      if (t >= 0) w.sched.scheduleAt(t, w.kinds.heartbeat, b.index, this.addr, wantReply ? 1 : 0);
      else if (wantReply) this.onHeartbeatResponse(); // a failed heartbeat still ends the wait (4.9 rebalances anyway)
    }
  }

  onHeartbeatResponse(): void {
    if (this.heartbeatRepliesAwaited > 0 && --this.heartbeatRepliesAwaited === 0) this.rebalance.wakeup();
  }

  onHeartbeatTimer(): void {
    this.sendHeartbeats(false);
    this.world.sched.scheduleIn(this.config.heartbeatBrokerInterval * 1000, this.world.kinds.heartbeatTimer, this.addr);
  }

  // ---------------------------------------------------------------- PullMessageService (§1)

  /**
   * The PullMessageService thread takes the request at once: pullMessage is cheap and non-blocking
   * (§1), so it runs inline at the same virtual instant instead of through a zero-delay event.
   */
  executePullRequestImmediately(pr: PullRequest): void {
    this.pullMessage(pr);
  }

  executePullRequestLater(pr: PullRequest, delayMs: number, reason: number): void {
    const w = this.world;
    w.trace.emit(w.T.pullLater, w.sched.nowUs, pr.mq, this.index, delayMs, reason);
    w.sched.scheduleIn(delayMs * 1000, w.kinds.pullDispatch, pr.id);
  }

  // ---------------------------------------------------------------- pullMessage (§2)

  pullMessage(pr: PullRequest): void {
    const w = this.world;
    const pq = pr.pq;
    const cfg = this.config;
    if (pq.dropped) return pq.release(); // step 1: the request dies (and its cache's memory with it)
    const now = w.sched.nowUs;
    pq.lastPullTimestampUs = now; // step 2
    const exc = cfg.pullTimeDelayMillsWhenException;
    if (this.state !== "RUNNING") return this.executePullRequestLater(pr, exc, LATER_REASON.notRunning);
    if (this.paused) {
      w.metrics.flowControl[FLOW_KIND.paused]! += 1;
      return this.executePullRequestLater(pr, CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_SUSPEND, LATER_REASON.paused);
    }
    const cachedCount = pq.msgCount;
    const cachedMiB = pq.cachedMiB;
    const fcDelay = CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL;
    if (cachedCount > cfg.pullThresholdForQueue) {
      this.queueFlowControlTimes++;
      w.metrics.flowControl[FLOW_KIND.count]! += 1;
      w.trace.emit(w.T.flowControl, now, pr.mq, this.index, FLOW_KIND.count, cachedCount);
      return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
    }
    if (cachedMiB > cfg.pullThresholdSizeForQueue) {
      this.queueFlowControlTimes++;
      w.metrics.flowControl[FLOW_KIND.size]! += 1;
      w.trace.emit(w.T.flowControl, now, pr.mq, this.index, FLOW_KIND.size, cachedMiB);
      return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
    }
    // Concurrent consumption only (the orderly branch of step 9 arrives with orderly consumption).
    const span = pq.getMaxSpan();
    if (span > cfg.consumeConcurrentlyMaxSpan) {
      this.queueMaxSpanFlowControlTimes++;
      w.metrics.flowControl[FLOW_KIND.span]! += 1;
      w.trace.emit(w.T.flowControl, now, pr.mq, this.index, FLOW_KIND.span, span);
      return this.executePullRequestLater(pr, fcDelay, LATER_REASON.flowControl);
    }
    const topic = w.queues[pr.mq]!.topicIndex;
    if (!this.subVersion.has(topic)) return this.executePullRequestLater(pr, exc, LATER_REASON.noSubscription);
    this.sendPull(pr, topic);
  }

  /** PullAPIWrapper#pullKernelImpl (§2.2): build the header and send the async RPC. */
  private sendPull(pr: PullRequest, topic: number): void {
    const w = this.world;
    const now = w.sched.nowUs;
    const commit = this.offsetStore.readOffset(pr.mq);
    pr.reqOffset = pr.nextOffset;
    pr.reqMaxMsgNums = this.config.pullBatchSize;
    pr.reqCommitOffset = commit > 0 ? commit : -1; // an in-memory 0 is not piggy-backed
    pr.reqSubVersion = this.subVersionOf(topic);
    pr.reqSuspendTimeoutMs = CLIENT_CONSTANTS.BROKER_SUSPEND_MAX_TIME_MILLIS;
    pr.reqHasSubscription = this.config.postSubscriptionWhenPull;
    pr.reqSentUs = now;
    const broker = w.queues[pr.mq]!.brokerIndex;
    if (w.net.isBrokerDown(broker)) {
      // Connection refused: pullKernelImpl throws synchronously (§2 step 11).
      w.metrics.pulls.exception++;
      return this.executePullRequestLater(pr, this.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
    }
    pr.inFlight = true;
    const serial = ++pr.reqSerial;
    w.trace.emit(w.T.pullSent, now, pr.mq, this.index, pr.reqOffset, pr.reqCommitOffset);
    const t = w.net.upAt(now, this.index, broker);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.brokerPull, pr.id, serial);
    else this.pullLost(pr);
  }

  /** The request or its response was lost: the async RPC times out 30 s after it was sent (§4.4). */
  pullLost(pr: PullRequest): void {
    const w = this.world;
    const at = Math.max(w.sched.nowUs, pr.reqSentUs + CLIENT_CONSTANTS.CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND * 1000);
    w.sched.scheduleAt(at, w.kinds.pullTimeout, pr.id, pr.reqSerial);
  }

  onPullTimeout(pr: PullRequest, serial: number): void {
    if (!pr.inFlight || pr.reqSerial !== serial) return;
    pr.inFlight = false;
    pr.reqSerial++; // a late answer to the timed-out request is ignored
    const w = this.world;
    w.metrics.pulls.exception++;
    w.trace.emit(w.T.pullResult, w.sched.nowUs, pr.mq, this.index, -1, -1);
    this.executePullRequestLater(pr, this.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
  }

  // ---------------------------------------------------------------- PullCallback (§4)

  onPullResponse(pr: PullRequest, serial = pr.reqSerial): void {
    if (pr.reqSerial !== serial) return; // an answer to a request that already timed out
    const w = this.world;
    const code = pr.respCode;
    pr.inFlight = false;
    const answered = code === ResponseCode.SUCCESS || code === ResponseCode.PULL_NOT_FOUND || code === ResponseCode.PULL_RETRY_IMMEDIATELY || code === ResponseCode.PULL_OFFSET_MOVED;
    w.trace.emit(w.T.pullResult, w.sched.nowUs, pr.mq, this.index, code, answered ? pr.result.nextBeginOffset : -1);
    switch (code) {
      case ResponseCode.SUCCESS:
        w.metrics.pulls.found++;
        return this.onFound(pr);
      case ResponseCode.PULL_NOT_FOUND:
        w.metrics.pulls.noNewMsg++;
        return this.onNoMessage(pr);
      case ResponseCode.PULL_RETRY_IMMEDIATELY:
        w.metrics.pulls.noMatchedMsg++;
        return this.onNoMessage(pr);
      case ResponseCode.PULL_OFFSET_MOVED:
        w.metrics.pulls.offsetIllegal++;
        return this.onOffsetIllegal(pr);
      default:
        // MQBrokerException → onException (§4.4).
        w.metrics.pulls.exception++;
        if (code === ResponseCode.FLOW_CONTROL) {
          return this.executePullRequestLater(pr, CLIENT_CONSTANTS.PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL, LATER_REASON.brokerFlowControl);
        }
        return this.executePullRequestLater(pr, this.config.pullTimeDelayMillsWhenException, LATER_REASON.exception);
    }
  }

  private onFound(pr: PullRequest): void {
    const w = this.world;
    const r = pr.result;
    pr.nextOffset = r.nextBeginOffset;
    if (r.count === 0) return this.executePullRequestImmediately(pr);
    const store = w.queues[pr.mq]!;
    // No dropped check here (§4.3): a late response still fills a dead ProcessQueue.
    const pq = pr.pq;
    pq.putMessage(r.offsets, r.count, store, r.maxOffset);
    if (pq.msgCount > w.metrics.pqCountMax) w.metrics.pqCountMax = pq.msgCount;
    if (pq.msgSize > w.metrics.pqBytesMax) w.metrics.pqBytesMax = pq.msgSize;
    this.consumeService.submitConsumeRequest(r.offsets, r.count, pq, pr.mq);
    if (this.config.pullInterval > 0) this.executePullRequestLater(pr, this.config.pullInterval, LATER_REASON.pullInterval);
    else this.executePullRequestImmediately(pr);
  }

  /** NO_NEW_MSG and NO_MATCHED_MSG: move on, correctTagsOffset, pull again at once. */
  private onNoMessage(pr: PullRequest): void {
    pr.nextOffset = pr.result.nextBeginOffset;
    if (pr.pq.msgCount === 0) this.updateOffset(pr.mq, pr.nextOffset, true);
    this.executePullRequestImmediately(pr);
  }

  /** OFFSET_ILLEGAL (§4.3): drop the ProcessQueue; fix the offset now (5.2+) or after 10 s (4.9). */
  private onOffsetIllegal(pr: PullRequest): void {
    const w = this.world;
    pr.nextOffset = pr.result.nextBeginOffset;
    pr.pq.dropped = true;
    const delayMs = w.model.profile === "5.x" ? 0 : CLIENT_CONSTANTS.OFFSET_ILLEGAL_FIX_DELAY_49;
    w.sched.scheduleIn(delayMs * 1000, w.kinds.offsetIllegalFix, pr.id);
  }

  onOffsetIllegalFix(pr: PullRequest): void {
    const w = this.world;
    w.skipTo(this.group, pr.mq, pr.nextOffset);
    if (w.model.profile === "5.x") this.offsetStore.updateAndFreezeOffset(pr.mq, pr.nextOffset);
    else this.offsetStore.updateOffset(pr.mq, pr.nextOffset, false);
    w.trace.emit(w.T.offsetUpdate, w.sched.nowUs, pr.mq, this.index, pr.nextOffset, 0);
    this.offsetStore.persist(pr.mq);
    this.rebalance.removeProcessQueue(pr.mq, pr.pq);
    pr.pq.release(); // this pull request is not re-enqueued: its loop ends here
    if (w.model.profile === "5.x") this.rebalance.wakeup();
  }

  // ---------------------------------------------------------------- offsets

  updateOffset(mq: number, offset: number, increaseOnly: boolean): void {
    this.offsetStore.updateOffset(mq, offset, increaseOnly);
    const w = this.world;
    w.trace.emit(w.T.offsetUpdate, w.sched.nowUs, mq, this.index, offset, increaseOnly ? 1 : 0);
  }

  /** A oneway UPDATE_CONSUMER_OFFSET to the queue's broker. */
  private sendOffsetUpdate(mq: number, offset: number): void {
    const w = this.world;
    const broker = w.queues[mq]!.brokerIndex;
    const t = w.net.upAt(w.sched.nowUs, this.index, broker);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.offsetUpdate, broker, offsetKey(this.group, mq), offset);
  }

  /** persistAllConsumerOffset, every persistConsumerOffsetInterval after the first 10 s. */
  onPersistAll(): void {
    const w = this.world;
    this.offsetStore.persistAll(this.rebalance.assignedQueues());
    w.sched.scheduleIn(this.config.persistConsumerOffsetInterval * 1000, w.kinds.persistAll, this.addr);
  }

  // ---------------------------------------------------------------- cleanExpiredMsg (§3.7)

  onCleanExpired(): void {
    const w = this.world;
    const now = w.sched.nowUs;
    const timeoutUs = this.config.consumeTimeout * 60_000_000;
    for (const [mq, pq] of this.rebalance.processQueues()) {
      const loops = Math.min(pq.msgCount, CLIENT_CONSTANTS.CLEAN_EXPIRED_MAX_LOOP);
      for (let i = 0; i < loops; i++) {
        const first = pq.firstKey;
        if (first < 0) break;
        const startUs = pq.consumeStartUs(first);
        if (startUs < 0 || now - startUs <= timeoutUs) break;
        // sendMessageBack(msg, 3) to the message's broker (a synchronous RPC); only if it went through is
        // the message removed, without touching the offset store. A failure ends this queue's loop.
        const store = w.queues[mq]!;
        const t = w.net.upAt(now, this.index, store.brokerIndex);
        if (t < 0) break;
        const ticket = this.cleanTicketNext++;
        this.cleanJobs.set(ticket, {
          mq, offset: first, reconsumeTimes: store.reconsumeTimes(first), originKey: store.originKey(first),
          originBornUs: store.originBornUs(first), bodyBytes: store.bodyBytes(first), tag: store.tag(first),
          delayLevel: CLIENT_CONSTANTS.SEND_BACK_EXPIRED_DELAY_LEVEL,
        });
        w.sched.scheduleAt(t, w.kinds.cleanSendBack, store.brokerIndex, ticket, this.addr);
        w.trace.emit(w.T.expiredCleaned, now, mq, first, this.index);
        if (pq.firstKey === first) pq.removeMessage([first], 1, now);
      }
    }
    w.sched.scheduleIn(timeoutUs, w.kinds.cleanExpired, this.addr);
  }

  takeCleanJob(ticket: number): MessageAttributes & { delayLevel: number } {
    const job = this.cleanJobs.get(ticket)!;
    this.cleanJobs.delete(ticket);
    return job;
  }

  // ---------------------------------------------------------------- rebalance RPC slots

  allocSlot(mq: number, timestampUs: number): number {
    this.slots.push({ mq, timestampUs, stored: -2, maxOffset: 0, searchOffset: 0, sentUs: this.world.sched.nowUs });
    return this.slots.length - 1;
  }
  querySlot(slot: number): QuerySlot {
    return this.slots[slot]!;
  }
  get slotCount(): number {
    return this.slots.length;
  }
  clearSlots(): void {
    this.slots.length = 0;
  }
}

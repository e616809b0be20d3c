// A broker node: the requests it serves (PULL_MESSAGE, QUERY/UPDATE_CONSUMER_OFFSET, HEART_BEAT,
// UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP, CONSUMER_SEND_MSG_BACK), its timers (the hold service's
// check, the client housekeeping scan, the offset flush, retention, the delay levels), its crash and
// restart. It owns its store, offsets, registry and schedule service; everything it learns of clients
// comes in a message, everything it tells them goes out as one.
import type { Node, NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { RequestCode, ResponseCode } from "../protocol/codes.ts";
import {
  Envelope, NotifyConsumerIdsChangedRequest, QueryConsumerOffsetResponse, SimpleResponse, GetConsumerListResponse, LockBatchResponse,
  type Command, type ConsumerSendMsgBackRequest, type HeartbeatRequest, type PullMessageRequest, type LockBatchRequest,
  type UnlockBatchRequest, type SendRetryMessageRequest,
  type QueryConsumerOffsetRequest, type UnregisterClientRequest, type UpdateConsumerOffsetRequest,
  type GetConsumerListRequest,
} from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import { BROKER_CONSTANTS, CLEAN_FIRST_DELAY_US } from "../scenario/defaults.ts";
import type { BrokerModel, Profile } from "../scenario/types.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import { ConsumerManager } from "./ConsumerManager.ts";
import { ConsumerOffsetManager, offsetKey } from "./ConsumerOffsetManager.ts";
import { MessageStore, type MessageSource } from "./MessageStore.ts";
import { PullMessageProcessor } from "./PullMessageProcessor.ts";
import { RebalanceLockManager } from "./RebalanceLockManager.ts";
import { ScheduleMessageService, type ScheduledRetry } from "./ScheduleMessageService.ts";
import { defineBrokerTrace, type BrokerTrace } from "./trace.ts";

/** How often simple (per-message, by age) retention runs, µs; only for topics that set `retention`. */
export const RETENTION_CHECK_PERIOD_US = 1_000_000;

/** A broker's timer codes (NodeContext#timer's `code`; SCHEDULE_DUE's argument is the delay level). */
export const enum BrokerTimer {
  HOLD_CHECK = 1,
  EXPIRY_SCAN = 2,
  OFFSET_FLUSH = 3,
  RETENTION = 4,
  SCHEDULE_DUE = 5,
  CLEAN_COMMIT_LOG = 6,
}

export class Broker implements Node {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  readonly T: BrokerTrace;
  readonly store: MessageStore;
  readonly offsets: ConsumerOffsetManager;
  readonly consumers = new ConsumerManager();
  readonly processor: PullMessageProcessor;
  readonly scheduleService: ScheduleMessageService;
  /** Orderly consumers' queue locks (§8.5). */
  readonly locks = new RebalanceLockManager();
  /** Whether the broker process is down. */
  down = false;
  /** Whether producers may write here (brokerReadOnly clears it). */
  writable = true;
  /**
   * A fault: QUERY_CONSUMER_OFFSET is answered with this code (SYSTEM_BUSY: the consumer-manage pool's
   * queue is full, "[OVERLOAD]"; SYSTEM_ERROR) with this probability; null: answered normally.
   */
  offsetQueryError: { code: number; probability: number } | null = null;
  private offsetQueryRng: (() => number) | null = null;
  /** Producer sends refused here (down, read-only or disk full): each went to another broker or failed. */
  writesRefused = 0;
  private lockTraceType = -1;
  /** Whether any queue here has simple (per-message) retention. */
  private readonly simpleRetention: boolean;

  constructor(
    private readonly ctx: NodeContext,
    readonly model: BrokerModel,
    private readonly routes: Routes,
    private readonly profile: Profile,
    private readonly source: MessageSource,
    private readonly observer: BrokerObserver,
  ) {
    this.trace = ctx.trace;
    this.T = defineBrokerTrace(ctx.trace);
    this.store = new MessageStore(routes, model.index, model.hotBytes, model.store, source, observer, ctx.trace, this.T);
    this.simpleRetention = routes.queuesOf(model.index).some((mq) => routes.topics[routes.topicOf(mq)]!.retentionUs !== Infinity);
    this.offsets = new ConsumerOffsetManager(ctx.trace, this.T);
    this.processor = new PullMessageProcessor(ctx, this.T, routes, model.config, model.hotBytes, profile, this.store, source, this.offsets, this.consumers);
    this.scheduleService = new ScheduleMessageService(ctx, BrokerTimer.SCHEDULE_DUE, model.delayLevelsUs, (e) => this.deliverRetry(e));
  }

  get index(): number {
    return this.model.index;
  }

  // ---------------------------------------------------------------- timers

  /** The hold service's check: every 5 s with long polling, else every shortPollingTimeMills (§13.4). */
  startHoldService(): void {
    this.ctx.timer(this.holdCheckPeriodMs() * 1000, BrokerTimer.HOLD_CHECK);
  }

  /** ClientHousekeepingService's scan and the consumer-offset flush. */
  startHousekeeping(): void {
    this.ctx.timer(BROKER_CONSTANTS.EXPIRY_SCAN_PERIOD_MS * 1000, BrokerTimer.EXPIRY_SCAN);
    this.ctx.timer(this.model.config.flushConsumerOffsetInterval * 1000, BrokerTimer.OFFSET_FLUSH);
  }

  /** The store's clean-up (60 s, then every cleanResourceInterval, §2.1) and simple retention (every second). */
  startRetention(): void {
    this.ctx.timer(CLEAN_FIRST_DELAY_US, BrokerTimer.CLEAN_COMMIT_LOG);
    if (this.simpleRetention) this.ctx.timer(RETENTION_CHECK_PERIOD_US, BrokerTimer.RETENTION);
  }

  private holdCheckPeriodMs(): number {
    const cfg = this.model.config;
    return cfg.longPollingEnable ? BROKER_CONSTANTS.HOLD_CHECK_PERIOD_MS : cfg.shortPollingTimeMills;
  }

  onTimer(code: number, arg: number): void {
    const now = this.ctx.nowUs;
    switch (code) {
      case BrokerTimer.HOLD_CHECK:
        this.source.advanceTo(now);
        this.processor.checkHoldRequest();
        this.ctx.timer(this.holdCheckPeriodMs() * 1000, BrokerTimer.HOLD_CHECK);
        return;
      case BrokerTimer.EXPIRY_SCAN:
        if (!this.down) this.scanNotActiveChannel();
        this.ctx.timer(BROKER_CONSTANTS.EXPIRY_SCAN_PERIOD_MS * 1000, BrokerTimer.EXPIRY_SCAN);
        return;
      case BrokerTimer.OFFSET_FLUSH:
        if (!this.down) this.offsets.flush();
        this.ctx.timer(this.model.config.flushConsumerOffsetInterval * 1000, BrokerTimer.OFFSET_FLUSH);
        return;
      case BrokerTimer.RETENTION:
        // Runs whether or not the process is up: the model deletes by age, not by a running cleaner.
        this.source.advanceTo(now);
        for (const mq of this.routes.queuesOf(this.index)) this.store.applyRetention(mq, now);
        this.ctx.timer(RETENTION_CHECK_PERIOD_US, BrokerTimer.RETENTION);
        return;
      case BrokerTimer.SCHEDULE_DUE:
        this.scheduleService.onDue(arg);
        return;
      case BrokerTimer.CLEAN_COMMIT_LOG:
        // A task of the broker process: it does not run while the broker is down.
        if (!this.down) {
          this.source.advanceTo(now);
          this.store.cleanCommitLog(now);
        }
        this.ctx.timer(this.model.store.cleanResourceIntervalUs, BrokerTimer.CLEAN_COMMIT_LOG);
        return;
    }
  }

  // ---------------------------------------------------------------- requests

  receive(msg: Command): void {
    switch (msg.code) {
      case RequestCode.PULL_MESSAGE:
        return this.processor.onPull(msg as PullMessageRequest);
      case RequestCode.QUERY_CONSUMER_OFFSET:
        return this.queryConsumerOffset(msg as QueryConsumerOffsetRequest);
      case RequestCode.UPDATE_CONSUMER_OFFSET: {
        const u = msg as UpdateConsumerOffsetRequest;
        return this.offsets.commitOffset(u.consumerGroup, u.mq, u.commitOffset, 0, this.ctx.nowUs);
      }
      case RequestCode.HEART_BEAT:
        return this.heartbeat(msg as HeartbeatRequest);
      case RequestCode.UNREGISTER_CLIENT:
      case RequestCode.CHANNEL_CLOSED:
        return this.unregister(msg as UnregisterClientRequest);
      case RequestCode.GET_CONSUMER_LIST_BY_GROUP: {
        const list = this.consumers.consumerIdList((msg as GetConsumerListRequest).consumerGroup);
        return this.ctx.reply(msg, new GetConsumerListResponse(list === null ? ResponseCode.SYSTEM_ERROR : ResponseCode.SUCCESS, list));
      }
      case RequestCode.CONSUMER_SEND_MSG_BACK:
        this.consumerSendMsgBack(msg as ConsumerSendMsgBackRequest);
        if (msg.envelope === Envelope.DELIVERED) this.ctx.reply(msg, new SimpleResponse(ResponseCode.SUCCESS));
        return;
      case RequestCode.SEND_MESSAGE:
        return this.ctx.reply(msg, new SimpleResponse(this.sendRetryMessage(msg as SendRetryMessageRequest)));
      case RequestCode.LOCK_BATCH_MQ: {
        const req = msg as LockBatchRequest;
        const locked = this.locks.tryLockBatch(req.consumerGroup, req.mqs, req.clientId, this.ctx.nowUs);
        // Defined on first use, so runs without orderly consumers keep their trace type codes.
        if (this.lockTraceType < 0) this.lockTraceType = this.trace.defineType("lockBatch", ["broker", "group", "asked", "locked"]);
        this.trace.emit(this.lockTraceType, this.ctx.nowUs, this.index, req.consumerGroup, req.mqs.length, locked.length);
        return this.ctx.reply(req, new LockBatchResponse(locked));
      }
      case RequestCode.UNLOCK_BATCH_MQ: {
        const req = msg as UnlockBatchRequest;
        this.locks.unlockBatch(req.consumerGroup, req.mqs, req.clientId);
        if (msg.envelope === Envelope.DELIVERED) this.ctx.reply(msg, new SimpleResponse(ResponseCode.SUCCESS));
        return;
      }
    }
  }

  onResponse(): void {}
  onTimeout(): void {}

  /**
   * QUERY_CONSUMER_OFFSET (§13.7), with the max offset and the timestamp search the client asks next
   * (§10.6). With no stored offset the broker answers 0 when the queue starts in page cache.
   */
  private queryConsumerOffset(req: QueryConsumerOffsetRequest): void {
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    this.store.applyRetention(req.mq, now);
    const resp = new QueryConsumerOffsetResponse();
    let stored = this.offsets.queryOffset(req.consumerGroup, req.mq);
    if (stored < 0 && this.store.startAtZero(req.mq)) stored = 0;
    resp.code = stored >= 0 ? ResponseCode.SUCCESS : ResponseCode.QUERY_NOT_FOUND;
    resp.offset = stored;
    const err = this.offsetQueryError;
    if (err !== null) {
      this.offsetQueryRng ??= this.ctx.rng(`broker/${this.model.name}/offsetQueryError`);
      if (err.probability >= 1 || this.offsetQueryRng() < err.probability) {
        // The admin requests for the max offset and the timestamp are served by another pool: they work.
        resp.code = err.code;
        resp.offset = -1;
      }
    }
    resp.maxOffset = this.store.queue(req.mq).maxOffset;
    resp.searchOffset = this.store.searchOffset(req.mq, req.timestampUs);
    this.ctx.reply(req, resp);
  }

  // ---------------------------------------------------------------- registry (§13.8)

  private heartbeat(req: HeartbeatRequest): void {
    if (this.consumers.register(req.consumerGroup, req.from, req.clientId, req.subscriptions, this.ctx.nowUs)) {
      this.notifyConsumerIdsChanged(req.consumerGroup);
    }
    if (req.envelope === Envelope.DELIVERED) this.ctx.reply(req, new SimpleResponse(ResponseCode.SUCCESS));
  }

  private unregister(req: UnregisterClientRequest): void {
    const group = this.consumers.unregister(req.from, req.code === RequestCode.CHANNEL_CLOSED ? -1 : req.consumerGroup);
    if (group >= 0) this.notifyConsumerIdsChanged(group);
  }

  /** Channels silent for channelExpiredTimeout are removed without any notification: peers learn at
   * their next periodic rebalance. */
  private scanNotActiveChannel(): void {
    const now = this.ctx.nowUs;
    this.consumers.scanNotActive(now, this.model.config.channelExpiredTimeout * 1000, (addr) => {
      this.trace.emit(this.T.channelExpired, now, this.index, addr);
    });
  }

  /** NOTIFY_CONSUMER_IDS_CHANGED to every channel of the group. */
  private notifyConsumerIdsChanged(group: number): void {
    for (const addr of this.consumers.channelsOf(group)) this.ctx.send(addr, new NotifyConsumerIdsChangedRequest(group));
  }

  // ---------------------------------------------------------------- producers

  /**
   * Stores a producer's message (`draw`: the producer draw that made it, −1 if it was meant for another
   * queue); true when a pull is held on the queue and it was not yet marked.
   */
  putMessage(mq: number, bornUs: number, bodyBytes: number, tag: number, draw = -1): boolean {
    const offset = this.store.append(mq, bornUs, bodyBytes, tag, -1, 0, 0, draw);
    this.observer.messageStored(mq, offset, tag);
    return this.processor.hold.markArrived(mq);
  }

  /** Pulls held on the topic's queues here (is anyone waiting for the topic's next message?). */
  heldOnTopic(topic: number): number {
    return this.processor.hold.heldOnTopic(topic);
  }

  /**
   * Whether a producer's send succeeds here: the process is up and its disk not full (§2.5). A read-only
   * broker still stores a normal topic's message (AbstractSendMessageProcessor#msgCheck refuses only
   * order topics, broker spec §7.1): producers stop sending once their route poll leaves it out.
   */
  acceptsWrites(): boolean {
    return !this.down && !this.store.diskFull;
  }

  /** A producer's send to `mq` here was refused (−1: a failover attempt); the queue's draws are broken. */
  refusedWrite(mq: number): void {
    this.writesRefused++;
    if (mq >= 0) this.store.queue(mq).breakDraws();
  }

  // ---------------------------------------------------------------- send-back and retries (§9.2)

  private consumerSendMsgBack(req: ConsumerSendMsgBackRequest): void {
    const group = req.consumerGroup;
    if (this.model.config.retryQueueNums <= 0) {
      this.observer.discarded(group, req.originKey); // SUCCESS without doing anything: the message is gone
      return;
    }
    const rt = req.reconsumeTimes;
    const now = this.ctx.nowUs;
    this.observer.sentBack(group, req.originKey);
    if (rt >= req.maxReconsumeTimes || req.delayLevel < 0) {
      this.source.advanceTo(now);
      this.store.append(this.routes.dlqQueue(group, this.index), now, req.bodyBytes, req.tag, req.originKey, req.originBornUs, rt);
      this.observer.deadLettered(group, req.originKey);
      this.trace.emit(this.T.dlq, now, req.mq, req.offset, rt, group);
      return;
    }
    let level = req.delayLevel === 0 ? 3 + rt : req.delayLevel;
    if (level > this.scheduleService.maxLevel) level = this.scheduleService.maxLevel; // HookUtils clamps to the highest level
    this.observer.retrying(group, req.originKey);
    this.trace.emit(this.T.sendBack, now, req.mq, req.offset, rt, level);
    this.scheduleService.park(level, {
      group, originKey: req.originKey, originBornUs: req.originBornUs, bodyBytes: req.bodyBytes, tag: req.tag, reconsumeTimes: rt + 1,
    });
  }

  /**
   * SEND_MESSAGE to %RETRY%<group> from a client's internal producer (the orderly service's sendMessageBack,
   * §8.4), decided by SendMessageProcessor#handleRetryAndDLQ (broker spec §8.1): to %DLQ%<group> when the
   * RECONSUME_TIME it carries reached the maximum (4.9: ≥ max; 5.x: > max) or, in 5.x (5.1.1+), whenever the
   * group holds an unexpired queue lock here; else into the delay level it asks for. A broker that takes
   * no writes refuses it.
   */
  private sendRetryMessage(req: SendRetryMessageRequest): number {
    if (!this.writable) return ResponseCode.NO_PERMISSION;
    if (this.store.diskFull) return ResponseCode.SYSTEM_ERROR; // SERVICE_NOT_AVAILABLE put status
    const group = req.consumerGroup;
    const now = this.ctx.nowUs;
    const rt = req.reconsumeTimes;
    const fivex = this.profile === "5.x";
    const toDlq = fivex ? rt > req.maxReconsumeTimes || !this.locks.isLockAllExpired(group, now) : rt >= req.maxReconsumeTimes;
    this.observer.sentBack(group, req.originKey);
    if (toDlq) {
      this.source.advanceTo(now);
      this.store.append(this.routes.dlqQueue(group, this.index), now, req.bodyBytes, req.tag, req.originKey, req.originBornUs, rt);
      this.observer.deadLettered(group, req.originKey);
      this.trace.emit(this.T.dlq, now, req.mq, req.offset, rt, group);
      return ResponseCode.SUCCESS;
    }
    const level = Math.min(req.delayLevel, this.scheduleService.maxLevel);
    this.observer.retrying(group, req.originKey);
    this.trace.emit(this.T.sendBack, now, req.mq, req.offset, rt, level);
    this.scheduleService.park(level, {
      group, originKey: req.originKey, originBornUs: req.originBornUs, bodyBytes: req.bodyBytes, tag: req.tag, reconsumeTimes: rt,
    });
    return ResponseCode.SUCCESS;
  }

  /** A due retry enters %RETRY%<group> on this broker and wakes pulls held there. */
  private deliverRetry(e: ScheduledRetry): void {
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    const mq = this.routes.retryQueue(e.group, this.index);
    const offset = this.store.append(mq, now, e.bodyBytes, e.tag, e.originKey, e.originBornUs, e.reconsumeTimes);
    this.trace.emit(this.T.retryDelivered, now, mq, offset, e.reconsumeTimes, e.group);
    if (this.processor.hold.heldCount(mq) > 0 && this.model.config.longPollingEnable) {
      this.processor.notifyMessageArriving(mq, this.store.queue(mq).maxOffset, e.tag);
    }
  }

  // ---------------------------------------------------------------- faults

  /**
   * The process dies: held requests are forgotten (the network times them out), consumer offsets not
   * flushed are lost, and with `loseSinceUs` so is the commit-log tail stored since then (an
   * ASYNC_FLUSH broker's unflushed pages, broker spec §1.2); returns the messages lost.
   */
  crash(loseSinceUs = Infinity): number {
    this.source.advanceTo(this.ctx.nowUs);
    this.down = true;
    this.processor.hold.dropAll((req) => this.ctx.drop(req));
    return loseSinceUs === Infinity ? 0 : this.store.loseTail(loseSinceUs, this.ctx.nowUs);
  }

  /** Restart: offsets come back as last flushed; the registry is empty until clients heartbeat again. */
  restart(): void {
    this.down = false;
    this.offsets.restore();
    this.consumers.clear();
    this.locks.clear();
  }

  setWritable(writable: boolean): void {
    this.source.advanceTo(this.ctx.nowUs);
    this.writable = writable;
  }

  /** The next pull of `group` on `mq` is answered PULL_OFFSET_MOVED with this next offset. */
  injectOffsetMoved(group: number, mq: number, next: number | "min" | "max"): void {
    this.processor.pendingOffsetMoved.set(offsetKey(group, mq), next);
  }

  /** Retention deletes up to `offset` now; returns "minOffset a → b". */
  truncate(mq: number, offset: number | "max"): string {
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    const q = this.store.queue(mq);
    const before = q.minOffset;
    this.store.deleteUpTo(mq, offset === "max" ? q.maxOffset : Math.min(offset, q.maxOffset), now);
    return `minOffset ${before} → ${q.minOffset}`;
  }
}

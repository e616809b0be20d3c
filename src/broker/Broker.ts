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
  type GetConsumerListRequest, GetAllConsumerOffsetResponse,
} from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import { dispatchedMax } from "./reput.ts";
import { BROKER_CONSTANTS, CLEAN_FIRST_DELAY_US } from "../scenario/defaults.ts";
import type { BrokerModel, Profile } from "../scenario/types.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import { ConsumerManager } from "./ConsumerManager.ts";
import { ConsumerOffsetManager, offsetKey } from "./ConsumerOffsetManager.ts";
import { MessageStore, type MessageSource } from "./MessageStore.ts";
import { PullMessageProcessor } from "./PullMessageProcessor.ts";
import { RebalanceLockManager } from "./RebalanceLockManager.ts";
import { ScheduleLog, ScheduleMessageService } from "./ScheduleMessageService.ts";
import type { Replica } from "./Replica.ts";
import { prepareForMasterOnline, SlaveSynchronize } from "./SlaveSynchronize.ts";
import { SendBackProcessor } from "./SendBackProcessor.ts";
import { ConsumerManageProcessor } from "./ConsumerManageProcessor.ts";
import type { NameServer } from "../protocol/NameServer.ts";
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
  /** ScheduleMessageService#persist: delayOffset.json every flushDelayOffsetInterval (10 s, §6.3). */
  DELAY_OFFSET_FLUSH = 7,
  /** registerBrokerAll (nodes of groups with replicas). */
  REGISTER = 8,
  /** SlaveSynchronize's task. */
  SLAVE_SYNC = 9,
}

/** flushDelayOffsetInterval, µs (first run after the same, §6.3). */
export const FLUSH_DELAY_OFFSET_INTERVAL_US = 10_000_000;

/** A node of a group with replicas: its place, the name server, and what it shares with its group. */
export interface BrokerReplication {
  /** This node's address (NodeModel index). */
  node: number;
  replica: Replica;
  nameServer: NameServer;
  /** The group's commit log (built by the first node, shared by the rest). */
  store: MessageStore | null;
  /** The group's schedule consume queues. */
  scheduleLog: ScheduleLog;
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
  /** QUERY_CONSUMER_OFFSET's processor (and its offsetQueryError fault). */
  readonly consumerManage: ConsumerManageProcessor;
  /** Producer sends refused here (down, read-only or disk full): each went to another broker or failed. */
  writesRefused = 0;
  private lockTraceType = -1;
  /** Whether any queue here has simple (per-message) retention. */
  private readonly simpleRetention: boolean;
  /** This node's place in its group; null without replicas. */
  readonly replica: Replica | null;
  readonly slaveSync: SlaveSynchronize | null = null;
  /** CONSUMER_SEND_MSG_BACK and retry sends (its `failure` is the sendBackFailure fault). */
  readonly sendBack: SendBackProcessor;
  /** Whether this node keeps the group's shared store (retention, clean-up): the group's first node. */
  private readonly ownsStore: boolean;

  constructor(
    private readonly ctx: NodeContext,
    readonly model: BrokerModel,
    private readonly routes: Routes,
    private readonly profile: Profile,
    private readonly source: MessageSource,
    private readonly observer: BrokerObserver,
    replication?: BrokerReplication,
  ) {
    this.trace = ctx.trace;
    this.T = defineBrokerTrace(ctx.trace);
    this.ownsStore = replication?.store == null;
    this.store = replication?.store ?? new MessageStore(routes, model.index, model.hotBytes, model.store, source, observer, ctx.trace, this.T);
    this.replica = replication?.replica ?? null;
    this.simpleRetention = routes.queuesOf(model.index).some((mq) => routes.topics[routes.topicOf(mq)]!.retentionUs !== Infinity);
    this.offsets = new ConsumerOffsetManager(ctx.trace, this.T, observer);
    this.processor = new PullMessageProcessor(ctx, this.T, routes, model.config, model.hotBytes, profile, this.store, source, this.offsets, this.consumers);
    this.processor.replica = this.replica;
    this.consumerManage = new ConsumerManageProcessor(ctx, `broker/${model.name}`, this.store, source, this.offsets, this.processor);
    this.sendBack = new SendBackProcessor(ctx, this.T, this, model.index, model.config, routes, profile, this.store, source, observer, this.locks, this.processor);
    const log = replication?.scheduleLog ?? new ScheduleLog(model.delayLevelsUs.length);
    // Only a master delivers delayed messages (§6.2).
    this.scheduleService = new ScheduleMessageService(ctx, BrokerTimer.SCHEDULE_DUE, model.delayLevelsUs, log, (e, replay) => this.sendBack.deliverRetry(e, replay), !this.replica?.isSlave);
    this.sendBack.scheduleService = this.scheduleService;
    if (replication !== undefined) {
      const timers = { register: BrokerTimer.REGISTER, sync: BrokerTimer.SLAVE_SYNC };
      this.slaveSync = new SlaveSynchronize(ctx, replication.replica, replication.nameServer, model.index, profile, this.offsets, this.scheduleService, timers);
    }
  }

  /** This node's address. */
  get node(): number {
    return this.ctx.addr;
  }

  /** Whether this node is a slave now (brokerId ≠ 0). */
  get isSlave(): boolean {
    return this.replica !== null && this.replica.isSlave;
  }

  get index(): number {
    return this.model.index;
  }

  // ---------------------------------------------------------------- timers

  /** Start phases ("phase": "random"; null: aligned): each periodic task's first run anywhere in (0, period]. */
  phases: (() => number) | null = null;
  private firstOf(periodUs: number): number {
    return this.phases === null ? periodUs : Math.max(1, Math.round(periodUs * (1 - this.phases())));
  }

  /** The hold service's check: every 5 s with long polling, else every shortPollingTimeMills (§13.4). */
  startHoldService(): void {
    this.ctx.timer(this.firstOf(this.holdCheckPeriodMs() * 1000), BrokerTimer.HOLD_CHECK);
  }

  /** ClientHousekeepingService's scan and the consumer-offset flush. */
  startHousekeeping(): void {
    this.ctx.timer(this.firstOf(BROKER_CONSTANTS.EXPIRY_SCAN_PERIOD_MS * 1000), BrokerTimer.EXPIRY_SCAN);
    this.ctx.timer(this.firstOf(this.model.config.flushConsumerOffsetInterval * 1000), BrokerTimer.OFFSET_FLUSH);
    this.ctx.timer(this.firstOf(FLUSH_DELAY_OFFSET_INTERVAL_US), BrokerTimer.DELAY_OFFSET_FLUSH);
    this.slaveSync?.start();
  }

  /** The store's clean-up (60 s, then every cleanResourceInterval, §2.1) and simple retention (every second). */
  startRetention(): void {
    if (!this.ownsStore) return; // the group's first node keeps the shared store
    const p = this.model.store.cleanResourceIntervalUs;
    this.ctx.timer(Math.max(1, CLEAN_FIRST_DELAY_US - p + this.firstOf(p)), BrokerTimer.CLEAN_COMMIT_LOG);
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
        return this.scheduleService.onDue(arg);
      case BrokerTimer.DELAY_OFFSET_FLUSH:
        if (!this.down && this.scheduleService.running) this.scheduleService.persist();
        this.ctx.timer(FLUSH_DELAY_OFFSET_INTERVAL_US, BrokerTimer.DELAY_OFFSET_FLUSH);
        return;
      case BrokerTimer.REGISTER:
        return this.slaveSync!.onRegister(this.down);
      case BrokerTimer.SLAVE_SYNC:
        return this.slaveSync!.onSyncTimer(this.down);
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
        return this.consumerManage.queryConsumerOffset(msg as QueryConsumerOffsetRequest);
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
      case RequestCode.GET_ALL_CONSUMER_OFFSET:
        return this.ctx.reply(msg, new GetAllConsumerOffsetResponse(this.offsets.snapshot(), this.scheduleService.encode(), this.offsets.dataVersion));
      case RequestCode.CONSUMER_SEND_MSG_BACK:
        return this.sendBack.onSendBack(msg as ConsumerSendMsgBackRequest);
      case RequestCode.SEND_MESSAGE:
        return this.sendBack.onRetrySend(msg as SendRetryMessageRequest);
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

  onResponse(requestCode: number, _cookie: number, response: Command): void {
    if (this.slaveSync?.isAnswer(requestCode)) this.slaveSync.onAnswer(response as GetAllConsumerOffsetResponse, this.down);
  }
  onTimeout(requestCode: number): void {
    if (this.slaveSync?.isAnswer(requestCode)) this.slaveSync.onAnswer(null, this.down);
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
    if (req.envelope === Envelope.DELIVERED) this.ctx.reply(req, new SimpleResponse(ResponseCode.SUCCESS));
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
    return !this.down && !this.isSlave && !this.store.diskFull;
  }

  /** A producer's send to `mq` here was refused (−1: a failover attempt); the queue's draws are broken. */
  refusedWrite(mq: number): void {
    this.writesRefused++;
    if (mq >= 0) this.store.queue(mq).breakDraws();
  }

  // ---------------------------------------------------------------- faults

  /**
   * The process dies: held requests are forgotten (the network times them out), offsets not flushed are
   * lost, and with `loseSinceUs` the commit-log tail stored since then (ASYNC_FLUSH, broker spec §1.2).
   */
  crash(loseSinceUs = Infinity): number {
    this.source.advanceTo(this.ctx.nowUs);
    this.down = true;
    this.processor.hold.dropAll((req) => this.ctx.drop(req));
    // The delivery progress since the last persist is lost: a restart replays it (§6.4).
    this.scheduleService.crash();
    this.slaveSync?.reset();
    // A slave's lost pages are fetched from the master again after its restart: the group's log keeps them.
    return loseSinceUs === Infinity || this.isSlave ? 0 : this.loseTail(loseSinceUs);
  }

  /** The commit log is cut back to `sinceUs`: the queues' tails, and the messages parked since then. */
  loseTail(sinceUs: number): number {
    return this.store.loseTail(sinceUs, this.ctx.nowUs) + this.scheduleService.loseTail(sinceUs, (e) => this.observer.discarded(e.group, e.originKey));
  }

  /** Restart: offsets and delay offsets as last flushed (delivery resumes 1 s later, §6.2); an empty registry. */
  restart(preOnline?: Broker): void {
    this.down = false;
    this.offsets.restore();
    if (preOnline !== undefined) prepareForMasterOnline(this, preOnline);
    this.consumers.clear();
    this.locks.clear();
    if (!this.isSlave) this.scheduleService.start();
    this.slaveSync?.register();
  }

  /**
   * changeToMaster (broker spec §4.11, §5): brokerId 0; the schedule service starts from this node's own
   * delay-offset file — the last sync from the old master — and its consumer offsets are its own table.
   */
  becomeMaster(): void {
    this.replica!.promoted();
    if (!this.down) this.scheduleService.start();
    this.slaveSync!.register();
  }

  /** changeToSlave: brokerId := id, the schedule service stops (persisting its table), sync starts. */
  becomeSlave(brokerId: number): void {
    this.replica!.demoted(brokerId, this.ctx.nowUs);
    if (this.scheduleService.running) this.scheduleService.stop(true);
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
    this.store.deleteUpTo(mq, Math.min(offset === "max" ? Infinity : offset, dispatchedMax(q, now)), now); // dispatched units (reput.ts)
    return `minOffset ${before} → ${q.minOffset}`;
  }
}

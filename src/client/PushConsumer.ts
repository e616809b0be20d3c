// One push-consumer instance (a DefaultMQPushConsumer in its own client JVM) as a node of the cluster:
// its lifecycle (§12.4), heartbeats and the offset store (§12.1). The pull loop
// lives in PullMessageService, rebalancing in RebalanceImpl, consumption in the consume service; this
// class routes what reaches the node to them.
import type { Node, NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { RequestCode } from "../protocol/codes.ts";
import {
  HeartbeatRequest, UnregisterClientRequest,
  type Command, type GetConsumerListResponse, type LockBatchResponse, type PullMessageResponse, type QueryConsumerOffsetResponse,
  type SubscriptionData,
} from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import { CLIENT_CONSTANTS, type ConsumerConfig } from "../scenario/defaults.ts";
import type { GroupModel, Profile } from "../scenario/types.ts";
import type { AllocateStrategy } from "./allocate/strategies.ts";
import type { ClientObserver, ClientStats } from "./ClientObserver.ts";
import { ConsumeMessageConcurrentlyService } from "./ConsumeMessageConcurrentlyService.ts";
import { ConsumeMessageOrderlyService } from "./ConsumeMessageOrderlyService.ts";
import type { ConsumeListeners } from "./ConsumeListeners.ts";
import type { ConsumeService } from "./ConsumeService.ts";
import { LocalFileOffsetStore, type LocalOffsetFile } from "./LocalFileOffsetStore.ts";
import type { ProcessQueue } from "./ProcessQueue.ts";
import { PullMessageService } from "./PullMessageService.ts";
import { PullRequest } from "./PullRequest.ts";
import { LOCK_COOKIE_KINDS, LockCookie } from "./QueueLocks.ts";
import { RebalanceImpl } from "./RebalanceImpl.ts";
import { RouteView } from "./RouteView.ts";
import { ConsumerShutdown, ShutdownStep } from "./ConsumerShutdown.ts";
import { cleanExpiredMsg } from "./cleanExpiredMsg.ts";
import type { NameServer } from "../protocol/NameServer.ts";
import { RemoteBrokerOffsetStore } from "./RemoteBrokerOffsetStore.ts";
import { ClientTimer } from "./timers.ts";
import { processClientRequest, sendOffsetUpdate } from "./clientRemotingProcessor.ts";
import { onResetOffsetWait } from "./resetOffset.ts";
import { defineClientTrace, type ClientTrace } from "./trace.ts";
import { recheckTagSet } from "./processPullResult.ts";

export type ServiceState = "CREATE_JUST" | "RUNNING" | "SHUTDOWN_ALREADY";

/** Everything a consumer instance is built from besides its context. */
export interface ConsumerSetup {
  readonly routes: Routes;
  readonly profile: Profile;
  readonly listeners: ConsumeListeners;
  readonly stats: ClientStats;
  readonly observer: ClientObserver;
  /** The group's allocation strategy over global queue indexes. */
  readonly strategy: AllocateStrategy<number>;
  /** BROADCASTING: the instance slot's offsets.json, kept by the host across restarts (§12.2). */
  readonly localOffsetFile?: LocalOffsetFile;
  /** The name server, for groups with replicas (null: every broker is one fixed node). */
  readonly nameServer?: NameServer | null;
  /** "phase": "random": periodic tasks start at a random point of their period. */
  readonly randomPhase?: boolean;
}

/** One consumer instance: a node of the cluster. */
export class PushConsumer implements Node {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  state: ServiceState = "CREATE_JUST";
  paused = false;
  /** False once this incarnation crashed or shut down: what still reaches it is dropped. */
  alive = true;
  /** Mutable copy: messageQueueChanged rewrites the per-queue thresholds (§10.4). */
  readonly config: ConsumerConfig;
  readonly profile: Profile;
  readonly T: ClientTrace;
  /** RemoteBrokerOffsetStore in CLUSTERING, its LocalFileOffsetStore subclass in BROADCASTING. */
  readonly offsetStore: RemoteBrokerOffsetStore;
  readonly consumeService: ConsumeService;
  /** The orderly service, when the group's listener is MessageListenerOrderly. */
  readonly orderlyService: ConsumeMessageOrderlyService | null = null;
  readonly orderly: boolean;
  readonly clustering: boolean;
  readonly rebalance: RebalanceImpl;
  readonly pull: PullMessageService;
  /** Every PullRequest this incarnation made, by id. */
  readonly pullRequests: PullRequest[] = [];
  /** Subscribed topics (including %RETRY%<group>), sorted by name, with their subVersion (ms). */
  readonly subscribedTopics: number[] = [];
  private readonly subVersion = new Map<number, number>();
  private readonly subVersionAt: (number | undefined)[] = []; // the same by topic index: read on every pull
  readonly maxReconsumeTimes: number;
  /** queueFlowControlTimes and queueMaxSpanFlowControlTimes (§2 steps 6–8). */
  queueFlowControlTimes = 0;
  queueMaxSpanFlowControlTimes = 0;
  private heartbeatRepliesAwaited = 0;
  private suspendType = -1;
  private lockType = -1;
  private readonly routes: Routes;
  /** Broker nodes as this instance knows them. */
  readonly route: RouteView;
  private readonly stopping: ConsumerShutdown;
  private readonly phases: (() => number) | null;

  constructor(
    readonly ctx: NodeContext,
    /** Slot in the cluster's consumer table (stable across restarts). */
    readonly index: number,
    /** Incarnation number: a restart creates a new PushConsumer with epoch + 1. */
    readonly epoch: number,
    readonly groupModel: GroupModel,
    /** Instance number within the group (0-based). */
    readonly instance: number,
    readonly clientId: string,
    readonly setup: ConsumerSetup,
  ) {
    this.trace = ctx.trace;
    this.routes = setup.routes;
    this.profile = setup.profile;
    this.phases = setup.randomPhase ? ctx.rng(`phase/client/${index}/${epoch}`) : null;
    this.route = new RouteView(ctx, setup.routes, setup.nameServer ?? null, groupModel.config.pollNameServerInterval, this.phase());
    this.T = defineClientTrace(ctx.trace);
    this.config = { ...groupModel.config };
    this.orderly = groupModel.consumeMode === "ORDERLY";
    this.clustering = groupModel.messageModel === "CLUSTERING";
    // maxReconsumeTimes −1: 16 for concurrent consumption, Integer.MAX_VALUE for orderly (§0.1).
    const unlimited = this.orderly ? CLIENT_CONSTANTS.ORDERLY_MAX_RECONSUME_TIMES : 16;
    this.maxReconsumeTimes = this.config.maxReconsumeTimes === -1 ? unlimited : this.config.maxReconsumeTimes;
    this.offsetStore = this.clustering
      ? new RemoteBrokerOffsetStore({ commitOffset: (mq, offset) => sendOffsetUpdate(this, mq, offset) })
      : new LocalFileOffsetStore(setup.localOffsetFile ?? new Map());
    const args = [ctx, this.T, this.config, setup.profile, setup.routes, setup.listeners, setup.stats, setup.observer] as const;
    if (this.orderly) this.consumeService = this.orderlyService = new ConsumeMessageOrderlyService(this, ...args);
    else this.consumeService = new ConsumeMessageConcurrentlyService(this, ...args);
    this.rebalance = new RebalanceImpl(this, ctx, this.T, setup.routes, setup.strategy, setup.observer);
    this.pull = new PullMessageService(this, ctx, this.T, setup.routes, setup.stats, setup.observer);
    this.stopping = new ConsumerShutdown(this, ctx);
  }

  get group(): number {
    return this.groupModel.index;
  }

  get addr(): number {
    return this.ctx.addr;
  }

  get broadcasting(): boolean {
    return !this.clustering;
  }

  /** Trace types that only orderly runs use, defined on first use so other runs keep their codes. */
  suspendTraceType(): number {
    if (this.suspendType < 0) this.suspendType = this.trace.defineType("orderlySuspend", ["mq", "offset", "consumer", "reconsumeTimes"]);
    return this.suspendType;
  }
  lockTraceType(): number {
    if (this.lockType < 0) this.lockType = this.trace.defineType("lockState", ["mq", "consumer", "locked"]);
    return this.lockType;
  }

  /** RebalanceImpl#lock(mq) for the orderly service's tryLockLaterAndReconsume. */
  lockForReconsume(mq: number, ticket: number): void {
    this.rebalance.locks.lock(mq, LockCookie.reconsume, ticket);
  }

  // ---------------------------------------------------------------- lifecycle

  /** DefaultMQPushConsumerImpl#start (§12.4): copySubscription adds the retry topic; heartbeat; timers. */
  start(): void {
    const nowMs = Math.floor(this.ctx.nowUs / 1000);
    // copySubscription adds %RETRY%<group> in CLUSTERING only (§12.4).
    const topics = this.groupModel.subscriptions.map((s) => s.topic);
    if (this.clustering) topics.push(this.routes.retryTopic(this.group));
    const name = (t: number) => this.routes.topicName(t);
    topics.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
    for (const t of topics) {
      this.subscribedTopics.push(t);
      this.setSubVersion(t, nowMs); // SubscriptionData.subVersion = construction time
    }
    this.state = "RUNNING";
    this.route.start();
    this.rebalance.start();
    // sendHeartbeatToAllBrokerWithLock, then rebalanceImmediately once every broker answered or failed.
    this.heartbeatRepliesAwaited = this.route.allNodes().length;
    this.sendHeartbeats(true);
    // Each first run after its initial delay, plus a random part of its period with "phase": "random".
    const cfg = this.config;
    this.ctx.timer(Math.round((CLIENT_CONSTANTS.PERSIST_INITIAL_DELAY + this.phase() * cfg.persistConsumerOffsetInterval) * 1000), ClientTimer.PERSIST_ALL);
    this.ctx.timer(Math.round((CLIENT_CONSTANTS.HEARTBEAT_INITIAL_DELAY + this.phase() * cfg.heartbeatBrokerInterval) * 1000), ClientTimer.HEARTBEAT);
    // The concurrent service's cleanExpiredMsg scheduler; the orderly one's lockMQPeriodically (CLUSTERING).
    if (!this.orderly) this.ctx.timer(Math.round(cfg.consumeTimeout * 60_000_000 * (1 + this.phase())), ClientTimer.CLEAN_EXPIRED);
    else if (this.clustering) this.ctx.timer(Math.round((CLIENT_CONSTANTS.LOCK_ALL_INITIAL_DELAY + this.phase() * CLIENT_CONSTANTS.REBALANCE_LOCK_INTERVAL) * 1000), ClientTimer.LOCK_ALL);
  }

  /** DefaultMQPushConsumerImpl#shutdown in its five steps over time (ConsumerShutdown, broker spec §8.2). */
  shutdown(): void {
    if (this.state !== "RUNNING" || this.stopping.step !== ShutdownStep.NONE) return;
    this.stopping.begin();
  }

  /**
   * A start phase in [0, 1) for one periodic task ("phase": "random", broker spec-free modelling choice: the
   * client instance's scheduler started at an arbitrary instant); 0 when aligned.
   */
  phase(): number {
    // Whole milliseconds: timers are integer µs and every client period is in ms.
    return this.phases === null ? 0 : Math.floor(this.phases() * 1000) / 1000;
  }

  /** Whether a shutdown is under way or done (the state stays RUNNING until its last step). */
  get shuttingDown(): boolean {
    return this.stopping.step !== ShutdownStep.NONE;
  }

  /** Runs `fn` when the shutdown under way is done (a restart waits for the old process to exit). */
  whenShutDown(fn: () => void): void {
    this.stopping.afterShutdown = fn;
  }

  /** The consume service's executor terminated during shutdown. */
  onConsumeDrained(): void {
    this.stopping.onDrained();
  }

  /**
   * The JVM dies: nothing is persisted. With "connectionClosed" the brokers see the TCP connections
   * close and notify the group at once; with "vanished" (host gone) only the 120 s expiry notices.
   */
  crash(mode: "connectionClosed" | "vanished"): void {
    if (!this.alive) return;
    if (mode === "connectionClosed" && this.state === "RUNNING") {
      for (const b of this.route.allNodes()) this.ctx.send(b, new UnregisterClientRequest(RequestCode.CHANNEL_CLOSED, this.clientId, this.group));
    }
    this.rebalance.destroy();
    this.state = "SHUTDOWN_ALREADY";
    this.alive = false;
  }

  // ---------------------------------------------------------------- subscriptions

  isSubscribed(topic: number): boolean {
    return this.subVersionAt[topic] !== undefined;
  }

  subVersionOf(topic: number): number {
    return this.subVersionAt[topic] ?? 0;
  }

  setSubVersion(topic: number, versionMs: number): void {
    this.subVersion.set(topic, versionMs);
    this.subVersionAt[topic] = versionMs;
  }

  /** The subscription expression's tag set on a topic (null: every tag). */
  tagSetOf(topic: number): ReadonlySet<number> | null {
    return this.groupModel.subscriptions.find((s) => s.topic === topic)?.tagSet ?? null;
  }

  private subscriptionData(): SubscriptionData[] {
    return [...this.subVersion.entries()].map(([topic, subVersion]) => ({ topic, subVersion, tagSet: this.tagSetOf(topic) }));
  }

  // ---------------------------------------------------------------- heartbeats

  /** HEART_BEAT to every broker; the start sequence waits for the answers (time-out mqClientApiTimeout). */
  sendHeartbeats(wantReply: boolean): void {
    // From shutdown step 3 the group is out of the client's consumer table: heartbeats no longer carry it.
    if (this.stopping.step >= ShutdownStep.UNREGISTERING) return;
    const subs = this.subscriptionData();
    for (const b of this.route.allNodes()) {
      const hb = new HeartbeatRequest(this.clientId, this.group, subs);
      if (wantReply) this.ctx.request(b, hb, this.config.mqClientApiTimeout * 1000, 0);
      else this.ctx.send(b, hb);
    }
  }

  /** A start heartbeat was answered or failed: when all are in, rebalance at once (4.9 does even if they failed). */
  private onHeartbeatDone(): void {
    if (this.heartbeatRepliesAwaited > 0 && --this.heartbeatRepliesAwaited === 0) this.rebalance.wakeup();
  }

  // ---------------------------------------------------------------- node

  receive(msg: Command): void {
    if (this.alive) processClientRequest(this, msg);
  }

  onResponse(requestCode: number, cookie: number, response: Command): void {
    this.answered(requestCode, cookie, response);
  }

  onTimeout(requestCode: number, cookie: number): void {
    this.answered(requestCode, cookie, null);
  }

  /** A request that could not leave (connection refused): it fails now, as its RPC throws in RocketMQ. */
  failNow(requestCode: number, cookie: number): void {
    this.answered(requestCode, cookie, null);
  }

  /** An answer (response null: the request timed out) to a request this incarnation sent. */
  private answered(requestCode: number, cookie: number, response: Command | null): void {
    // The pull answers first: nearly every answer a consumer gets is one.
    if (requestCode === RequestCode.PULL_MESSAGE) {
      const pr = this.pullRequests[cookie]!;
      if (!this.alive) this.pull.abandon(pr);
      else if (response === null) this.pull.onTimeout(pr);
      else this.pull.onResponse(pr, response as PullMessageResponse);
      return;
    }
    if (requestCode === RequestCode.QUERY_CONSUMER_OFFSET && cookie < 0) {
      // The orderly first pull's readOffset(READ_FROM_STORE) (§2 step 9).
      const pr = this.pullRequests[-1 - cookie]!;
      if (!this.alive) this.pull.abandon(pr);
      else this.pull.onFirstPullOffset(pr, response as QueryConsumerOffsetResponse | null);
      return;
    }
    if (!this.alive) return;
    switch (requestCode) {
      case RequestCode.QUERY_CONSUMER_OFFSET:
        return this.rebalance.onQueryAnswer(cookie, response as QueryConsumerOffsetResponse | null);
      case RequestCode.GET_CONSUMER_LIST_BY_GROUP:
        return this.rebalance.onConsumerList(cookie, response as GetConsumerListResponse | null);
      case RequestCode.HEART_BEAT:
        return this.onHeartbeatDone();
      case RequestCode.UNREGISTER_CLIENT:
        return this.stopping.onUnregistered();
      case RequestCode.CONSUMER_SEND_MSG_BACK:
      case RequestCode.SEND_MESSAGE:
        return this.consumeService.onSendBackResponse(cookie, response);
      case RequestCode.LOCK_BATCH_MQ: {
        const locked = this.rebalance.locks.onAnswer(cookie, response as LockBatchResponse | null);
        const kind = cookie % LOCK_COOKIE_KINDS;
        const n = Math.floor(cookie / LOCK_COOKIE_KINDS);
        if (kind === LockCookie.rebalance) this.rebalance.onLockAnswer(n, locked);
        else if (kind === LockCookie.reconsume) {
          const mq = this.orderlyService!.laterQueue(n);
          this.orderlyService!.onTryLockAnswer(n, locked !== null && mq >= 0 && locked.has(mq));
        }
        return;
      }
    }
  }

  onTimer(code: number, arg: number): void {
    if (!this.alive) return;
    // The timers of every consumed batch and of pulls re-scheduled later first, before the rare ones.
    if (code === ClientTimer.CONSUME_DONE) return this.consumeService.onConsumeDone(arg);
    if (code === ClientTimer.PULL_DISPATCH) return this.pull.pullMessage(this.pullRequests[arg]!);
    switch (code) {
      case ClientTimer.START:
        return this.start();
      case ClientTimer.OFFSET_ILLEGAL_FIX:
        return this.pull.onOffsetIllegalFix(this.pullRequests[arg]!);
      case ClientTimer.REBALANCE:
        return this.rebalance.onTimer();
      case ClientTimer.PERSIST_ALL:
        // persistAllConsumerOffset, every persistConsumerOffsetInterval after the first 10 s.
        this.offsetStore.persistAll(this.rebalance.assignedQueues());
        this.ctx.timer(this.config.persistConsumerOffsetInterval * 1000, ClientTimer.PERSIST_ALL);
        return;
      case ClientTimer.HEARTBEAT:
        this.sendHeartbeats(false);
        this.ctx.timer(this.config.heartbeatBrokerInterval * 1000, ClientTimer.HEARTBEAT);
        return;
      case ClientTimer.CLEAN_EXPIRED:
        // The concurrent service's scheduler stops with it (shutdown step 1).
        return this.shuttingDown ? undefined : cleanExpiredMsg(this);
      case ClientTimer.SHUTDOWN:
        return this.stopping.onTimer(arg);
      case ClientTimer.LOCAL_RETRY:
        return this.consumeService.onLocalRetry(arg);
      case ClientTimer.TRY_LOCK_LATER:
        return this.orderlyService!.onTryLockDue(arg);
      case ClientTimer.LOCK_ALL:
        if (this.shuttingDown) return; // the orderly service's scheduler stopped (shutdown step 1)
        this.rebalance.locks.lockAll();
        this.ctx.timer(CLIENT_CONSTANTS.REBALANCE_LOCK_INTERVAL * 1000, ClientTimer.LOCK_ALL);
        return;
      case ClientTimer.UNLOCK_DELAYED:
        return this.rebalance.locks.onDelayedUnlock(arg);
      case ClientTimer.REBALANCE_LATER:
        return this.rebalance.wakeup();
      case ClientTimer.ROUTE_POLL:
        return this.route.onPoll();
      case ClientTimer.RESET_OFFSET_WAIT:
        return onResetOffsetWait(this, arg);
    }
  }

  // ---------------------------------------------------------------- pull requests and offsets

  newPullRequest(mq: number, pq: ProcessQueue, nextOffset: number): PullRequest {
    const topic = this.routes.topicOf(mq);
    const pr = new PullRequest(this.pullRequests.length, this.group, mq, pq, nextOffset, topic, recheckTagSet(this.groupModel.subscriptions, topic));
    this.pullRequests.push(pr);
    return pr;
  }

  updateOffset(mq: number, offset: number, increaseOnly: boolean): void {
    this.offsetStore.updateOffset(mq, offset, increaseOnly);
    this.trace.emit(this.T.offsetUpdate, this.ctx.nowUs, mq, this.index, offset, increaseOnly ? 1 : 0);
  }
}

// PullMessageProcessor#processRequest (spec §13.1, §13.3, §13.5) with long polling (§13.4): a pull is
// checked against the permissions (brokerPermission, the group's SubscriptionGroupConfig, the topic's
// config: pullChecks.ts) and the group's subscription, answered from the store, or held until a message
// arrives, the hold time is up, or the hold service's periodic check finds something.
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { ResponseCode, PullSysFlag } from "../protocol/codes.ts";
import type { Profile } from "../scenario/types.ts";
import { PullMessageResponse, type PullMessageRequest } from "../protocol/commands.ts";
import { Pool } from "../protocol/Pool.ts";
import type { Routes } from "../protocol/routes.ts";
import type { BrokerConfig } from "../scenario/defaults.ts";
import type { ConsumerManager } from "./ConsumerManager.ts";
import { offsetKey, type ConsumerOffsetManager } from "./ConsumerOffsetManager.ts";
import { getMessage, GetMessageResult, GetMessageStatus, responseCodeOf, type GetMessageContext } from "./getMessage.ts";
import type { MessageSource, MessageStore } from "./MessageStore.ts";
import { BrokerPullRequest, PullRequestHoldService } from "./PullRequestHoldService.ts";
import type { BrokerTrace } from "./trace.ts";
import { clientSlot } from "../protocol/address.ts";
import type { Replica } from "./Replica.ts";
import type { BrokerFilters } from "./messageFilter.ts";
import { PERM_RW } from "../protocol/topicConfig.ts";
import { broadcastForbidden, checkPullPermission, type PullCheckState } from "./pullChecks.ts";
import { SubscriptionGroupManager } from "./SubscriptionGroupManager.ts";
import { dispatchedMax } from "./reput.ts";

export class PullMessageProcessor {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  readonly hold: PullRequestHoldService;
  /** offsetIllegal faults waiting for the next pull of (group, queue). */
  readonly pendingOffsetMoved = new Map<number, number | "min" | "max">();
  private readonly responses = new Pool(() => new PullMessageResponse());
  private readonly result = new GetMessageResult(1024);
  private readonly getCtx: GetMessageContext;
  /** This node's place in its group (null: no replicas, always the master). */
  replica: Replica | null = null;
  /** Pulls answered (FOUND, NO_NEW, NO_MATCHED, OFFSET_MOVED) by this node. */
  served = 0;
  /**
   * The lostWakeup fault (broker spec §9.2): an arrival's notification for held pulls is lost with this
   * probability, on queue `mq` (−1: every queue) — they wait for the next arrival or the hold check.
   */
  lostWakeup: { probability: number; mq: number; rng: () => number } | null = null;
  /** Arrival notifications the lostWakeup fault dropped. */
  wakeupsLost = 0;
  /** The run's filter data (tag hash codes, SQL92; messageFilter.ts); null: match tag indexes (bare tests). */
  filters: BrokerFilters | null = null;
  /** What the permission checks read (pullChecks.ts): brokerPermission, the group table, the topic table. */
  readonly checks: PullCheckState;
  /** Whether the broker has the group's consumer info (heartbeats); asked only by the broadcast check. */
  private readonly groupRegistered = (group: number): boolean => this.consumers.channelsOf(group).length > 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly T: BrokerTrace,
    private readonly routes: Routes,
    private readonly config: BrokerConfig,
    hotBytes: number,
    profile: Profile,
    private readonly store: MessageStore,
    private readonly source: MessageSource,
    private readonly offsets: ConsumerOffsetManager,
    private readonly consumers: ConsumerManager,
  ) {
    this.trace = ctx.trace;
    this.getCtx = { config, hotBytes, commitLogTail: 0, profile, maxCap: Infinity };
    this.hold = new PullRequestHoldService(routes.queues.length, routes.topics.length);
    // Every group has a %RETRY% topic: their number is the group count.
    const groupCount = routes.topics.reduce((n, t) => (t.retryOf >= 0 ? n + 1 : n), 0);
    const groups = new SubscriptionGroupManager(groupCount, config.retryQueueNums);
    this.checks = { brokerPermission: PERM_RW, groups, topics: routes.topicConfigs, profile };
  }

  /** A PULL_MESSAGE arrives: first processing, the broker may hold it. */
  onPull(req: PullMessageRequest): void {
    const p = this.hold.take();
    p.req = req;
    p.tagSet = req.subscription;
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    this.store.applyRetention(req.mq, now);
    const rep = this.replica;
    if (rep !== null && rep.isSlave && this.getCtx.profile === "5.x" && !this.config.slaveReadEnable) {
      // 5.x rejectRequest: a slave without slaveReadEnable answers "[REJECTREQUEST]system busy" before the
      // processor runs — no suggestion, so the client keeps coming back (broker spec §3.3).
      const resp = this.responses.take();
      resp.code = ResponseCode.SYSTEM_BUSY;
      resp.suggestWhichBrokerId = 0;
      resp.msgs.count = 0;
      this.ctx.reply(req, resp);
      this.hold.recycle(p);
      return;
    }
    this.processRequest(p, true);
  }

  private get isSlave(): boolean {
    return this.replica !== null && this.replica.isSlave;
  }

  /**
   * The max offset this node can serve of a queue: its consume queue's max — the messages the reput thread
   * has dispatched (reput.ts, broker spec §1.2) — and on a slave no further than its replication point.
   */
  maxOf(mq: number): number {
    const q = this.store.queue(mq);
    const now = this.ctx.nowUs;
    const d = dispatchedMax(q, now);
    const rep = this.replica;
    if (rep === null || !rep.isSlave) return d;
    const v = rep.visibleMax(q, mq, now);
    return v < d ? v : d;
  }

  /** processRequest; `allowSuspend` is true on the first processing only. */
  private processRequest(p: BrokerPullRequest, allowSuspend: boolean): void {
    const req = p.req;
    const q = this.store.queue(req.mq);
    const topic = this.routes.topicOf(req.mq);
    let code: number;
    // With the SUBSCRIPTION bit the broker parses the request's expression and neither needs the
    // group's heartbeat nor compares versions (§13.1 step 6).
    const withSubscription = (req.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) !== 0;
    // The permission checks come first (§13.1 steps 1–6, pullChecks.ts).
    const route = this.routes.queues[req.mq]!;
    const denied = checkPullPermission(this.checks, req.consumerGroup, topic, route.brokerIndex, route.queueId);
    if (denied !== ResponseCode.SUCCESS) return this.deny(p, denied);
    if (!withSubscription && broadcastForbidden(this.checks.groups, req.consumerGroup, this.groupRegistered)) return this.deny(p, ResponseCode.NO_PERMISSION);
    const sub = withSubscription ? undefined : this.consumers.subscription(req.consumerGroup, topic);
    const moved = this.pendingOffsetMoved.size > 0 ? this.pendingOffsetMoved.get(offsetKey(req.consumerGroup, req.mq)) : undefined;
    let next = 0;
    let min = 0;
    let max = 0;
    let found = false;
    let suggest = 0;
    const r = this.result;
    const rep = this.replica;
    const slave = rep !== null && rep.isSlave;
    if (!withSubscription && sub === undefined) {
      code = ResponseCode.SUBSCRIPTION_NOT_EXIST;
    } else if (!withSubscription && sub!.subVersion < req.subVersion) {
      code = ResponseCode.SUBSCRIPTION_NOT_LATEST;
    } else if (this.filters !== null && this.filters.refuses(req.consumerGroup, topic, this.config.enablePropertyFilter)) {
      return this.deny(p, ResponseCode.SYSTEM_ERROR); // SQL92 without enablePropertyFilter (messageFilter.ts)
    } else if (moved !== undefined) {
      // An injected offsetIllegal fault, answered like a 5.x server-side reset (§13.1 step 8). A given
      // offset is clamped into [min, max] as every nextBeginOffset a broker computes is (broker spec §3.1).
      this.pendingOffsetMoved.delete(offsetKey(req.consumerGroup, req.mq));
      code = ResponseCode.PULL_OFFSET_MOVED;
      max = this.maxOf(req.mq);
      next = moved === "min" ? q.minOffset : moved === "max" ? max : Math.min(Math.max(moved, q.minOffset), max);
      min = q.minOffset;
    } else {
      if (!withSubscription) p.tagSet = sub!.tagSet;
      this.getCtx.commitLogTail = this.store.commitLogTail;
      this.getCtx.maxCap = this.maxOf(req.mq);
      this.getCtx.filter = this.filters === null ? null : this.filters.of(req.consumerGroup, topic);
      getMessage(q, req.queueOffset, req.maxMsgNums, p.tagSet, this.getCtx, r);
      this.filters?.noteScan(req.consumerGroup, req.mq, r.filtered, r.status === GetMessageStatus.FOUND, r.status === GetMessageStatus.NO_MATCHED_MESSAGE);
      code = responseCodeOf(r.status, req.queueOffset);
      next = r.nextBeginOffset;
      // suggestWhichBrokerId (broker spec §4.4): with slaveReadEnable, whichBrokerWhenConsumeSlowly (1)
      // when the data pulled has left memory, else the master.
      if (rep !== null && this.config.slaveReadEnable && r.coldTail) suggest = 1;
      if (slave) {
        code = this.asSlave(code, suggest);
        if (code === ResponseCode.PULL_RETRY_IMMEDIATELY) {
          suggest = 0;
          if (!this.config.offsetCheckInSlave && r.status !== GetMessageStatus.NO_MATCHED_MESSAGE) next = req.queueOffset;
        }
      }
      // tryCommitOffset (§13.5): only on the first processing, only with the COMMIT_OFFSET bit; 4.x never on
      // a slave (storeOffsetEnable needs role ≠ SLAVE, broker spec §3.3). 5.0.0 dropped that check (verified
      // in 5.0.0 … HEAD): a slave stores it — clients clear the bit for slaves, so it arrives only where
      // their route calls the slave id 0 (an acting master, a stale route after a role swap).
      if (allowSuspend && !(slave && this.getCtx.profile !== "5.x") && (req.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0) {
        this.offsets.commitOffset(req.consumerGroup, req.mq, req.commitOffset, 1, this.ctx.nowUs);
      }
      if (code === ResponseCode.PULL_NOT_FOUND && allowSuspend) {
        this.suspend(p, topic, r.maxOffset);
        return;
      }
      min = r.minOffset;
      max = r.maxOffset;
      found = r.status === GetMessageStatus.FOUND;
    }
    const resp = this.responses.take();
    resp.code = code;
    resp.suggestWhichBrokerId = suggest;
    if (code !== ResponseCode.SUBSCRIPTION_NOT_EXIST && code !== ResponseCode.SUBSCRIPTION_NOT_LATEST) this.served++;
    resp.nextBeginOffset = next;
    resp.minOffset = min;
    resp.maxOffset = max;
    const msgs = resp.msgs;
    msgs.count = 0;
    if (found) {
      msgs.reserve(r.count);
      for (let i = 0; i < r.count; i++) q.copyTo(r.offsets[i]!, msgs, i);
      msgs.count = r.count;
    }
    this.ctx.reply(req, resp);
    this.hold.recycle(p);
  }

  /** A pull a permission check refused: answered at once with `code`, nothing read, not counted as served. */
  private deny(p: BrokerPullRequest, code: number): void {
    const resp = this.responses.take();
    resp.code = code;
    resp.suggestWhichBrokerId = 0;
    resp.nextBeginOffset = 0;
    resp.minOffset = 0;
    resp.maxOffset = 0;
    resp.msgs.count = 0;
    this.ctx.reply(p.req, resp);
    this.hold.recycle(p);
  }

  /**
   * A slave's answer (broker spec §3.3). 4.x: an out-of-range offset (PULL_OFFSET_MOVED) is not corrected
   * without offsetCheckInSlave — PULL_RETRY_IMMEDIATELY at the requested offset, suggesting the master;
   * the rest as on a master. 5.x (slaveReadEnable, or it was refused before): unless it suggests pulling
   * from the slave, every answer but FOUND is PULL_RETRY_IMMEDIATELY (minBrokerIdInGroup is 0 outside
   * acting-master mode) — so a caught-up pull is never held.
   */
  private asSlave(code: number, suggest: number): number {
    if (this.getCtx.profile === "5.x") {
      if (suggest === 0 && code !== ResponseCode.SUCCESS && !this.replica!.acting) return ResponseCode.PULL_RETRY_IMMEDIATELY;
      if (code === ResponseCode.PULL_OFFSET_MOVED && !this.config.offsetCheckInSlave) return ResponseCode.PULL_RETRY_IMMEDIATELY;
      return code;
    }
    if (code === ResponseCode.PULL_OFFSET_MOVED && !this.config.offsetCheckInSlave) return ResponseCode.PULL_RETRY_IMMEDIATELY;
    return code;
  }

  /** PullRequestHoldService#suspendPullRequest. */
  private suspend(p: BrokerPullRequest, topic: number, max: number): void {
    const now = this.ctx.nowUs;
    const cfg = this.config;
    const req = p.req;
    this.ctx.defer(req);
    p.holdSinceUs = now;
    p.holdTimeoutUs = (cfg.longPollingEnable ? req.suspendTimeoutMillis : cfg.shortPollingTimeMills) * 1000;
    this.trace.emit(this.T.pullHeld, now, req.mq, clientSlot(req.from), req.queueOffset);
    this.holdForArrival(p, topic, max);
  }

  /**
   * Holds `p` (suspendPullRequest) and asks for the reput thread's notice. Arrivals wake held pulls only
   * with long polling on (§13.4); short polling waits for its tick. A slave's reput notifies nobody (4.x,
   * broker spec §3.3): its held pulls wait for the 5 s check. Messages stored but not yet dispatched
   * (born since the last reput pass) are announced at the next pass, like the ones still to be born.
   * `max`: the queue's max offset as this node serves it now (maxOf).
   */
  private holdForArrival(p: BrokerPullRequest, topic: number, max: number): void {
    const mq = p.req.mq;
    this.hold.hold(p, topic, max);
    if (!this.config.longPollingEnable || this.isSlave) return;
    if (max < this.store.queue(mq).maxOffset && this.hold.markArrived(mq)) this.source.arrivedUndispatched(mq);
    this.source.wakeAtNextArrival(topic);
  }

  /**
   * PullRequestHoldService#notifyMessageArriving: replays held requests that can now be answered —
   * new messages past their offset that match their filter (tag null = periodic check, matches all) —
   * or whose hold time is up; keeps the rest.
   */
  notifyMessageArriving(mq: number, maxOffset: number, tag: number | null): void {
    const topic = this.routes.topicOf(mq);
    const held = this.hold.takeHeld(mq, topic);
    if (held === null) return;
    const now = this.ctx.nowUs;
    for (let i = 0; i < held.length; i++) {
      const p = held[i]!;
      // With filter data the arriving unit (maxOffset − 1) must match by tag hash and SQL92 (§13.4).
      const f = this.filters === null ? undefined : this.filters.of(p.req.consumerGroup, topic);
      const matches = tag === null || (f === undefined ? p.tagSet === null || p.tagSet.has(tag) : f === null || f.matchesUnit(this.store.queue(mq), maxOffset - 1));
      if ((maxOffset > p.req.queueOffset && matches) || now >= p.holdSinceUs + p.holdTimeoutUs) {
        this.processRequest(p, false);
      } else {
        this.holdForArrival(p, topic, this.maxOf(mq));
      }
    }
    this.hold.giveBack(held);
  }

  /**
   * The reput thread's notice, at a reput pass, for a queue that got messages while held: one notify per
   * message dispatched since the last notice.
   */
  onArrived(mq: number): void {
    const q = this.store.queue(mq);
    const max = dispatchedMax(q, this.ctx.nowUs);
    let o = this.hold.takeArrived(mq);
    const lost = this.lostWakeup;
    for (; o < max && this.hold.heldCount(mq) > 0; o++) {
      if (lost !== null && (lost.mq < 0 || lost.mq === mq) && lost.rng() < lost.probability) {
        this.wakeupsLost++;
        continue;
      }
      this.notifyMessageArriving(mq, o + 1, q.tag(o));
    }
    this.hold.setNotifiedUpTo(mq, max);
  }

  /** The hold service's periodic check (§13.4): every queue with a held request. */
  checkHoldRequest(): void {
    for (const mq of this.routes.queuesOf(this.store.broker)) {
      if (this.hold.heldCount(mq) > 0) this.notifyMessageArriving(mq, this.maxOf(mq), null);
    }
  }
}

// A broker: PullMessageProcessor (§13.1, §13.3, §13.5), long polling (§13.4), ConsumerOffsetManager and
// QUERY_CONSUMER_OFFSET (§13.6, §13.7), heartbeats and the consumer registry (§13.8), consumer send-back
// and the schedule service (§9.2). Every request arrives as an event; every answer leaves via the network.
import type { BrokerModel } from "../scenario/types.ts";
import type { PullRequest } from "../client/PullRequest.ts";
import type { World } from "../model/World.ts";
import { getMessage, GetMessageStatus, responseCodeOf, ResponseCode, type GetMessageContext } from "./getMessage.ts";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import { QUERY_SLOT_SPAN } from "../client/RebalanceImpl.ts";
import { ScheduleMessageService } from "./ScheduleMessageService.ts";

const OFFSET_RPC_TIMEOUT_US = 5_000_000;

/** What the broker needs of a message to send it back. */
export interface MessageAttributes {
  mq: number;
  offset: number;
  reconsumeTimes: number;
  originKey: number;
  originBornUs: number;
  bodyBytes: number;
  tag: number;
}

/** Offset table key of (group, global queue index). */
export function offsetKey(group: number, mq: number): number {
  return group * 1048576 + mq;
}

export class Broker {
  /** Commit-log tail position, bytes: every stored message advances it. */
  commitLogTail = 0;
  /** ConsumerOffsetManager: offsetKey → committed offset. */
  readonly offsets = new Map<number, number>();
  /** Consumer registry: group → channel (consumer address) → client id and last heartbeat time. */
  readonly channels = new Map<number, Map<number, { clientId: string; lastUpdateUs: number }>>();
  /** Group → topic → subscription version learned from heartbeats. */
  readonly subVersions = new Map<number, Map<number, number>>();
  /** False while a fault makes CONSUMER_SEND_MSG_BACK fail. */
  sendBackOk = true;
  /** Sent-back messages waiting for their delay level (§9.2). */
  readonly scheduleService: ScheduleMessageService;
  private readonly ctx: GetMessageContext;

  constructor(
    readonly model: BrokerModel,
    private readonly world: World,
    /** Global indexes of the queues this broker hosts (all topics, retry and DLQ). */
    readonly queues: number[],
  ) {
    this.ctx = { config: model.config, hotBytes: model.hotBytes, commitLogTail: 0, profile: world.model.profile };
    this.scheduleService = new ScheduleMessageService(this, world, model.delayLevelsUs);
  }

  get index(): number {
    return this.model.index;
  }

  /** Stored size of a message in the commit log (only used to place it for the page-cache test). */
  storedSize(bodyBytes: number, topicName: string): number {
    return bodyBytes + topicName.length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
  }

  isHot(clPos: number): boolean {
    return this.commitLogTail - clPos <= this.model.hotBytes;
  }

  // ---------------------------------------------------------------- PULL_MESSAGE

  /** A pull request arrives (first processing: the broker may hold it). */
  onPull(pr: PullRequest, serial = pr.reqSerial): void {
    const w = this.world;
    if (pr.reqSerial !== serial) return; // the client gave up on it already
    if (this.down) {
      w.pullUnanswered(pr);
      return;
    }
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(pr.mq);
    this.processRequest(pr, true);
  }

  /** PullMessageProcessor#processRequest with brokerAllowSuspend. */
  private processRequest(pr: PullRequest, allowSuspend: boolean): void {
    const w = this.world;
    const store = w.queues[pr.mq]!;
    const versions = this.subVersions.get(pr.group);
    const brokerSubVersion = versions?.get(store.topicIndex);
    let code: ResponseCode;
    // With the SUBSCRIPTION bit the broker parses the request's expression and neither needs the
    // group's heartbeat nor compares versions (§13.1 step 6).
    if (!pr.reqHasSubscription && brokerSubVersion === undefined) {
      code = ResponseCode.SUBSCRIPTION_NOT_EXIST;
    } else if (!pr.reqHasSubscription && brokerSubVersion! < pr.reqSubVersion) {
      code = ResponseCode.SUBSCRIPTION_NOT_LATEST;
    } else if (this.pendingOffsetMoved.size > 0 && this.pendingOffsetMoved.has(offsetKey(pr.group, pr.mq))) {
      // An injected offsetIllegal fault, answered like a 5.x server-side reset (§13.1 step 8).
      const key = offsetKey(pr.group, pr.mq);
      const next = this.pendingOffsetMoved.get(key)!;
      this.pendingOffsetMoved.delete(key);
      pr.result.status = GetMessageStatus.OFFSET_TOO_SMALL;
      pr.result.nextBeginOffset = next === "min" ? store.minOffset : next === "max" ? store.maxOffset : next;
      pr.result.minOffset = store.minOffset;
      pr.result.maxOffset = store.maxOffset;
      pr.result.count = 0;
      code = ResponseCode.PULL_OFFSET_MOVED;
    } else {
      this.ctx.commitLogTail = this.commitLogTail;
      getMessage(store, pr.reqOffset, pr.reqMaxMsgNums, w.tagSetOf(pr.group, store.topicIndex), this.ctx, pr.result);
      code = responseCodeOf(pr.result.status, pr.reqOffset);
      // tryCommitOffset (§13.5): only on the first processing, and only with the COMMIT_OFFSET bit.
      if (allowSuspend && pr.reqCommitOffset >= 0) this.commitOffset(pr.group, pr.mq, pr.reqCommitOffset, 1);
      if (code === ResponseCode.PULL_NOT_FOUND && allowSuspend) {
        this.hold(pr);
        return;
      }
    }
    pr.respCode = code;
    const t = w.net.downAt(w.sched.nowUs, pr.consumer, this.index);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.pullResponse, pr.id, pr.reqSerial);
    else w.pullUnanswered(pr);
  }

  /** PullRequestHoldService#suspendPullRequest. */
  private hold(pr: PullRequest): void {
    const w = this.world;
    const cfg = this.model.config;
    pr.holdSinceUs = w.sched.nowUs;
    pr.holdTimeoutUs = (cfg.longPollingEnable ? pr.reqSuspendTimeoutMs : cfg.shortPollingTimeMills) * 1000;
    pr.heldSerial = pr.reqSerial;
    w.holdPull(pr);
    w.trace.emit(w.T.pullHeld, w.sched.nowUs, pr.mq, pr.consumer, pr.reqOffset);
  }

  /** The hold service's periodic check (§13.4): every 5 s with long polling, else every 1 s. */
  onHoldTick(): void {
    const w = this.world;
    w.advanceProducers(w.sched.nowUs);
    for (const mq of this.queues) {
      if (w.heldCount(mq) > 0) this.notifyMessageArriving(mq, w.queues[mq]!.maxOffset, null);
    }
    const cfg = this.model.config;
    const periodMs = cfg.longPollingEnable ? BROKER_CONSTANTS.HOLD_CHECK_PERIOD_MS : cfg.shortPollingTimeMills;
    w.sched.scheduleIn(periodMs * 1000, w.kinds.holdTick, this.index);
  }

  /**
   * PullRequestHoldService#notifyMessageArriving: replays held requests that can now be answered —
   * new messages past their offset that match their filter (tag null = periodic check, matches all) —
   * or whose hold time is up; keeps the rest.
   */
  notifyMessageArriving(mq: number, maxOffset: number, tag: number | null): void {
    const w = this.world;
    const held = w.takeHeld(mq);
    if (held === null) return;
    const now = w.sched.nowUs;
    const topic = w.queues[mq]!.topicIndex;
    for (let i = 0; i < held.length; i++) {
      const pr = held[i]!;
      if (pr.heldSerial !== pr.reqSerial) continue; // the client timed out and re-sent: a dead hold
      const matches = tag === null || tagMatches(w.tagSetOf(pr.group, topic), tag);
      if ((maxOffset > pr.reqOffset && matches) || now >= pr.holdSinceUs + pr.holdTimeoutUs) {
        this.processRequest(pr, false);
      } else {
        w.holdPull(pr);
      }
    }
    held.length = 0;
    w.recycleHeld(held);
  }

  // ---------------------------------------------------------------- offsets

  commitOffset(group: number, mq: number, offset: number, viaPull: number): void {
    this.offsets.set(offsetKey(group, mq), offset);
    const w = this.world;
    w.trace.emit(w.T.offsetCommit, w.sched.nowUs, mq, group, offset, viaPull);
  }

  queryOffset(group: number, mq: number): number {
    return this.offsets.get(offsetKey(group, mq)) ?? -1;
  }

  /**
   * QUERY_CONSUMER_OFFSET (§13.7) plus the max offset and the timestamp search the client asks next
   * (§10.6). Results are written into the consumer's query slot; the reply crosses the network.
   */
  onQueryOffset(consumer: number, slotAndSerial: number): void {
    const w = this.world;
    const slot = slotAndSerial % QUERY_SLOT_SPAN;
    const serial = Math.floor(slotAndSerial / QUERY_SLOT_SPAN);
    const c = w.incarnation(consumer);
    const q = c.querySlot(slot);
    if (q === undefined) return;
    if (this.down) {
      w.sched.scheduleAt(Math.max(w.sched.nowUs, q.sentUs + OFFSET_RPC_TIMEOUT_US), w.kinds.queryOffsetResponse, consumer, slot, serial);
      return;
    }
    w.advanceProducers(w.sched.nowUs);
    w.applyRetention(q.mq);
    const store = w.queues[q.mq]!;
    let stored = this.queryOffset(c.group, q.mq);
    // The "start at 0" rule: no committed offset, queue never truncated, message 0 still in page cache.
    if (stored < 0 && store.minOffset <= 0 && store.maxOffset > 0 && store.physicalMin === 0 && this.isHot(store.clPos(0))) stored = 0;
    q.stored = stored;
    q.maxOffset = store.maxOffset;
    q.searchOffset = w.searchOffset(q.mq, q.timestampUs);
    const t = w.net.downAt(w.sched.nowUs, c.index, this.index);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.queryOffsetResponse, consumer, slot, serial);
    else {
      q.stored = -2; // the answer is lost: the client's RPC times out
      w.sched.scheduleAt(Math.max(w.sched.nowUs, q.sentUs + OFFSET_RPC_TIMEOUT_US), w.kinds.queryOffsetResponse, consumer, slot, serial);
    }
  }

  // ---------------------------------------------------------------- registry (§13.8)

  /** HEART_BEAT: register or refresh the channel, learn subscriptions, notify on a new channel. */
  onHeartbeat(consumer: number, wantReply: boolean): void {
    const w = this.world;
    if (this.down) return;
    const c = w.incarnation(consumer);
    const now = w.sched.nowUs;
    let chans = this.channels.get(c.group);
    if (!chans) {
      chans = new Map();
      this.channels.set(c.group, chans);
    }
    const isNew = !chans.has(consumer);
    chans.set(consumer, { clientId: c.clientId, lastUpdateUs: now });
    let versions = this.subVersions.get(c.group);
    if (!versions) {
      versions = new Map();
      this.subVersions.set(c.group, versions);
    }
    let topicsChanged = false;
    for (const [topic, subVersion] of c.subscriptionVersions()) {
      const old = versions.get(topic);
      if (old === undefined) topicsChanged = true;
      if (old === undefined || subVersion > old) versions.set(topic, subVersion);
    }
    if (isNew || topicsChanged) this.notifyConsumerIdsChanged(c.group);
    if (wantReply) {
      const t = w.net.downAt(now, c.index, this.index);
      if (t >= 0) w.sched.scheduleAt(t, w.kinds.heartbeatResponse, consumer);
    }
  }

  /** UNREGISTER_CLIENT from a clean shutdown: remove the channel, notify the group. */
  onUnregister(consumer: number): void {
    if (!this.down) this.removeChannel(consumer, true);
  }

  /** The TCP connection of a client closed (crash with the host still up): same as unregister. */
  onChannelClosed(consumer: number): void {
    if (!this.down) this.removeChannel(consumer, true);
  }

  /** ClientHousekeepingService: every 10 s, channels silent for channelExpiredTimeout are removed
   * without any CHANGE notification (§13.8) — peers learn at their next periodic rebalance. */
  onExpiryScan(): void {
    const w = this.world;
    const now = w.sched.nowUs;
    if (!this.down) {
      const limitUs = this.model.config.channelExpiredTimeout * 1000;
      for (const chans of this.channels.values()) {
        for (const [addr, ch] of [...chans.entries()].sort((a, b) => a[0] - b[0])) {
          if (now - ch.lastUpdateUs > limitUs) {
            chans.delete(addr);
            w.trace.emit(w.T.channelExpired, now, this.index, addr);
          }
        }
      }
    }
    w.sched.scheduleIn(BROKER_CONSTANTS.EXPIRY_SCAN_PERIOD_MS * 1000, w.kinds.expiryScan, this.index);
  }

  private removeChannel(consumer: number, notify: boolean): void {
    const c = this.world.incarnation(consumer);
    const chans = this.channels.get(c.group);
    if (!chans || !chans.delete(consumer)) return;
    if (chans.size === 0) {
      this.channels.delete(c.group);
      this.subVersions.delete(c.group);
    }
    if (notify) this.notifyConsumerIdsChanged(c.group);
  }

  /** NOTIFY_CONSUMER_IDS_CHANGED to every channel of the group (real-time notification). */
  private notifyConsumerIdsChanged(group: number): void {
    const w = this.world;
    const chans = this.channels.get(group);
    if (!chans) return;
    const now = w.sched.nowUs;
    for (const addr of [...chans.keys()].sort((a, b) => a - b)) {
      const t = w.net.downAt(now, w.incarnation(addr).index, this.index);
      if (t >= 0) w.sched.scheduleAt(t, w.kinds.notifyIdsChanged, addr);
    }
  }

  /** GET_CONSUMER_LIST_BY_GROUP arrives: the answer is written into the asking rebalance, then sent. */
  onConsumerListRequest(consumer: number, serial: number): void {
    const w = this.world;
    const c = w.incarnation(consumer);
    if (serial !== c.rebalance.consumerListSerial) return; // the client gave up on it already
    if (this.down) {
      c.rebalance.consumerListLost();
      return;
    }
    const list = this.consumerIdList(c.group);
    c.rebalance.setConsumerList(list);
    const t = w.net.downAt(w.sched.nowUs, c.index, this.index);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.consumerListResponse, consumer, serial, list === null ? 0 : 1);
    else c.rebalance.consumerListLost();
  }

  /** GET_CONSUMER_LIST_BY_GROUP: the client ids of every channel (a shared id appears twice). */
  consumerIdList(group: number): string[] | null {
    if (this.down) return null;
    const chans = this.channels.get(group);
    if (!chans || chans.size === 0) return null;
    return [...chans.entries()].sort((a, b) => a[0] - b[0]).map(([, ch]) => ch.clientId);
  }

  // ---------------------------------------------------------------- crash and restart

  /** Whether the broker process is down. */
  down = false;
  /** offsetIllegal faults waiting for the next pull of (group, queue). */
  readonly pendingOffsetMoved = new Map<number, number | "min" | "max">();

  /** Offsets committed since the last flush (lost if the broker crashes now). */
  unflushedOffsetCount(): number {
    let n = 0;
    for (const [k, v] of this.offsets) if (this.flushedOffsets.get(k) !== v) n++;
    return n;
  }
  /** Consumer offsets as last flushed to disk (every flushConsumerOffsetInterval). */
  private flushedOffsets = new Map<number, number>();

  onOffsetFlush(): void {
    if (!this.down) this.flushedOffsets = new Map(this.offsets);
    this.world.sched.scheduleIn(this.model.config.flushConsumerOffsetInterval * 1000, this.world.kinds.offsetFlush, this.index);
  }

  /** The broker process dies: held and in-flight requests are never answered (clients time out). */
  crash(): void {
    const w = this.world;
    this.down = true;
    w.net.setBrokerDown(this.index, true);
    for (const mq of this.queues) {
      const held = w.takeHeld(mq);
      if (held === null) continue;
      for (const pr of held) {
        if (pr.heldSerial === pr.reqSerial) w.pullUnanswered(pr);
      }
      held.length = 0;
      w.recycleHeld(held);
    }
  }

  /** Restart: offsets come back as last flushed; the registry is empty until clients heartbeat again. */
  restart(): void {
    this.down = false;
    this.world.net.setBrokerDown(this.index, false);
    this.offsets.clear();
    for (const [k, v] of this.flushedOffsets) this.offsets.set(k, v);
    this.channels.clear();
    this.subVersions.clear();
  }

  // ---------------------------------------------------------------- send-back and retries (§9.2)

  /** CONSUMER_SEND_MSG_BACK from a consume worker. */
  onSendBack(consumer: number, worker: number): void {
    const w = this.world;
    const c = w.incarnation(consumer);
    if (this.down) {
      c.consumeService.sendBackLost(worker);
      return;
    }
    const job = c.consumeService.sendBackJob(worker);
    const ok = this.sendBackOk;
    if (ok) this.acceptSendBack(c.group, this.readAttributes(job.mq, job.offset), job.delayLevel, c.maxReconsumeTimes);
    const t = w.net.downAt(w.sched.nowUs, c.index, this.index);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.sendBackResponse, consumer, worker, ok ? 1 : 0);
    else c.consumeService.sendBackLost(worker); // accepted, but the client only sees its RPC time out
  }

  /** cleanExpiredMsg's sendMessageBack(msg, 3): handled like a send-back; nobody waits for the answer.
   * The message was already removed from the ProcessQueue, so its attributes travel with the request. */
  onCleanSendBack(ticket: number, consumer: number): void {
    const c = this.world.incarnation(consumer);
    const job = c.takeCleanJob(ticket);
    if (this.down) return;
    this.acceptSendBack(c.group, job, job.delayLevel, c.maxReconsumeTimes);
  }

  private readonly attrs: MessageAttributes = { mq: 0, offset: 0, reconsumeTimes: 0, originKey: 0, originBornUs: 0, bodyBytes: 0, tag: 0 };

  /** Reads what send-back needs of a stored message (CONSUMER_SEND_MSG_BACK looks it up by offset). */
  private readAttributes(mq: number, offset: number): MessageAttributes {
    const store = this.world.queues[mq]!;
    const a = this.attrs;
    a.mq = mq;
    a.offset = offset;
    a.reconsumeTimes = store.reconsumeTimes(offset);
    a.originKey = store.originKey(offset);
    a.originBornUs = store.originBornUs(offset);
    a.bodyBytes = store.bodyBytes(offset);
    a.tag = store.tag(offset);
    return a;
  }

  private acceptSendBack(group: number, m: MessageAttributes, delayLevel: number, maxReconsumeTimes: number): void {
    const w = this.world;
    if (this.model.config.retryQueueNums <= 0) {
      // SUCCESS without doing anything: the message is gone for good.
      w.fates.markDropped(group, m.originKey);
      return;
    }
    const rt = m.reconsumeTimes;
    const originKey = m.originKey;
    const now = w.sched.nowUs;
    w.metrics.sentBack++;
    if (rt >= maxReconsumeTimes || delayLevel < 0) {
      const dlq = w.queues[w.dlqQueue(group, this.index)]!;
      this.commitLogTail += this.storedSize(m.bodyBytes, dlq.topic);
      dlq.append(now, this.commitLogTail, m.bodyBytes, m.tag, originKey, m.originBornUs, rt);
      w.fates.markDlq(group, originKey);
      w.trace.emit(w.T.dlq, now, m.mq, m.offset, rt, group);
      return;
    }
    let level = delayLevel === 0 ? 3 + rt : delayLevel;
    if (level > this.scheduleService.maxLevel) level = this.scheduleService.maxLevel; // HookUtils clamps to the highest level
    w.fates.markRetrying(group, originKey);
    w.trace.emit(w.T.sendBack, now, m.mq, m.offset, rt, level);
    this.scheduleService.park(level, {
      group, originKey, originBornUs: m.originBornUs, bodyBytes: m.bodyBytes, tag: m.tag, reconsumeTimes: rt + 1,
    });
  }
}

function tagMatches(tagSet: Set<number> | null, tag: number): boolean {
  return tagSet === null || tagSet.has(tag);
}

export { GetMessageStatus };

// Send-back and retries (§9.2, broker spec §8.1): CONSUMER_SEND_MSG_BACK and a client's SEND_MESSAGE to
// %RETRY%<group> park a message in its delay level or dead-letter it; a due one enters %RETRY%<group>.
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { Envelope, SimpleResponse, type ConsumerSendMsgBackRequest, type SendRetryMessageRequest } from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import type { BrokerConfig } from "../scenario/defaults.ts";
import type { Profile } from "../scenario/types.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import type { MessageSource, MessageStore } from "./MessageStore.ts";
import type { PullMessageProcessor } from "./PullMessageProcessor.ts";
import type { RebalanceLockManager } from "./RebalanceLockManager.ts";
import type { ScheduledRetry, ScheduleMessageService } from "./ScheduleMessageService.ts";
import type { BrokerTrace } from "./trace.ts";

export interface SendBackHost {
  readonly isSlave: boolean;
  readonly writable: boolean;
}

export class SendBackProcessor {
  private readonly trace: Trace;
  scheduleService!: ScheduleMessageService;
  /**
   * The sendBackFailure fault: this broker cannot store retries — with this probability a
   * CONSUMER_SEND_MSG_BACK, or a client's retry send to %RETRY% (its fallback), is answered SYSTEM_ERROR
   * without storing anything ("error": a failed put, the retry topic not writable), or never answered
   * ("timeout": the client's RPC time-out); null: normal.
   */
  failure: { probability: number; mode: "error" | "timeout"; rng: () => number } | null = null;
  /** Send-backs the fault failed. */
  failed = 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly T: BrokerTrace,
    private readonly host: SendBackHost,
    /** The broker group. */
    private readonly broker: number,
    private readonly config: BrokerConfig,
    private readonly routes: Routes,
    private readonly profile: Profile,
    private readonly store: MessageStore,
    private readonly source: MessageSource,
    private readonly observer: BrokerObserver,
    private readonly locks: RebalanceLockManager,
    private readonly processor: PullMessageProcessor,
  ) {
    this.trace = ctx.trace;
  }

  /** CONSUMER_SEND_MSG_BACK as it arrives: refused on a slave, failed by the fault, else processed (SUCCESS). */
  onSendBack(req: ConsumerSendMsgBackRequest): void {
    const answer = req.envelope === Envelope.DELIVERED;
    if (this.host.isSlave) {
      // A slave stores nothing: 4.x's put fails SERVICE_NOT_AVAILABLE (a SYSTEM_ERROR answer), 5.x
      // rejects the request SYSTEM_BUSY (broker spec §4.1).
      if (answer) this.ctx.reply(req, new SimpleResponse(this.profile === "5.x" ? ResponseCode.SYSTEM_BUSY : ResponseCode.SYSTEM_ERROR));
      return;
    }
    // consumerSendMsgBack's checks before the put (broker spec §8.1): a broker whose brokerPermission
    // is not writable answers NO_PERMISSION and stores nothing.
    if (!this.host.writable) {
      if (answer) this.ctx.reply(req, new SimpleResponse(ResponseCode.NO_PERMISSION));
      return;
    }
    if (this.failedByFault(req)) return;
    // A full disk fails the put (SERVICE_NOT_AVAILABLE → SYSTEM_ERROR, §8.1); retryQueueNums ≤ 0 answers
    // SUCCESS before any put is tried.
    if (this.store.diskFull && this.processor.checks.groups.getRetryQueueNums(req.consumerGroup) > 0) {
      if (answer) this.ctx.reply(req, new SimpleResponse(ResponseCode.SYSTEM_ERROR));
      return;
    }
    this.consumerSendMsgBack(req);
    if (answer) this.ctx.reply(req, new SimpleResponse(ResponseCode.SUCCESS));
  }

  /** A client's SEND_MESSAGE to %RETRY%<group>: failed by the fault, or handleRetryAndDLQ's answer. */
  onRetrySend(req: SendRetryMessageRequest): void {
    if (this.failedByFault(req)) return;
    this.ctx.reply(req, new SimpleResponse(this.sendRetryMessage(req)));
  }

  /** The sendBackFailure fault takes the request: answered SYSTEM_ERROR or dropped (left to time out). */
  private failedByFault(req: ConsumerSendMsgBackRequest): boolean {
    const f = this.failure;
    if (f === null || (f.probability < 1 && f.rng() >= f.probability)) return false;
    this.failed++;
    if (req.envelope !== Envelope.DELIVERED) return true;
    if (f.mode === "timeout") this.ctx.drop(req);
    else this.ctx.reply(req, new SimpleResponse(ResponseCode.SYSTEM_ERROR));
    return true;
  }

  private consumerSendMsgBack(req: ConsumerSendMsgBackRequest): void {
    const group = req.consumerGroup;
    // The group's SubscriptionGroupConfig#retryQueueNums (default: the broker's retryQueueNums).
    if (this.processor.checks.groups.getRetryQueueNums(group) <= 0) {
      this.observer.discarded(group, req.originKey); // SUCCESS without doing anything: the message is gone
      return;
    }
    const rt = req.reconsumeTimes;
    const now = this.ctx.nowUs;
    this.observer.sentBack(group, req.originKey);
    if (rt >= req.maxReconsumeTimes || req.delayLevel < 0) {
      this.source.advanceTo(now);
      this.store.append(this.routes.dlqQueue(group, this.broker), now, req.bodyBytes, req.tag, req.originKey, req.originBornUs, rt);
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
    if (this.host.isSlave) return this.profile === "5.x" ? ResponseCode.SYSTEM_BUSY : ResponseCode.SYSTEM_ERROR;
    if (!this.host.writable) return ResponseCode.NO_PERMISSION;
    if (this.store.diskFull) return ResponseCode.SYSTEM_ERROR; // SERVICE_NOT_AVAILABLE put status
    const group = req.consumerGroup;
    const now = this.ctx.nowUs;
    const rt = req.reconsumeTimes;
    const fivex = this.profile === "5.x";
    const toDlq = fivex ? rt > req.maxReconsumeTimes || !this.locks.isLockAllExpired(group, now) : rt >= req.maxReconsumeTimes;
    this.observer.sentBack(group, req.originKey);
    if (toDlq) {
      this.source.advanceTo(now);
      this.store.append(this.routes.dlqQueue(group, this.broker), now, req.bodyBytes, req.tag, req.originKey, req.originBornUs, rt);
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

  /** A due retry enters %RETRY%<group> on this broker and wakes pulls held there (`replay`: delivered before, §6.4). */
  deliverRetry(e: ScheduledRetry, replay: boolean): void {
    const now = this.ctx.nowUs;
    this.source.advanceTo(now);
    const mq = this.routes.retryQueue(e.group, this.broker);
    const offset = this.store.append(mq, now, e.bodyBytes, e.tag, e.originKey, e.originBornUs, e.reconsumeTimes);
    this.trace.emit(this.T.retryDelivered, now, mq, offset, e.reconsumeTimes, e.group);
    if (replay) this.observer.retryReplayed?.(mq, offset, e.group, e.originKey);
    // The reput thread dispatches it — and notifies the pulls held there — at its next pass (reput.ts).
    if (this.config.longPollingEnable && this.processor.hold.markArrived(mq)) this.source.arrivedUndispatched(mq);
  }
}

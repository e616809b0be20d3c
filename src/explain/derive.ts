// From captured trace records to raw intervals per (group, queue): one pass in time order, each record
// moving a small state machine per queue — runs of flow-control deferrals, pull failures, pauses, the
// owner set, OFFSET_ILLEGAL recoveries, pull expiry. Reads the records and the scenario (the input), and
// at the end the capture's aggregate (enrich.ts: pool saturation, failed send-backs, delaying holds).
import { DROP_REASON, FLOW_KIND, LATER_REASON } from "../client/trace.ts";
import { clientSlot } from "../protocol/address.ts";
import { ResponseCode } from "../protocol/codes.ts";
import type { Routes } from "../protocol/routes.ts";
import type { FaultModel } from "../scenario/faultTypes.ts";
import type { Model } from "../scenario/types.ts";
import type { TraceRecord } from "../sim/Trace.ts";
import type { CaptureAggregate } from "./aggregate.ts";
import { enrich, type EnrichHost } from "./enrich.ts";
import { FaultLog } from "./faultLog.ts";
import { FAIL_GAP_US, failCause, FAULT_LOOKBACK_US, faultTouches, FLOW_DELAY_US, FLOW_GAP_US, INTERVAL_MIN_US, PULL_TIMEOUT_US, queueKey, sharedClientId, type PullLog, type RawInterval } from "./intervals.ts";
import { QueueState, type Run } from "./queueState.ts";
import { REASON, type ReasonCode } from "./types.ts";

export interface Derived {
  intervals: RawInterval[];
  pulls: Map<string, PullLog>;
  /** Every (group, queue) examined, as keys. */
  keys: string[];
}


/**
 * Derives the raw intervals of the queues `mqs` from the records, for a run that lasted `durationUs`;
 * with the capture's `aggregate` (explainCapture), also the reasons it measured (pool, send-backs, holds).
 */
export function derive(records: readonly TraceRecord[], model: Model, routes: Routes, mqs: readonly number[], durationUs: number, aggregate?: CaptureAggregate): Derived {
  return new Deriver(model, routes, mqs, durationUs, aggregate).run(records);
}

/**
 * The derivation as a stream: `feed` each record in time order (a capture filter can feed it as the run
 * goes, holding no records), then `result` once. `derive` is the same over a captured array.
 */
export class Deriver implements EnrichHost {
  private readonly states = new Map<string, QueueState>();
  private readonly out: RawInterval[] = [];
  private readonly slotGroup: number[] = [];
  private readonly slotClient: string[] = [];
  /** The latest pullThresholdForQueue / SizeForQueue per slot (thresholdChanged: per-topic thresholds). */
  private readonly thresholds = new Map<number, { count: number; sizeMiB: number }>();
  /** Every fault applied so far (its `fault` records): index, start and end (Infinity while it lasts). */
  private readonly faultLog: FaultLog;
  /** Slots crashed or stopped by a fault, with the fault's label and mode. */
  private readonly dead = new Map<number, { sinceUs: number; label: string; mode: string }>();

  constructor(
    readonly model: Model,
    private readonly routes: Routes,
    mqs: readonly number[],
    public durationUs: number,
    /** The capture's aggregate (explainCapture), read at `result`; fed by the filter as the run goes. */
    private readonly aggregate?: CaptureAggregate,
  ) {
    this.faultLog = new FaultLog(model.faults);
    for (const g of model.groups) {
      for (let i = 0; i < g.instancesMax; i++) {
        this.slotGroup.push(g.index);
        this.slotClient.push(g.clientIds[i]!);
      }
      const topics = new Set(g.subscriptions.map((s) => s.topic));
      // The group's own %RETRY% queues too (every instance subscribes to them, spec §9.2).
      const ofGroup = (mq: number) => topics.has(routes.queues[mq]!.topicIndex) || routes.topics[routes.queues[mq]!.topicIndex]!.retryOf === g.index;
      for (const mq of mqs) if (ofGroup(mq)) this.states.set(queueKey(g.index, mq), new QueueState(g.index, mq));
    }
  }

  run(records: readonly TraceRecord[]): Derived {
    for (const r of records) this.onRecord(r);
    return this.result();
  }

  /** One record, in time order. */
  feed(r: TraceRecord): void {
    this.onRecord(r);
  }

  /** Closes what is still open at the run's end (`durationUs` if given: a run stopped early) and returns the intervals. */
  result(durationUs?: number): Derived {
    if (durationUs !== undefined) this.durationUs = durationUs;
    for (const s of this.states.values()) this.finish(s);
    if (this.aggregate !== undefined) enrich(this, this.aggregate, this.out);
    const pulls = new Map<string, PullLog>();
    for (const [k, s] of this.states) pulls.set(k, s.pulls);
    return { intervals: this.out, pulls, keys: [...this.states.keys()] };
  }

  private stateOf(r: TraceRecord): QueueState | undefined {
    const group = this.slotGroup[r.consumer as number];
    return group === undefined ? undefined : this.states.get(queueKey(group, r.mq as number));
  }

  private onRecord(r: TraceRecord): void {
    const t = r.tUs;
    switch (r.type) {
      case "fault":
        return this.onFault(t, r.index as number, r.phase as number);
      case "thresholdChanged":
        this.thresholds.set(r.consumer as number, { count: r.pullThresholdForQueue as number, sizeMiB: r.pullThresholdSizeForQueue as number });
        return;
      case "channelExpired":
        return this.onChannelExpired(t, clientSlot(r.consumer as number), this.model.brokers[r.broker as number]?.name ?? `broker ${r.broker}`);
    }
    const s = this.stateOf(r);
    if (s === undefined) return;
    const slot = r.consumer as number;
    switch (r.type) {
      case "pqCreated":
        return this.onOwnerAdded(s, t, slot, r.nextOffset as number);
      case "pqDropped":
        return this.onOwnerRemoved(s, t, slot, r.reason as number);
      case "flowControl":
        return this.onFlowControl(s, t, slot, r.kind as number, r.value as number);
      case "pullResult":
        return this.onPullResult(s, t, slot, r.code as number, r.nextBeginOffset as number);
      case "pullLater":
        return this.onPullLater(s, t, slot, r.reason as number, r.delayMs as number);
      case "offsetUpdate":
        return this.onOffsetUpdate(s, t, slot, r.offset as number);
    }
  }

  // ------------------------------------------------------------------------------ owners

  private onFault(t: number, index: number, phase: number): void {
    this.faultLog.onFault(t, index, phase);
    const f = this.model.faults[index];
    if (f === undefined || phase !== 0 || (f.kind !== "consumerCrash" && f.kind !== "consumerStop")) return;
    const mode = f.kind === "consumerCrash" ? f.mode : "stopped";
    for (const slot of f.consumers) {
      this.dead.set(slot, { sinceUs: t, label: f.label, mode });
      for (const s of this.states.values()) {
        if (s.owners.has(slot)) this.removeOwner(s, t, slot, { cause: `${mode === "stopped" ? "stopped" : "crashed"} (${mode})`, fault: f.label });
      }
    }
  }

  private onChannelExpired(t: number, slot: number, broker: string): void {
    if (!this.dead.has(slot)) return;
    for (const s of this.states.values()) {
      const run = s.ownerless;
      if (run !== null && run.figures.lostOwner === this.slotClient[slot] && run.figures.channelExpiredUs === undefined) {
        run.figures.channelExpiredUs = t;
        run.figures.channelExpiredAt = broker;
      }
    }
  }

  private onOwnerAdded(s: QueueState, t: number, slot: number, nextOffset: number): void {
    this.dead.delete(slot);
    if (!s.owners.has(slot)) s.ownedBy.push({ slot, fromUs: t, toUs: Infinity });
    s.owners.set(slot, t);
    s.nextOffset.set(slot, nextOffset);
    s.everOwned = true;
    // The queue is back (recreated by a rebalance): every OFFSET_ILLEGAL recovery on it ends here.
    for (const run of s.illegal.values()) this.close(s, REASON.offsetIllegal, { ...run, endUs: t, figures: { ...run.figures, recreatedUs: t } }, false);
    s.illegal.clear();
    for (const run of s.expired.values()) this.close(s, REASON.pullExpired, { ...run, endUs: t, figures: { ...run.figures, recreatedUs: t } }, false);
    s.expired.clear();
    const run = s.ownerless;
    if (run === null) return;
    s.ownerless = null;
    this.close(s, REASON.noOwner, { ...run, endUs: t, figures: { ...run.figures, newOwner: this.slotClient[slot] ?? String(slot) } }, false);
  }

  private onOwnerRemoved(s: QueueState, t: number, slot: number, reason: number): void {
    if (!s.owners.has(slot)) return;
    if (reason === DROP_REASON.pullExpired) {
      // Dropped for no pull in PULL_MAX_IDLE_TIME: idle since its last answer, until a rebalance recreates it.
      const idleSince = s.lastResultUs.get(slot) ?? s.owners.get(slot)!;
      s.expired.set(slot, { startUs: idleSince, lastUs: t, endUs: t, figures: { consumer: this.clientOf(slot), droppedUs: t, idleSinceUs: idleSince } });
    }
    const cause = reason === DROP_REASON.pullExpired ? "pullExpired" : reason === DROP_REASON.offsetIllegal ? "offsetIllegal" : reason === DROP_REASON.resetOffset ? "resetOffset" : "moved away by a rebalance";
    this.removeOwner(s, t, slot, { cause });
  }

  private removeOwner(s: QueueState, t: number, slot: number, figures: Record<string, string>): void {
    s.owners.delete(slot);
    for (const o of s.ownedBy) if (o.slot === slot && o.toUs === Infinity) o.toUs = t;
    if (s.owners.size > 0 || s.ownerless !== null) return;
    // OFFSET_ILLEGAL and pull-expiry drops are explained by their own intervals, not as a missing owner; a
    // reset's drop is followed by its own rebalance at once.
    if (figures.cause === "offsetIllegal" || figures.cause === "pullExpired" || figures.cause === "resetOffset") return;
    s.ownerless = { startUs: t, lastUs: t, endUs: t, figures: { ...figures, lostOwner: this.slotClient[slot] ?? String(slot) } };
  }

  // ------------------------------------------------------------------------------ pulls

  private onFlowControl(s: QueueState, t: number, slot: number, kind: number, value: number): void {
    const key = `${slot}:${kind}`;
    let run = s.flow.get(key);
    if (run !== undefined && t - run.lastUs > FLOW_GAP_US) {
      this.closeFlow(s, key, run, false);
      run = undefined;
    }
    if (run === undefined) {
      const committed = s.committed.get(slot);
      run = { startUs: t, lastUs: t, endUs: t, figures: { kind, consumer: this.slotClient[slot] ?? String(slot), slot, deferrals: 0, valueMin: value, valueMax: value } };
      if (committed !== undefined) Object.assign(run.figures, { committedAtStart: committed.offset, committedSinceUs: committed.sinceUs });
      s.flow.set(key, run);
    }
    run.lastUs = t;
    run.endUs = t + FLOW_DELAY_US;
    const committed = s.committed.get(slot);
    if (committed !== undefined) run.figures.committedAtEnd = committed.offset;
    run.figures.deferrals = (run.figures.deferrals as number) + 1;
    run.figures.valueMin = Math.min(run.figures.valueMin as number, value);
    run.figures.valueMax = Math.max(run.figures.valueMax as number, value);
  }

  private closeFlow(s: QueueState, key: string, run: Run, ongoing: boolean): void {
    s.flow.delete(key);
    const slot = run.figures.slot as number;
    const kind = run.figures.kind as number;
    const cfg = this.model.groups[s.group]!.config;
    const th = this.thresholds.get(slot);
    const reason = kind === FLOW_KIND.count ? REASON.flowControlCount : kind === FLOW_KIND.size ? REASON.flowControlSize : REASON.flowControlSpan;
    const figures = { ...run.figures };
    if (kind === FLOW_KIND.count) figures.threshold = th?.count ?? cfg.pullThresholdForQueue;
    if (kind === FLOW_KIND.size) figures.threshold = th?.sizeMiB ?? cfg.pullThresholdSizeForQueue;
    if (kind === FLOW_KIND.span) figures.threshold = cfg.consumeConcurrentlyMaxSpan;
    const perTopic = kind === FLOW_KIND.count ? cfg.pullThresholdForTopic : kind === FLOW_KIND.size ? cfg.pullThresholdSizeForTopic : -1;
    if (th !== undefined && perTopic > 0) figures.perTopic = perTopic;
    if (figures.committedAtStart !== undefined) figures.committedPinned = figures.committedAtEnd === figures.committedAtStart ? 1 : 0;
    // What the scenario did to the listener: a hang on this queue before the pin, or a slower downstream.
    const q = this.routes.queues[s.mq]!;
    const since = (figures.committedSinceUs as number | undefined) ?? run.startUs;
    const f = kind === FLOW_KIND.span
      ? this.faultWhere((x, e) => x.kind === "hangMessage" && x.queue.topic === q.topicIndex && x.queue.broker === q.brokerIndex && x.queue.queueId === q.queueId && e.startUs <= since)
      : this.faultWhere((x, e) => x.kind === "consumeTime" && x.group === s.group && e.startUs <= run.endUs && e.endUs >= run.startUs);
    if (f !== undefined) figures.fault = f;
    this.close(s, reason, { ...run, figures }, ongoing);
  }

  private onPullResult(s: QueueState, t: number, slot: number, code: number, nextBegin: number): void {
    s.lastResultUs.set(slot, t);
    const requested = s.nextOffset.get(slot) ?? -1;
    if (nextBegin >= 0) s.nextOffset.set(slot, nextBegin);
    if (code === ResponseCode.SUCCESS) {
      if (requested >= 0 && nextBegin > requested) {
        s.pulls.tUs.push(t);
        s.pulls.msgs.push(nextBegin - requested);
      }
      return;
    }
    if (code === ResponseCode.PULL_OFFSET_MOVED) {
      const figures: Record<string, number | string> = { consumer: this.slotClient[slot] ?? String(slot), requestedOffset: requested, nextBeginOffset: nextBegin, skipped: requested >= 0 ? Math.max(0, nextBegin - requested) : 0 };
      const q = this.routes.queues[s.mq]!;
      const f = this.faultWhere((x, e) => (x.kind === "offsetIllegal" || x.kind === "truncate") && x.queue.topic === q.topicIndex && x.queue.broker === q.brokerIndex && x.queue.queueId === q.queueId && e.startUs <= t);
      if (f !== undefined) figures.fault = f;
      s.illegal.set(slot, { startUs: t, lastUs: t, endUs: t, figures });
      return;
    }
    if (code === ResponseCode.PULL_NOT_FOUND || code === ResponseCode.PULL_RETRY_IMMEDIATELY) return;
    // A time-out (-1) began when its request was sent, PULL_TIMEOUT_US earlier; an error answer, when it came.
    const startUs = code === -1 ? Math.max(0, t - PULL_TIMEOUT_US) : t;
    const run = this.failRun(s, slot, startUs);
    run.lastUs = t;
    run.endUs = Math.max(run.endUs, t);
    if (code === -1) run.figures.timeouts = (run.figures.timeouts as number) + 1;
    else {
      run.figures.errors = (run.figures.errors as number) + 1;
      run.figures.lastErrorCode = code;
    }
  }

  private failRun(s: QueueState, slot: number, startUs: number): Run {
    let run = s.fail.get(slot);
    if (run !== undefined && startUs - run.endUs > FAIL_GAP_US) {
      s.fail.delete(slot);
      this.closeFail(s, run, false);
      run = undefined;
    }
    if (run === undefined) {
      run = { startUs, lastUs: startUs, endUs: startUs, figures: { consumer: this.slotClient[slot] ?? String(slot), timeouts: 0, errors: 0, refused: 0 } };
      s.fail.set(slot, run);
    }
    return run;
  }

  private closeFail(s: QueueState, run: Run, ongoing: boolean): void {
    const broker = this.routes.queues[s.mq]!.brokerIndex;
    const figures: Record<string, number | string> = { ...run.figures, broker: this.model.brokers[broker]!.name };
    // The fault that began within a pull time-out before the interval (or inside it), if one touches the broker.
    const f = this.faultWhere((x, e) => faultTouches(x, broker) && e.startUs <= run.endUs && e.startUs >= run.startUs - FAULT_LOOKBACK_US);
    if (f !== undefined) figures.fault = f;
    const kind = f === undefined ? undefined : this.model.faults.find((x) => x.label === f)?.kind;
    // A SQL92 subscription on a broker without enablePropertyFilter: every pull answered SYSTEM_ERROR.
    const sub = this.model.groups[s.group]?.subscriptions.find((x) => x.topic === this.routes.queues[s.mq]!.topicIndex);
    if (sub?.sql !== undefined && !this.model.brokers[broker]!.config.enablePropertyFilter) figures.sqlRefused = 1;
    figures.cause = failCause(kind, figures);
    delete figures.sqlRefused;
    // A pull sent before the fault (held at the broker on an idle queue) only failed from the fault on.
    const faultStartUs = f === undefined ? -1 : this.faultLog.startOf(f);
    const startUs = faultStartUs > run.startUs && faultStartUs <= run.endUs ? faultStartUs : run.startUs;
    this.close(s, REASON.pullFailures, { ...run, startUs, figures }, ongoing);
  }

  private onPullLater(s: QueueState, t: number, slot: number, reason: number, delayMs: number): void {
    if (reason === LATER_REASON.exception || reason === LATER_REASON.brokerFlowControl) {
      const run = this.failRun(s, slot, t);
      // A pullLater with no pullResult at the same instant: the connection was refused (§2 step 11).
      if (s.lastResultUs.get(slot) !== t) run.figures.refused = (run.figures.refused as number) + 1;
      run.lastUs = t;
      run.endUs = Math.max(run.endUs, t + delayMs * 1000);
      return;
    }
    const key = `${slot}:${reason}`;
    let run = s.later.get(key);
    if (run !== undefined && t - run.endUs > FAIL_GAP_US) {
      this.closeLater(s, key, run, false);
      run = undefined;
    }
    if (run === undefined) {
      run = { startUs: t, lastUs: t, endUs: t, figures: { consumer: this.slotClient[slot] ?? String(slot), slot, laterReason: reason, retries: 0, delayMs } };
      s.later.set(key, run);
    }
    run.lastUs = t;
    run.endUs = t + delayMs * 1000;
    run.figures.retries = (run.figures.retries as number) + 1;
  }

  private closeLater(s: QueueState, key: string, run: Run, ongoing: boolean): void {
    s.later.delete(key);
    this.close(s, run.figures.laterReason === LATER_REASON.paused ? REASON.paused : REASON.notLocked, run, ongoing);
  }

  private onOffsetUpdate(s: QueueState, t: number, slot: number, offset: number): void {
    const c = s.committed.get(slot);
    if (c === undefined || c.offset !== offset) s.committed.set(slot, { offset, sinceUs: t });
    const illegal = s.illegal.get(slot);
    if (illegal !== undefined && offset === illegal.figures.nextBeginOffset && illegal.figures.fixedUs === undefined) illegal.figures.fixedUs = t;
  }

  // ------------------------------------------------------------------------------ output

  private finish(s: QueueState): void {
    const end = this.durationUs;
    const ongoing = (run: Run): boolean => end - run.lastUs <= FAIL_GAP_US;
    for (const [key, run] of [...s.flow]) this.closeFlow(s, key, run, end - run.lastUs <= FLOW_GAP_US);
    for (const run of s.fail.values()) this.closeFail(s, run, ongoing(run));
    s.fail.clear();
    for (const [key, run] of [...s.later]) this.closeLater(s, key, run, ongoing(run));
    for (const run of s.illegal.values()) this.close(s, REASON.offsetIllegal, { ...run, endUs: end }, true);
    s.illegal.clear();
    for (const run of s.expired.values()) this.close(s, REASON.pullExpired, { ...run, endUs: end }, true);
    s.expired.clear();
    const shared = sharedClientId(this.model.groups[s.group]!, this.faultLog.applied(), (slot) => this.clientOf(slot));
    if (s.ownerless !== null) this.close(s, REASON.noOwner, { ...s.ownerless, endUs: end, figures: shared === undefined ? s.ownerless.figures : { ...s.ownerless.figures, sharedClientId: shared } }, true);
    else if (!s.everOwned) {
      const start = this.model.groups[s.group]!.startAtUs;
      const figures: Record<string, string> = { cause: "never assigned" };
      if (shared !== undefined) figures.sharedClientId = shared;
      this.close(s, REASON.noOwner, { startUs: start, lastUs: start, endUs: end, figures }, true);
    }
  }

  // ------------------------------------------------------------------------------ EnrichHost

  brokerOf(mq: number): number {
    return this.routes.queues[mq]!.brokerIndex;
  }

  groupOf(slot: number): number | undefined {
    return this.slotGroup[slot];
  }

  clientOf(slot: number): string {
    return this.slotClient[slot] ?? String(slot);
  }

  owned(): Iterable<QueueState> {
    return this.states.values();
  }

  push(group: number, mq: number, reason: ReasonCode, startUs: number, endUs: number, ongoing: boolean, figures: Record<string, number | string>): void {
    const s = this.states.get(queueKey(group, mq));
    if (s !== undefined) this.close(s, reason, { startUs, lastUs: endUs, endUs, figures }, ongoing);
  }

  /** The label of the latest applied fault that passes `test`, if any. */
  faultWhere(test: (f: FaultModel, e: { startUs: number; endUs: number }) => boolean): string | undefined {
    return this.faultLog.where(test);
  }

  private close(s: QueueState, reason: ReasonCode, run: Run, ongoing: boolean): void {
    const endUs = ongoing ? this.durationUs : Math.min(run.endUs, this.durationUs);
    if (endUs - run.startUs < INTERVAL_MIN_US) return;
    this.out.push({ group: s.group, mq: s.mq, reason, startUs: run.startUs, endUs, ongoing, figures: run.figures });
  }
}

// ConsumeMessageOrderlyService, spec §6 and §8: consumeThreadMin workers over one FIFO of ConsumeRequests,
// each a (ProcessQueue, queue) pair rather than messages. A request drains its queue in offset order under
// the queue's monitor (MessageQueueLock: one per queue, so one worker consumes a queue at a time), at most
// MAX_TIME_CONSUME_CONTINUOUSLY per request; in CLUSTERING only while the queue's broker lock is held and
// fresh. A failing call suspends the queue: its messages go back to the cache and the queue is consumed
// again suspendCurrentQueueTimeMillis later — the head blocks everything behind it until it succeeds or,
// past maxReconsumeTimes, is sent to %RETRY% (the broker dead-letters it, §8.4).
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { SendRetryMessageRequest, type Command } from "../protocol/commands.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Profile } from "../scenario/types.ts";
import { CLIENT_CONSTANTS, type ConsumerConfig } from "../scenario/defaults.ts";
import type { ClientObserver, ClientStats } from "./ClientObserver.ts";
import type { ConsumeHost } from "./ConsumeMessageConcurrentlyService.ts";
import { MESSAGE_FAILS, MESSAGE_HANGS, type ConsumeListeners, type OrderlyResults } from "./ConsumeListeners.ts";
import type { ConsumeService } from "./ConsumeService.ts";
import type { MessageColumns, ProcessQueue } from "./ProcessQueue.ts";
import { ClientTimer } from "./timers.ts";
import { RETRY_SEND_TIMEOUT_US, retrySendTarget } from "./retrySend.ts";
import type { ClientTrace } from "./trace.ts";

/** What the orderly service needs of its instance besides what the concurrent one does. */
export interface OrderlyHost extends ConsumeHost {
  readonly clientId: string;
  readonly clustering: boolean;
  /** RebalanceImpl#lock(mq): one LOCK_BATCH_MQ; the answer comes back to onTryLockAnswer(ticket). */
  lockForReconsume(mq: number, ticket: number): void;
  /** Trace type of an orderly suspend (defined on first use). */
  suspendTraceType(): number;
}

/** A delayed step of a queue: submitConsumeRequestLater, or tryLockLaterAndReconsume's lock. */
interface Later {
  pq: ProcessQueue;
  mq: number;
}

export class ConsumeMessageOrderlyService implements ConsumeService {
  private readonly trace: Trace;
  readonly threads: number;
  private readonly batchMax: number;
  private readonly suspendMs: number;
  private readonly results: OrderlyResults;
  /** Request FIFO (one entry per submitted ConsumeRequest). */
  private readonly fifoPq: ProcessQueue[] = [];
  private readonly fifoMq: number[] = [];
  private readonly fifoUs: number[] = [];
  private fifoHead = 0;
  private readonly idle: number[] = [];
  // Worker state: the request it runs, when its loop began, its listener call, its retry sends.
  private readonly wPq: (ProcessQueue | null)[];
  private readonly wMq: Int32Array;
  private readonly wBeginUs: Float64Array;
  private readonly wCallStartUs: Float64Array;
  /** End of the listener call in progress: −1 none, Infinity hung. */
  private readonly wCallEndUs: Float64Array;
  private readonly wOk: Uint8Array;
  private readonly wSendIdx: Int32Array;
  private readonly wSuspend: Uint8Array;
  /** The call's messages: rows [wFirst, wFirst + wCount) of the consuming map (autoCommit off: earlier stay). */
  private readonly wFirst: Int32Array;
  private readonly wCount: Int32Array;
  /** MessageQueueLock: queue → worker holding its monitor; and workers blocked on it, in arrival order. */
  private readonly monitor = new Map<number, number>();
  private readonly blocked = new Map<number, number[]>();
  private readonly laters = new Map<number, Later>();
  private shut = false;
  private laterNext = 0;
  hungWorkers = 0;
  /** SUSPEND_CURRENT_QUEUE_A_MOMENT results. */
  suspends = 0;

  constructor(
    private readonly host: OrderlyHost,
    private readonly ctx: NodeContext,
    private readonly T: ClientTrace,
    config: ConsumerConfig,
    private readonly profile: Profile,
    private readonly routes: Routes,
    private readonly listeners: ConsumeListeners,
    private readonly stats: ClientStats,
    private readonly observer: ClientObserver,
  ) {
    this.trace = ctx.trace;
    this.threads = config.consumeThreadMin;
    this.batchMax = config.consumeMessageBatchMaxSize;
    this.suspendMs = config.suspendCurrentQueueTimeMillis;
    this.results = listeners.orderlyResultsOf(host.group);
    const n = this.threads;
    this.wPq = new Array(n).fill(null);
    this.wMq = new Int32Array(n);
    this.wBeginUs = new Float64Array(n);
    this.wCallStartUs = new Float64Array(n);
    this.wCallEndUs = new Float64Array(n).fill(-1);
    this.wOk = new Uint8Array(n);
    this.wSendIdx = new Int32Array(n);
    this.wSuspend = new Uint8Array(n);
    this.wFirst = new Int32Array(n);
    this.wCount = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) this.idle.push(i);
  }

  get queueLength(): number {
    return this.fifoPq.length - this.fifoHead;
  }
  get busyWorkers(): number {
    return this.threads - this.idle.length;
  }
  get drained(): boolean {
    return this.queueLength === 0 && this.idle.length === this.threads;
  }
  /** shutdown (§8.2 step 1, orderly: `stopped` first): later re-submissions and new requests are not run. */
  beginShutdown(): void {
    this.shut = true;
    this.laters.clear();
  }
  dropQueued(): void {
    this.fifoHead = this.fifoPq.length;
  }

  /** §8.2: only when putMessage says the queue was idle does a request start (the messages are not passed). */
  submitConsumeRequest(_msgs: MessageColumns | null, pq: ProcessQueue, mq: number, dispatchToConsume = true): void {
    if (!dispatchToConsume || this.shut) return;
    this.fifoPq.push(pq);
    this.fifoMq.push(mq);
    this.fifoUs.push(this.ctx.nowUs);
    this.drain();
  }

  private drain(): void {
    while (this.fifoHead < this.fifoPq.length && this.idle.length > 0) {
      const i = this.fifoHead++;
      const pq = this.fifoPq[i]!;
      const mq = this.fifoMq[i]!;
      this.stats.consumeWait.record(this.ctx.nowUs - this.fifoUs[i]!);
      if (this.fifoHead > 1024 && this.fifoHead * 2 > this.fifoPq.length) this.compact();
      this.run(this.idle.pop()!, pq, mq);
    }
  }

  private compact(): void {
    for (const a of [this.fifoPq, this.fifoMq, this.fifoUs] as unknown[][]) a.splice(0, this.fifoHead);
    this.fifoHead = 0;
  }

  /** ConsumeRequest#run (§8.3) on `worker`. */
  private run(worker: number, pq: ProcessQueue, mq: number): void {
    this.wPq[worker] = pq;
    this.wMq[worker] = mq;
    if (pq.dropped) return this.release(worker);
    const holder = this.monitor.get(mq);
    if (holder !== undefined) {
      // synchronized (objLock): the worker waits for the queue's monitor, thread and all.
      let q = this.blocked.get(mq);
      if (!q) this.blocked.set(mq, (q = []));
      q.push(worker);
      return;
    }
    this.monitor.set(mq, worker);
    this.enter(worker);
  }

  /** The monitor is ours: check the lock, then loop. */
  private enter(worker: number): void {
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const now = this.ctx.nowUs;
    if (this.host.clustering && (!pq.locked || pq.isLockExpired(now, CLIENT_CONSTANTS.REBALANCE_LOCK_MAX_LIVE_TIME))) {
      if (!pq.dropped) this.tryLockLaterAndReconsume(pq, mq, 100);
      return this.release(worker);
    }
    this.wBeginUs[worker] = now;
    this.step(worker);
  }

  /** One turn of the consume loop: the checks, then takeMessages and the listener. */
  private step(worker: number): void {
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const now = this.ctx.nowUs;
    if (pq.dropped) return this.release(worker);
    if (this.host.clustering && (!pq.locked || pq.isLockExpired(now, CLIENT_CONSTANTS.REBALANCE_LOCK_MAX_LIVE_TIME))) {
      this.tryLockLaterAndReconsume(pq, mq, 10);
      return this.release(worker);
    }
    if (now - this.wBeginUs[worker]! > CLIENT_CONSTANTS.MAX_TIME_CONSUME_CONTINUOUSLY * 1000) {
      this.submitConsumeRequestLater(pq, mq, 10);
      return this.release(worker);
    }
    const taken = pq.takeMessages(this.batchMax, now);
    if (taken.length === 0) return this.release(worker); // takeMessages set consuming = false
    const first = pq.consumingCount - taken.length;
    const end = pq.consumingCount;
    this.wFirst[worker] = first;
    this.wCount[worker] = taken.length;
    // The listener, under the ProcessQueue's consumeLock: time and outcome per (message, attempt), where
    // the attempt is the client's local reconsume count.
    const listeners = this.listeners;
    let durationUs = 0;
    let ok = 1;
    let hung = false;
    for (let i = first; i < end; i++) {
      const row = pq.takenRow(i);
      const key = row.originKey;
      // ROLLBACK counts no attempt in RocketMQ; the draw still has to change between calls.
      const attempt = row.reconsumeTimes + pq.rollbacks;
      durationUs += listeners.drawMessage(this.host.group, key, attempt);
      if ((listeners.outcome & MESSAGE_FAILS) !== 0) ok = 0;
      if ((listeners.outcome & MESSAGE_HANGS) !== 0) hung = true;
      this.trace.emit(this.T.consumeStart, now, mq, pq.takenOffset(i), this.host.index, worker);
    }
    this.wOk[worker] = ok;
    this.wCallStartUs[worker] = now;
    const hang = this.listeners.takeHang(mq);
    if (hang === -1) hung = true;
    else if (hang >= 0) durationUs = hang;
    if (hung) {
      this.hungWorkers++;
      this.wCallEndUs[worker] = Infinity;
      return;
    }
    this.wCallEndUs[worker] = now + durationUs;
    this.ctx.timerAt(now + durationUs, ClientTimer.CONSUME_DONE, worker);
  }

  /** The listener returned: processConsumeResult with autoCommit (§8.4). */
  onConsumeDone(worker: number): void {
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const now = this.ctx.nowUs;
    const r = this.results;
    // ROLLBACK with autoCommit is taken as SUCCESS (a warning, then commit and OK TPS; §8.4).
    const ok = this.wOk[worker] === 1 || (r.failureResult === "ROLLBACK" && r.autoCommit);
    this.wCallEndUs[worker] = -1;
    this.stats.consumeTime.record(now - this.wCallStartUs[worker]!);
    const first = this.wFirst[worker]!;
    const end = first + this.wCount[worker]!;
    for (let i = first; i < end; i++) {
      const o = pq.takenOffset(i);
      const row = pq.takenRow(i);
      if (ok) this.observer.consumed(this.host.group, mq, o, row.originKey, row.originBornUs, this.host.addr, now);
      this.trace.emit(this.T.consumeEnd, now, mq, o, this.host.index, ok ? 1 : 0);
    }
    if (ok) {
      // SUCCESS, COMMIT (or ROLLBACK as SUCCESS); with autoCommit off SUCCESS commits nothing: still taken.
      if (r.autoCommit || r.successResult === "COMMIT") return this.commitAndContinue(worker);
      return this.step(worker);
    }
    // Without autoCommit a ROLLBACK puts everything taken back.
    this.suspends++;
    this.observer.orderlySuspended(this.host.group, mq, pq.takenOffset(first), this.host.addr, now);
    this.trace.emit(this.host.suspendTraceType(), now, mq, pq.takenOffset(first), this.host.index, pq.takenRow(first).reconsumeTimes);
    if (r.failureResult === "ROLLBACK") {
      pq.rollback();
      pq.rollbacks++;
      this.submitConsumeRequestLater(pq, mq, -1);
      return this.release(worker);
    }
    // SUSPEND_CURRENT_QUEUE_A_MOMENT: checkReconsumeTimes, message by message.
    this.wSuspend[worker] = 0;
    this.wSendIdx[worker] = first - 1;
    this.nextReconsumeCheck(worker);
  }

  /** checkReconsumeTimes (§8.4): below the maximum, count one more; at it, send to %RETRY% (synchronously). */
  private nextReconsumeCheck(worker: number): void {
    const pq = this.wPq[worker]!;
    const max = this.host.maxReconsumeTimes;
    const end = this.wFirst[worker]! + this.wCount[worker]!;
    let i = this.wSendIdx[worker]! + 1;
    while (i < end && pq.takenRow(i).reconsumeTimes < max) {
      pq.takenRow(i).reconsumeTimes++;
      this.wSuspend[worker] = 1;
      i++;
    }
    this.wSendIdx[worker] = i;
    if (i >= end) return this.afterCheck(worker);
    const row = pq.takenRow(i);
    const mq = this.wMq[worker]!;
    // sendMessageBack: a new message to %RETRY%<group> with RECONSUME_TIME rt (4.9) or rt + 1 (5.x),
    // MAX_RECONSUME_TIMES, delay level 3 + rt, through the instance's internal producer. The model sends
    // it to the broker of the queue the message came from.
    const rt = row.reconsumeTimes;
    const req = new SendRetryMessageRequest(
      this.host.group, mq, pq.takenOffset(i), 3 + rt, max, row.originKey, row.originBornUs, row.bodyBytes, row.tag,
      this.profile === "5.x" ? rt + 1 : rt,
    );
    // The model's internal producer here makes one attempt: the first broker that takes a connection.
    const target = retrySendTarget(this.ctx, this.routes, this.host.route, this.host.group, mq);
    if (target === null) return this.onSendBackResponse(worker, null);
    this.ctx.request(target.node, req, RETRY_SEND_TIMEOUT_US, worker);
  }

  /** The retry send's answer (null: time-out): a failure keeps the queue suspended and counts one more. */
  onSendBackResponse(worker: number, response: Command | null): void {
    const ok = response !== null && response.code === ResponseCode.SUCCESS;
    if (!ok) {
      this.wSuspend[worker] = 1;
      this.wPq[worker]!.takenRow(this.wSendIdx[worker]!).reconsumeTimes++;
    }
    this.nextReconsumeCheck(worker);
  }

  private afterCheck(worker: number): void {
    if (this.wSuspend[worker] === 0) {
      // All went to %RETRY%: committed with autoCommit, else just moved past.
      return this.results.autoCommit ? this.commitAndContinue(worker) : this.step(worker);
    }
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const offsets: number[] = [];
    const first = this.wFirst[worker]!;
    for (let i = first; i < first + this.wCount[worker]!; i++) offsets.push(pq.takenOffset(i));
    pq.makeMessageToConsumeAgain(offsets);
    this.submitConsumeRequestLater(pq, mq, -1); // context.suspendCurrentQueueTimeMillis −1: the consumer's
    this.release(worker);
  }

  /** commitOffset = pq.commit(); updateOffset(mq, commitOffset, increaseOnly = false) unless dropped; loop on. */
  private commitAndContinue(worker: number): void {
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const offset = pq.commit();
    if (!pq.dropped) {
      this.host.updateOffset(mq, offset, false);
      this.observer.orderlyCommitted(this.host.group, mq, offset, this.host.addr, this.ctx.nowUs);
    }
    this.step(worker);
  }

  /** submitConsumeRequestLater (§8.3): −1 means suspendCurrentQueueTimeMillis; clamped to [10, 30 000] ms. */
  private submitConsumeRequestLater(pq: ProcessQueue, mq: number, ms: number): void {
    const t = Math.min(30_000, Math.max(10, ms === -1 ? this.suspendMs : ms));
    this.laters.set(this.laterNext, { pq, mq });
    this.ctx.timer(t * 1000, ClientTimer.LOCAL_RETRY, this.laterNext++);
  }

  onLocalRetry(ticket: number): void {
    const l = this.laters.get(ticket);
    if (!l) return;
    this.laters.delete(ticket);
    this.submitConsumeRequest(null, l.pq, l.mq, true);
  }

  /** tryLockLaterAndReconsume (§8.3): after `ms`, lock(mq); then consume again in 10 ms, or in 3 s if refused. */
  private tryLockLaterAndReconsume(pq: ProcessQueue, mq: number, ms: number): void {
    this.laters.set(this.laterNext, { pq, mq });
    this.ctx.timer(ms * 1000, ClientTimer.TRY_LOCK_LATER, this.laterNext++);
  }

  /** The queue a pending tryLockLaterAndReconsume is for, −1 if none. */
  laterQueue(ticket: number): number {
    return this.laters.get(ticket)?.mq ?? -1;
  }
  onTryLockDue(ticket: number): void {
    const l = this.laters.get(ticket);
    if (l) this.host.lockForReconsume(l.mq, ticket);
  }
  /** lock(mq)'s outcome for a tryLockLaterAndReconsume. */
  onTryLockAnswer(ticket: number, lockOK: boolean): void {
    const l = this.laters.get(ticket);
    if (!l) return;
    this.laters.delete(ticket);
    this.submitConsumeRequestLater(l.pq, l.mq, lockOK ? 10 : 3000);
  }

  /** The worker leaves the loop: the monitor passes to the next worker blocked on it, or is free. */
  private release(worker: number): void {
    const mq = this.wMq[worker]!;
    if (this.monitor.get(mq) === worker) {
      const q = this.blocked.get(mq);
      const next = q?.shift();
      if (q && q.length === 0) this.blocked.delete(mq);
      if (next === undefined) this.monitor.delete(mq);
      else {
        this.monitor.set(mq, next);
        this.enter(next);
      }
    }
    this.wPq[worker] = null;
    this.idle.push(worker);
    this.drain();
  }

  forEachInFlight(fn: (mq: number, offset: number, originKey: number) => void): void {
    for (let w = 0; w < this.threads; w++) {
      const pq = this.wPq[w];
      if (pq === null || pq === undefined || this.monitor.get(this.wMq[w]!) !== w) continue;
      const mq = this.wMq[w]!;
      pq.forEachTaken((o, key) => fn(mq, o, key));
    }
  }

  consumeLockBusyUntil(pq: ProcessQueue): number {
    for (let w = 0; w < this.threads; w++) if (this.wPq[w] === pq && this.wCallEndUs[w]! >= 0) return this.wCallEndUs[w]!;
    return -1;
  }
}

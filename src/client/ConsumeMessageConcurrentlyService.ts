// ConsumeMessageConcurrentlyService, spec §6 and §7: consumeThreadMin workers over one unbounded FIFO of
// ConsumeRequests (consumeThreadMax never matters: Java only adds threads past the core size when the
// queue is full, and this queue never is). Tasks are rows of typed arrays; workers are slots. A task is
// a chunk of at most consumeMessageBatchMaxSize messages of one ProcessQueue and carries its messages'
// columns (reused from a free list), as a ConsumeRequest carries its MessageExt objects.
import type { NodeContext } from "../net/Node.ts";
import type { Trace } from "../sim/Trace.ts";
import { ResponseCode } from "../protocol/codes.ts";
import { ConsumerSendMsgBackRequest, MessageBatch, SendRetryMessageRequest, type Command } from "../protocol/commands.ts";
import { RETRY_SEND_TIMEOUT_US, retrySendTarget } from "./retrySend.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Profile } from "../scenario/types.ts";
import { CLIENT_CONSTANTS, type ConsumerConfig } from "../scenario/defaults.ts";
import type { ClientObserver, ClientStats } from "./ClientObserver.ts";
import { MESSAGE_FAILS, MESSAGE_HANGS, type ConsumeListeners } from "./ConsumeListeners.ts";
import type { RouteView } from "./RouteView.ts";
import type { ConsumeService } from "./ConsumeService.ts";
import type { MessageColumns, ProcessQueue } from "./ProcessQueue.ts";
import { ClientTimer } from "./timers.ts";
import type { ClientTrace } from "./trace.ts";

const SEND_BACK_TIMEOUT_US = 5_000_000;

/** What the service needs of the instance it works for. */
export interface ConsumeHost {
  readonly group: number;
  /** Slot index (trace records name the instance by it). */
  readonly index: number;
  readonly addr: number;
  readonly maxReconsumeTimes: number;
  /** The offset store's updateOffset(mq, offset, increaseOnly=true), traced. */
  updateOffset(mq: number, offset: number, increaseOnly: boolean): void;
  /** BROADCASTING: failed messages are dropped, never sent back (§7.3). */
  readonly broadcasting: boolean;
  /** Broker nodes as the instance knows them (absent in unit fakes: every broker is its own node). */
  readonly route?: RouteView;
  /** Shutdown step 1 waits for the executor to terminate: told when the last call ends (optional in fakes). */
  onConsumeDrained?(): void;
}

/** Messages of a failed send-back, consumed again locally 5 s later (they never left the ProcessQueue). */
interface RetryTicket {
  pq: ProcessQueue;
  mq: number;
  msgs: MessageBatch;
  localRetry: number;
}

export class ConsumeMessageConcurrentlyService implements ConsumeService {
  /** The context's trace, kept at hand: it is written on every step. */
  private readonly trace: Trace;
  readonly threads: number;
  private readonly batchMax: number;

  // Task FIFO: a ring of (ProcessQueue, queue, messages, submit time, local retry round).
  private taskCap = 1024;
  private taskHead = 0;
  private taskLen = 0;
  private taskPq: (ProcessQueue | null)[] = new Array(1024).fill(null);
  private taskMsgs: (MessageBatch | null)[] = new Array(1024).fill(null);
  private taskMq = new Int32Array(1024);
  private taskSubmitUs = new Float64Array(1024);
  private taskLocalRetry = new Int32Array(1024);
  private readonly freeBatches: MessageBatch[] = [];

  private readonly idle: number[] = [];
  private readonly wPq: (ProcessQueue | null)[];
  private readonly wMq: Int32Array;
  private readonly wMsgs: (MessageBatch | null)[];
  private readonly wStartUs: Float64Array;
  private readonly wOk: Uint8Array;
  private readonly wLocalRetry: Int32Array;
  /** Send-back progress: index of the message whose RPC is in flight. */
  private readonly wSendIdx: Int32Array;
  /** 0: the send-back is in flight; k ≥ 1: attempt k − 1 of the fallback through the internal producer (§8.1). */
  private readonly wFallback: Uint8Array;
  private readonly wFailed: number[][];
  /** Send-backs that failed and went through the fallback, and fallbacks that failed too. */
  sendBackFallbacks = 0;
  sendBackFallbackFailures = 0;
  private readonly tickets = new Map<number, RetryTicket>();
  private ticketNext = 0;
  /** Workers stuck in a listener call that never returns. */
  hungWorkers = 0;
  /** Shutdown began: the scheduler and the executor are shut (§8.2 step 1). */
  private shut = false;

  constructor(
    private readonly host: ConsumeHost,
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
    this.threads = config.consumeThreadMin; // §6: effective concurrency
    this.batchMax = config.consumeMessageBatchMaxSize;
    const n = this.threads;
    this.wPq = new Array(n).fill(null);
    this.wMq = new Int32Array(n);
    this.wMsgs = new Array(n).fill(null);
    this.wStartUs = new Float64Array(n);
    this.wOk = new Uint8Array(n);
    this.wLocalRetry = new Int32Array(n);
    this.wSendIdx = new Int32Array(n);
    this.wFallback = new Uint8Array(n);
    this.wFailed = Array.from({ length: n }, () => []);
    for (let i = n - 1; i >= 0; i--) this.idle.push(i);
  }

  /** Tasks waiting for a worker. */
  get queueLength(): number {
    return this.taskLen;
  }
  get busyWorkers(): number {
    return this.threads - this.idle.length;
  }

  /** §7.1 submitConsumeRequest: split into chunks of consumeMessageBatchMaxSize (the flag is ignored). */
  submitConsumeRequest(msgs: MessageColumns, pq: ProcessQueue, mq: number, _dispatchToConsume = true): void {
    // After shutdown began the executor rejects it and so does the scheduler of submitConsumeRequestLater:
    // the messages stay cached, never consumed (§8.2).
    if (this.shut) return;
    this.submit(msgs, pq, mq, 0);
  }

  beginShutdown(): void {
    this.shut = true;
    this.tickets.clear();
  }
  dropQueued(): void {
    for (; this.taskLen > 0; this.taskLen--, this.taskHead = (this.taskHead + 1) & (this.taskCap - 1)) {
      this.freeBatches.push(this.taskMsgs[this.taskHead]!);
      this.taskPq[this.taskHead] = this.taskMsgs[this.taskHead] = null;
    }
  }
  get drained(): boolean {
    return this.taskLen === 0 && this.idle.length === this.threads;
  }

  private submit(msgs: MessageColumns, pq: ProcessQueue, mq: number, localRetry: number): void {
    const count = msgs.count;
    for (let i = 0; i < count; i += this.batchMax) {
      const rows = this.freeBatches.pop() ?? new MessageBatch(this.batchMax);
      rows.count = 0;
      const end = Math.min(count, i + this.batchMax);
      for (let k = i; k < end; k++) rows.add(msgs, k);
      this.enqueue(rows, pq, mq, localRetry);
    }
    while (this.taskLen > 0 && this.idle.length > 0) this.startNext();
  }

  private enqueue(rows: MessageBatch, pq: ProcessQueue, mq: number, localRetry: number): void {
    if (this.taskLen === this.taskCap) this.growTasks();
    const row = (this.taskHead + this.taskLen) & (this.taskCap - 1);
    this.taskPq[row] = pq;
    this.taskMsgs[row] = rows;
    this.taskMq[row] = mq;
    this.taskSubmitUs[row] = this.ctx.nowUs;
    this.taskLocalRetry[row] = localRetry;
    this.taskLen++;
  }

  /** A worker takes the head task and runs ConsumeRequest#run (§7.2). */
  private startNext(): void {
    const row = this.taskHead;
    const pq = this.taskPq[row]!;
    const w = this.taskMsgs[row]!;
    const mq = this.taskMq[row]!;
    const submitUs = this.taskSubmitUs[row]!;
    const localRetry = this.taskLocalRetry[row]!;
    this.taskPq[row] = null;
    this.taskMsgs[row] = null;
    this.taskHead = (this.taskHead + 1) & (this.taskCap - 1);
    this.taskLen--;
    if (pq.dropped) {
      this.freeBatches.push(w); // §7.2 step 1: nothing recorded, the worker stays free
      return;
    }
    const worker = this.idle.pop()!;
    const now = this.ctx.nowUs;
    const n = w.count;
    this.wMsgs[worker] = w;
    this.wPq[worker] = pq;
    this.wMq[worker] = mq;
    this.wStartUs[worker] = now;
    this.wLocalRetry[worker] = localRetry;
    this.stats.consumeWait.record(now - submitUs);
    // The listener: consume time and outcome are functions of (message, attempt).
    const listeners = this.listeners;
    let durationUs = 0;
    let ok = 1;
    let hung = false;
    for (let i = 0; i < n; i++) {
      const o = w.offsets[i]!;
      pq.markConsumeStart(o, now);
      const key = w.originKey[i]!;
      const attempt = w.reconsumeTimes[i]! + localRetry;
      durationUs += listeners.drawMessage(this.host.group, key, attempt);
      if ((listeners.outcome & MESSAGE_FAILS) !== 0) ok = 0;
      if ((listeners.outcome & MESSAGE_HANGS) !== 0) hung = true;
      this.trace.emit(this.T.consumeStart, now, mq, o, this.host.index, worker);
    }
    this.wOk[worker] = ok;
    const hang = this.listeners.takeHang(mq); // a hangMessage fault armed on this queue
    if (hang === -1) hung = true;
    else if (hang >= 0) durationUs = hang;
    if (hung) {
      this.hungWorkers++; // the listener never returns; RocketMQ does not abort slow consumption (§7.2)
      return;
    }
    this.ctx.timerAt(now + durationUs, ClientTimer.CONSUME_DONE, worker);
  }

  /** The listener returned (§7.2 steps 5–7). */
  onConsumeDone(worker: number): void {
    const now = this.ctx.nowUs;
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const w = this.wMsgs[worker]!;
    const ok = this.wOk[worker] === 1;
    this.stats.consumeTime.record(now - this.wStartUs[worker]!);
    for (let i = 0; i < w.count; i++) {
      const o = w.offsets[i]!;
      if (ok) this.observer.consumed(this.host.group, mq, o, w.originKey[i]!, w.originBornUs[i]!, this.host.addr, now);
      this.trace.emit(this.T.consumeEnd, now, mq, o, this.host.index, ok ? 1 : 0);
    }
    if (pq.dropped) {
      this.release(worker); // result discarded: no send-back, no offset
      return;
    }
    if (ok) {
      this.finish(worker);
      return;
    }
    if (this.host.broadcasting) {
      // BROADCASTING (§7.3): the failed messages are dropped with a warning; the offset moves past them.
      for (let i = 0; i < w.count; i++) this.observer.consumeDropped(this.host.group, mq, w.offsets[i]!, w.originKey[i]!, this.host.addr, now);
      this.finish(worker);
      return;
    }
    // RECONSUME_LATER: ackIndex = −1, every message is sent back, one synchronous RPC after another.
    this.wFailed[worker]!.length = 0;
    this.wSendIdx[worker] = -1;
    this.nextSendBack(worker);
  }

  private nextSendBack(worker: number): void {
    const pq = this.wPq[worker]!;
    const w = this.wMsgs[worker]!;
    let i = this.wSendIdx[worker]! + 1;
    // 5.x only: a message no longer cached (removed by cleanExpiredMsg) is not sent back (§7.3).
    if (this.profile === "5.x") while (i < w.count && !pq.contains(w.offsets[i]!)) i++;
    this.wSendIdx[worker] = i;
    if (i >= w.count) {
      this.finish(worker);
      return;
    }
    const mq = this.wMq[worker]!;
    this.wFallback[worker] = 0;
    // context.delayLevelWhenNextConsume default 0: the broker chooses 3 + reconsumeTimes.
    const req = new ConsumerSendMsgBackRequest(
      this.host.group, mq, w.offsets[i]!, 0, this.host.maxReconsumeTimes,
      w.originKey[i]!, w.originBornUs[i]!, w.bodyBytes[i]!, w.tag[i]!, w.reconsumeTimes[i]!,
    );
    // findBrokerAddressInPublish: the master; a route without one fails the RPC at once (broker spec §4.5).
    const node = this.host.route?.masterNode(mq) ?? this.routes.brokerOf(mq);
    if (node < 0) return this.onSendBackResponse(worker, null);
    this.ctx.request(node, req, SEND_BACK_TIMEOUT_US, worker);
  }

  /** The answer (null: time-out) of the send in flight; a failed send-back falls back (sendFallback, §8.1). */
  onSendBackResponse(worker: number, response: Command | null): void {
    const ok = response !== null && response.code === ResponseCode.SUCCESS;
    if (!ok) {
      const attempt = this.wFallback[worker]!;
      if (attempt === 0) this.sendBackFallbacks++;
      // The fallback's next attempt after an error code; a time-out has used up the 3 s budget.
      if ((attempt === 0 || response !== null) && this.sendFallback(worker, attempt)) return;
      if (attempt > 0 || this.wFallback[worker]! > 0) this.sendBackFallbackFailures++;
      this.wFailed[worker]!.push(this.wSendIdx[worker]!);
    }
    this.nextSendBack(worker);
  }

  /**
   * sendMessageBackAsNormalMessage (broker spec §8.1) after a failed CONSUMER_SEND_MSG_BACK (any error or
   * time-out): the message to %RETRY%<group> through the internal producer, RECONSUME_TIME rt + 1, delay
   * level 3 + rt — its attempt `attempt` (0-based) or a later one; false when none is left (the message is
   * then kept for the 5 s local retry).
   */
  private sendFallback(worker: number, attempt: number): boolean {
    const w = this.wMsgs[worker]!;
    const i = this.wSendIdx[worker]!;
    const mq = this.wMq[worker]!;
    const target = retrySendTarget(this.ctx, this.routes, this.host.route, this.host.group, mq, attempt);
    this.wFallback[worker] = 1 + (target === null ? attempt : target.attempt);
    if (target === null) return false;
    const rt = w.reconsumeTimes[i]!;
    this.ctx.request(target.node, new SendRetryMessageRequest(
      this.host.group, mq, w.offsets[i]!, 3 + rt, this.host.maxReconsumeTimes, w.originKey[i]!, w.originBornUs[i]!, w.bodyBytes[i]!, w.tag[i]!, rt + 1,
    ), RETRY_SEND_TIMEOUT_US, worker);
    return true;
  }

  /** processConsumeResult's tail (§7.3): local retry of failed send-backs, removeMessage, updateOffset. */
  private finish(worker: number): void {
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const w = this.wMsgs[worker]!;
    const failed = this.wFailed[worker]!;
    let offsets: ArrayLike<number> = w.offsets;
    let n = w.count;
    if (failed.length > 0 && this.shut) {
      // submitConsumeRequestLater on the scheduler shutdown stopped: RejectedExecutionException escapes,
      // and the rest of processConsumeResult — removeMessage, the offset update — is skipped (§8.2).
      failed.length = 0;
      this.release(worker);
      return;
    }
    if (failed.length > 0) {
      const retry = new MessageBatch(failed.length);
      const keep: number[] = [];
      for (let i = 0; i < w.count; i++) {
        if (failed.includes(i)) retry.add(w, i);
        else keep.push(w.offsets[i]!);
      }
      const ticket = this.ticketNext++;
      this.tickets.set(ticket, { pq, mq, msgs: retry, localRetry: this.wLocalRetry[worker]! + 1 });
      this.ctx.timer(CLIENT_CONSTANTS.LOCAL_CONSUME_RETRY_DELAY * 1000, ClientTimer.LOCAL_RETRY, ticket);
      offsets = keep;
      n = keep.length;
      failed.length = 0;
    }
    const offset = pq.removeMessage(offsets, n, this.ctx.nowUs);
    if (offset >= 0 && !pq.dropped) this.host.updateOffset(mq, offset, true);
    this.release(worker);
  }

  /** The 5 s local retry of messages whose send-back failed. */
  onLocalRetry(ticket: number): void {
    const t = this.tickets.get(ticket); // none when the scheduler stopped (shutdown)
    if (!t) return;
    this.tickets.delete(ticket);
    this.submit(t.msgs, t.pq, t.mq, t.localRetry);
  }

  private release(worker: number): void {
    this.wPq[worker] = null;
    this.freeBatches.push(this.wMsgs[worker]!);
    this.wMsgs[worker] = null;
    this.idle.push(worker);
    while (this.taskLen > 0 && this.idle.length > 0) this.startNext();
    if (this.shut && this.drained) this.host.onConsumeDrained?.();
  }

  /** Calls fn for each message currently inside a listener call or a send-back (accounting, storage roots). */
  forEachInFlight(fn: (mq: number, offset: number, originKey: number) => void): void {
    for (let wk = 0; wk < this.threads; wk++) {
      const w = this.wMsgs[wk];
      if (!this.wPq[wk] || !w) continue;
      for (let i = 0; i < w.count; i++) fn(this.wMq[wk]!, w.offsets[i]!, w.originKey[i]!);
    }
  }

  /** No consumeLock in concurrent consumption. */
  consumeLockBusyUntil(_pq: ProcessQueue): number {
    return -1;
  }

  private growTasks(): void {
    const cap = this.taskCap * 2;
    const order = (k: number) => (this.taskHead + k) & (this.taskCap - 1);
    const pq: (ProcessQueue | null)[] = new Array(cap).fill(null);
    const msgs: (MessageBatch | null)[] = new Array(cap).fill(null);
    const mq = new Int32Array(cap);
    const submit = new Float64Array(cap);
    const retry = new Int32Array(cap);
    for (let k = 0; k < this.taskLen; k++) {
      const r = order(k);
      pq[k] = this.taskPq[r]!;
      msgs[k] = this.taskMsgs[r]!;
      mq[k] = this.taskMq[r]!;
      submit[k] = this.taskSubmitUs[r]!;
      retry[k] = this.taskLocalRetry[r]!;
    }
    this.taskPq = pq;
    this.taskMsgs = msgs;
    this.taskMq = mq;
    this.taskSubmitUs = submit;
    this.taskLocalRetry = retry;
    this.taskHead = 0;
    this.taskCap = cap;
  }
}

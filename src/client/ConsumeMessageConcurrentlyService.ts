// ConsumeMessageConcurrentlyService, spec §6 and §7: consumeThreadMin workers over one unbounded FIFO of
// ConsumeRequests (consumeThreadMax never matters: Java only adds threads past the core size when the
// queue is full, and this queue never is). Tasks are rows of typed arrays; workers are slots. A task is
// a chunk of at most consumeMessageBatchMaxSize messages of one ProcessQueue.
import { hashUniform } from "../sim/streams.ts";
import type { World } from "../model/World.ts";
import type { PushConsumer } from "./PushConsumer.ts";
import type { ProcessQueue } from "./ProcessQueue.ts";
import { CLIENT_CONSTANTS } from "../scenario/defaults.ts";

/** What a worker's send-back RPC carries (read by the broker when the request arrives). */
export interface SendBackJob {
  mq: number;
  offset: number;
  delayLevel: number;
}

interface RetryTicket {
  pq: ProcessQueue;
  mq: number;
  offsets: number[];
  localRetry: number;
}

const SEND_BACK_TIMEOUT_US = 5_000_000;

export class ConsumeMessageConcurrentlyService {
  readonly threads: number;
  private readonly batchMax: number;
  private readonly listenerSeed: number;

  // Task FIFO (ring of rows); a row's messages sit in `taskOffsets` from `taskFirst`.
  private taskCap = 1024;
  private taskHead = 0;
  private taskLen = 0;
  private taskPq: (ProcessQueue | null)[] = new Array(1024).fill(null);
  private taskMq = new Int32Array(1024);
  private taskFirst = new Int32Array(1024);
  private taskCount = new Int32Array(1024);
  private taskSubmitUs = new Float64Array(1024);
  private taskLocalRetry = new Int32Array(1024);
  private offCap = 1024;
  private offHead = 0;
  private offLen = 0;
  private taskOffsets = new Float64Array(1024);

  // Workers.
  private readonly idle: number[] = [];
  private readonly wPq: (ProcessQueue | null)[];
  private readonly wMq: Int32Array;
  private readonly wOffsets: Float64Array[];
  private readonly wCount: Int32Array;
  private readonly wStartUs: Float64Array;
  private readonly wOk: Uint8Array;
  private readonly wLocalRetry: Int32Array;
  /** Send-back progress: index of the message whose RPC is in flight. */
  private readonly wSendIdx: Int32Array;
  private readonly wSendUs: Float64Array;
  private readonly wFailed: number[][];
  private readonly job: SendBackJob = { mq: 0, offset: 0, delayLevel: 0 };
  private tickets = new Map<number, RetryTicket>();
  private ticketNext = 0;
  /** Workers stuck in a listener call that never returns. */
  hungWorkers = 0;

  constructor(
    private readonly consumer: PushConsumer,
    private readonly world: World,
  ) {
    const cfg = consumer.config;
    this.threads = cfg.consumeThreadMin; // §6: effective concurrency
    this.batchMax = cfg.consumeMessageBatchMaxSize;
    this.listenerSeed = world.model.seed * 7919 + consumer.group; // listener behaviour is per group, not per instance
    const n = this.threads;
    this.wPq = new Array(n).fill(null);
    this.wMq = new Int32Array(n);
    this.wOffsets = Array.from({ length: n }, () => new Float64Array(this.batchMax));
    this.wCount = new Int32Array(n);
    this.wStartUs = new Float64Array(n);
    this.wOk = new Uint8Array(n);
    this.wLocalRetry = new Int32Array(n);
    this.wSendIdx = new Int32Array(n);
    this.wSendUs = new Float64Array(n);
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
  submitConsumeRequest(offsets: ArrayLike<number>, count: number, pq: ProcessQueue, mq: number, localRetry = 0): void {
    for (let i = 0; i < count; i += this.batchMax) {
      const n = Math.min(this.batchMax, count - i);
      this.enqueue(offsets, i, n, pq, mq, localRetry);
    }
    while (this.taskLen > 0 && this.idle.length > 0) this.startNext();
  }

  private enqueue(offsets: ArrayLike<number>, from: number, n: number, pq: ProcessQueue, mq: number, localRetry: number): void {
    if (this.taskLen === this.taskCap) this.growTasks();
    while (this.offLen + n > this.offCap) this.growOffsets();
    const row = (this.taskHead + this.taskLen) & (this.taskCap - 1);
    const first = (this.offHead + this.offLen) & (this.offCap - 1);
    for (let i = 0; i < n; i++) this.taskOffsets[(first + i) & (this.offCap - 1)] = offsets[from + i]!;
    this.offLen += n;
    this.taskPq[row] = pq;
    this.taskMq[row] = mq;
    this.taskFirst[row] = first;
    this.taskCount[row] = n;
    this.taskSubmitUs[row] = this.world.sched.nowUs;
    this.taskLocalRetry[row] = localRetry;
    this.taskLen++;
  }

  /** A worker takes the head task and runs ConsumeRequest#run (§7.2). */
  private startNext(): void {
    const w = this.world;
    const row = this.taskHead;
    const pq = this.taskPq[row]!;
    const mq = this.taskMq[row]!;
    const n = this.taskCount[row]!;
    const first = this.taskFirst[row]!;
    const submitUs = this.taskSubmitUs[row]!;
    const localRetry = this.taskLocalRetry[row]!;
    this.taskPq[row] = null;
    this.taskHead = (this.taskHead + 1) & (this.taskCap - 1);
    this.taskLen--;
    this.offHead = (this.offHead + n) & (this.offCap - 1);
    this.offLen -= n;
    if (pq.dropped) return; // §7.2 step 1: nothing recorded, the worker stays free
    const worker = this.idle.pop()!;
    const now = w.sched.nowUs;
    const offsets = this.wOffsets[worker]!;
    for (let i = 0; i < n; i++) offsets[i] = this.taskOffsets[(first + i) & (this.offCap - 1)]!;
    this.wPq[worker] = pq;
    this.wMq[worker] = mq;
    this.wCount[worker] = n;
    this.wStartUs[worker] = now;
    this.wLocalRetry[worker] = localRetry;
    w.metrics.consumeWait.record(now - submitUs);
    // The listener: consume time and outcome are functions of (message, attempt), so a re-delivered
    // message behaves the same way again (a poison message fails every time).
    const store = w.queues[mq]!;
    const g = w.model.groups[this.consumer.group]!;
    const behaviour = w.listener(this.consumer.group);
    let durationUs = 0;
    let ok = 1;
    let hung = false;
    for (let i = 0; i < n; i++) {
      const o = offsets[i]!;
      pq.markConsumeStart(o, now);
      const key = store.originKey(o);
      const attempt = store.reconsumeTimes(o) + localRetry;
      durationUs += behaviour.consumeTime.quantile(hashUniform(this.listenerSeed, key, attempt, 0));
      if (g.poisonFraction > 0 && hashUniform(this.listenerSeed, key, 0, 2) < g.poisonFraction) ok = 0;
      if (behaviour.failureProbability > 0 && hashUniform(this.listenerSeed, key, attempt, 1) < behaviour.failureProbability) ok = 0;
      if (g.hangFraction > 0 && attempt === 0 && hashUniform(this.listenerSeed, key, 0, 3) < g.hangFraction) hung = true;
      w.trace.emit(w.T.consumeStart, now, mq, o, this.consumer.index, worker);
    }
    this.wOk[worker] = ok;
    const hang = w.takeHang(mq); // a hangMessage fault armed on this queue
    if (hang === -1) hung = true;
    else if (hang >= 0) durationUs = hang;
    if (hung) {
      this.hungWorkers++; // the listener never returns; RocketMQ does not abort slow consumption (§7.2)
      return;
    }
    w.sched.scheduleAt(now + durationUs, w.kinds.consumeDone, this.consumer.addr, worker);
  }

  /** The listener returned (§7.2 steps 5–7). */
  onConsumeDone(worker: number): void {
    const w = this.world;
    const now = w.sched.nowUs;
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const n = this.wCount[worker]!;
    const offsets = this.wOffsets[worker]!;
    const ok = this.wOk[worker] === 1;
    w.metrics.consumeTime.record(now - this.wStartUs[worker]!);
    for (let i = 0; i < n; i++) {
      const o = offsets[i]!;
      if (ok) w.fates.recordConsumed(this.consumer.group, mq, o, this.consumer.addr);
      w.trace.emit(w.T.consumeEnd, now, mq, o, this.consumer.index, ok ? 1 : 0);
    }
    if (pq.dropped) {
      this.release(worker); // result discarded: no send-back, no offset
      return;
    }
    if (ok) {
      this.finish(worker);
      return;
    }
    // RECONSUME_LATER: ackIndex = −1, every message is sent back, one synchronous RPC after another.
    this.wFailed[worker]!.length = 0;
    this.wSendIdx[worker] = -1;
    this.nextSendBack(worker);
  }

  private nextSendBack(worker: number): void {
    const w = this.world;
    const pq = this.wPq[worker]!;
    const offsets = this.wOffsets[worker]!;
    const n = this.wCount[worker]!;
    let i = this.wSendIdx[worker]! + 1;
    // 5.x only: a message no longer cached (removed by cleanExpiredMsg) is not sent back (§7.3).
    if (w.model.profile === "5.x") while (i < n && !pq.contains(offsets[i]!)) i++;
    this.wSendIdx[worker] = i;
    if (i >= n) {
      this.finish(worker);
      return;
    }
    const mq = this.wMq[worker]!;
    const broker = w.queues[mq]!.brokerIndex;
    this.wSendUs[worker] = w.sched.nowUs;
    const t = w.net.upAt(w.sched.nowUs, this.consumer.index, broker);
    if (t >= 0) w.sched.scheduleAt(t, w.kinds.sendBack, broker, this.consumer.addr, worker);
    else this.sendBackLost(worker);
  }

  /** The send-back RPC got no answer: it fails when its 5 s timeout expires (§0.3). */
  sendBackLost(worker: number): void {
    const w = this.world;
    const at = Math.max(w.sched.nowUs, this.wSendUs[worker]! + SEND_BACK_TIMEOUT_US);
    w.sched.scheduleAt(at, w.kinds.sendBackResponse, this.consumer.addr, worker, 0);
  }

  /** The broker's view of the send-back in flight from `worker`. */
  sendBackJob(worker: number): SendBackJob {
    this.job.mq = this.wMq[worker]!;
    this.job.offset = this.wOffsets[worker]![this.wSendIdx[worker]!]!;
    this.job.delayLevel = 0; // context.delayLevelWhenNextConsume default: the broker chooses 3 + rt
    return this.job;
  }

  onSendBackResponse(worker: number, ok: boolean): void {
    if (!ok) this.wFailed[worker]!.push(this.wOffsets[worker]![this.wSendIdx[worker]!]!);
    this.nextSendBack(worker);
  }

  /** processConsumeResult's tail (§7.3): local retry of failed send-backs, removeMessage, updateOffset. */
  private finish(worker: number): void {
    const w = this.world;
    const pq = this.wPq[worker]!;
    const mq = this.wMq[worker]!;
    const failed = this.wFailed[worker]!;
    let offsets: ArrayLike<number> = this.wOffsets[worker]!;
    let n = this.wCount[worker]!;
    if (failed.length > 0) {
      const keep = Array.from(offsets).slice(0, n).filter((o) => !failed.includes(o));
      const ticket = this.ticketNext++;
      this.tickets.set(ticket, { pq, mq, offsets: failed.slice(), localRetry: this.wLocalRetry[worker]! + 1 });
      w.sched.scheduleIn(CLIENT_CONSTANTS.LOCAL_CONSUME_RETRY_DELAY * 1000, w.kinds.localRetry, this.consumer.addr, ticket);
      offsets = keep;
      n = keep.length;
      failed.length = 0;
    }
    const offset = pq.removeMessage(offsets, n, w.sched.nowUs);
    if (offset >= 0 && !pq.dropped) this.consumer.updateOffset(mq, offset, true);
    this.release(worker);
  }

  /** The 5 s local retry of messages whose send-back failed (they never left the ProcessQueue). */
  onLocalRetry(ticket: number): void {
    const t = this.tickets.get(ticket);
    if (!t) return;
    this.tickets.delete(ticket);
    this.submitConsumeRequest(t.offsets, t.offsets.length, t.pq, t.mq, t.localRetry);
  }

  private release(worker: number): void {
    this.wPq[worker] = null;
    this.idle.push(worker);
    while (this.taskLen > 0 && this.idle.length > 0) this.startNext();
  }

  /** Calls fn for each message currently inside a listener call or a send-back (end-of-run accounting). */
  forEachInFlight(fn: (mq: number, offset: number, pq: ProcessQueue) => void): void {
    for (let wk = 0; wk < this.threads; wk++) {
      const pq = this.wPq[wk];
      if (!pq) continue;
      for (let i = 0; i < this.wCount[wk]!; i++) fn(this.wMq[wk]!, this.wOffsets[wk]![i]!, pq);
    }
  }

  private growTasks(): void {
    const cap = this.taskCap * 2;
    const order = (k: number) => (this.taskHead + k) & (this.taskCap - 1);
    const pq: (ProcessQueue | null)[] = new Array(cap).fill(null);
    const mq = new Int32Array(cap);
    const first = new Int32Array(cap);
    const count = new Int32Array(cap);
    const submit = new Float64Array(cap);
    const retry = new Int32Array(cap);
    for (let k = 0; k < this.taskLen; k++) {
      const r = order(k);
      pq[k] = this.taskPq[r]!;
      mq[k] = this.taskMq[r]!;
      first[k] = this.taskFirst[r]!;
      count[k] = this.taskCount[r]!;
      submit[k] = this.taskSubmitUs[r]!;
      retry[k] = this.taskLocalRetry[r]!;
    }
    this.taskPq = pq;
    this.taskMq = mq;
    this.taskFirst = first;
    this.taskCount = count;
    this.taskSubmitUs = submit;
    this.taskLocalRetry = retry;
    this.taskHead = 0;
    this.taskCap = cap;
  }

  private growOffsets(): void {
    const cap = this.offCap * 2;
    const offs = new Float64Array(cap);
    for (let k = 0; k < this.offLen; k++) offs[k] = this.taskOffsets[(this.offHead + k) & (this.offCap - 1)]!;
    // Re-base task rows onto the new ring.
    for (let k = 0; k < this.taskLen; k++) {
      const r = (this.taskHead + k) & (this.taskCap - 1);
      this.taskFirst[r] = (this.taskFirst[r]! - this.offHead + this.offCap) & (this.offCap - 1);
    }
    this.taskOffsets = offs;
    this.offHead = 0;
    this.offCap = cap;
  }
}


// One instance's consume pool as the trace shows it (ConsumeMessage*Service, spec §6): which workers are
// inside a listener call (consumeStart … consumeEnd, the worker named by consumeStart), summed per
// THIN_US bucket as thread-µs busy and the peak, and each message's wait in the executor queue — its
// consumeStart minus the arrival of the FOUND pull that brought it. The send-back RPCs a worker makes
// after a failed call are not traced, so that part of a thread's time counts as free.
import { THIN_US } from "./intervals.ts";

/** Load over a time range of buckets. */
export interface PoolStats {
  /** Mean threads inside a listener call. */
  busyMean: number;
  busyMax: number;
  /** Messages started, and their mean / max wait in the executor queue, µs (0 when none started). */
  started: number;
  waitMeanUs: number;
  waitMaxUs: number;
}

export class PoolTrack {
  private busy = 0;
  private lastUs = 0;
  /** Bucket index of element 0 of the arrays; −1 before the first record. */
  private base = -1;
  private readonly busyUs: number[] = [];
  private readonly busyMax: number[] = [];
  private readonly waitSumUs: number[] = [];
  private readonly waitCount: number[] = [];
  private readonly waitMaxUs: number[] = [];
  // Per worker: the batch in its listener call — queue, start, messages left and the offsets' range (a
  // batch's consumeEnd records name offsets inside it; no allocation per message).
  private wMq = new Int32Array(16);
  private wStartUs = new Float64Array(16);
  private wLeft = new Int32Array(16);
  private wMin = new Float64Array(16);
  private wMax = new Float64Array(16);
  /** One past the highest worker index seen: the end of the consumeEnd scan. */
  private workers = 0;

  /** The current bucket's end, µs, and its index in the arrays: the fast path of advance. */
  private bucketEndUs = -1;
  private cur = 0;

  /** Moves the clock to `t`, adding the current busy count over the time since the last change. */
  advance(t: number): void {
    if (t < this.bucketEndUs) {
      this.busyUs[this.cur]! += this.busy * (t - this.lastUs);
      this.lastUs = t;
      return;
    }
    this.advanceBuckets(t);
    this.cur = Math.floor(t / THIN_US) - this.base;
    this.bucketEndUs = (this.cur + this.base + 1) * THIN_US;
  }

  private advanceBuckets(t: number): void {
    if (this.base < 0) {
      this.base = Math.floor(t / THIN_US);
      this.lastUs = t;
      this.push(0);
      return;
    }
    const last = Math.floor(this.lastUs / THIN_US);
    const now = Math.floor(t / THIN_US);
    for (let b = last; b <= now; b++) {
      const i = b - this.base;
      // A bucket entered exactly at its start has not seen the old level yet (it may change at this instant).
      if (i >= this.busyUs.length) this.push(b < now || t > b * THIN_US ? this.busy : 0);
      const from = Math.max(this.lastUs, b * THIN_US);
      const to = Math.min(t, (b + 1) * THIN_US);
      if (to > from) this.busyUs[i]! += this.busy * (to - from);
    }
    this.lastUs = t;
  }

  private push(busy: number): void {
    this.busyUs.push(0);
    this.busyMax.push(busy);
    this.waitSumUs.push(0);
    this.waitCount.push(0);
    this.waitMaxUs.push(0);
  }

  /** consumeStart of `offset` on `worker`; `arrivalUs` of its pull, or −1 when unknown (a local retry). */
  start(t: number, mq: number, offset: number, worker: number, arrivalUs: number): void {
    this.advance(t);
    if (worker >= this.wLeft.length) this.growWorkers(worker + 1);
    if (worker >= this.workers) this.workers = worker + 1;
    const left = this.wLeft[worker]!;
    if (left > 0 && this.wStartUs[worker] === t && this.wMq[worker] === mq) {
      this.wLeft[worker] = left + 1;
      this.wMin[worker] = Math.min(this.wMin[worker]!, offset);
      this.wMax[worker] = Math.max(this.wMax[worker]!, offset);
    } else {
      // A worker starts a batch only when free; one still marked busy lost its consumeEnd (a crash).
      if (left === 0) this.busy++;
      this.wLeft[worker] = 1;
      this.wMq[worker] = mq;
      this.wStartUs[worker] = t;
      this.wMin[worker] = offset;
      this.wMax[worker] = offset;
    }
    const i = this.cur;
    if (this.busy > this.busyMax[i]!) this.busyMax[i] = this.busy;
    if (arrivalUs < 0) return;
    const wait = t - arrivalUs;
    this.waitSumUs[i]! += wait;
    this.waitCount[i]! += 1;
    if (wait > this.waitMaxUs[i]!) this.waitMaxUs[i] = wait;
  }

  /** consumeEnd of `offset` (it names no worker: the one whose batch holds the offset). */
  end(t: number, mq: number, offset: number): void {
    this.advance(t);
    const n = this.workers;
    for (let w = 0; w < n; w++) {
      if (this.wLeft[w] === 0 || this.wMq[w] !== mq || offset < this.wMin[w]! || offset > this.wMax[w]!) continue;
      this.wLeft[w]!--;
      if (this.wLeft[w] === 0) this.busy--;
      if (this.busy > this.busyMax[this.cur]!) this.busyMax[this.cur] = this.busy;
      return;
    }
  }

  private growWorkers(n: number): void {
    const size = Math.max(n, this.wLeft.length * 2);
    const grow = <A extends Int32Array | Float64Array>(a: A, b: A): A => (b.set(a), b);
    this.wMq = grow(this.wMq, new Int32Array(size));
    this.wStartUs = grow(this.wStartUs, new Float64Array(size));
    this.wLeft = grow(this.wLeft, new Int32Array(size));
    this.wMin = grow(this.wMin, new Float64Array(size));
    this.wMax = grow(this.wMax, new Float64Array(size));
  }

  /** Load over [startUs, endUs) (whole buckets). */
  stats(startUs: number, endUs: number): PoolStats {
    const from = Math.max(0, Math.floor(startUs / THIN_US) - this.base);
    const to = Math.min(this.busyUs.length, Math.ceil(endUs / THIN_US) - this.base);
    let busyUs = 0;
    let busyMax = 0;
    let started = 0;
    let waitSum = 0;
    let waitMax = 0;
    for (let i = from; i < to; i++) {
      busyUs += this.busyUs[i]!;
      busyMax = Math.max(busyMax, this.busyMax[i]!);
      started += this.waitCount[i]!;
      waitSum += this.waitSumUs[i]!;
      waitMax = Math.max(waitMax, this.waitMaxUs[i]!);
    }
    const spanUs = Math.max(1, (to - from) * THIN_US);
    return { busyMean: busyUs / spanUs, busyMax, started, waitMeanUs: started > 0 ? waitSum / started : 0, waitMaxUs: waitMax };
  }

  /**
   * Runs of buckets in which every one of `threads` threads was busy (mean ≥ threads − 0.5) — the
   * executor queue is where new messages wait — as [startUs, endUs) pairs.
   */
  saturatedRuns(threads: number): [number, number][] {
    const runs: [number, number][] = [];
    let open = -1;
    for (let i = 0; i <= this.busyUs.length; i++) {
      const full = i < this.busyUs.length && this.busyUs[i]! >= (threads - 0.5) * THIN_US;
      if (full && open < 0) open = i;
      if (!full && open >= 0) {
        runs.push([(this.base + open) * THIN_US, (this.base + i) * THIN_US]);
        open = -1;
      }
    }
    return runs;
  }
}

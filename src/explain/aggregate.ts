// What the capture filter measures as records pass instead of keeping them: the consume pool's load per
// instance (threads busy, executor-queue waits) from the per-message consumeStart/consumeEnd records,
// local re-consumption after a failed send-back (the offset it pins), and pulls held at the broker while
// messages piled up behind them. Each is summed per THIN_US bucket or kept as a run, so the memory is
// O(instances × buckets + runs), never O(records). It reads only the records' fields and their times.
import { PoolTrack } from "./poolTrack.ts";
/** A held pull answered after this long with ≥ 2 messages held them back (short polling holds 1 s). */
export const HOLD_SLOW_US = 500_000;
/** Delaying holds further apart than this are separate runs. */
export const HOLD_GAP_US = 3_000_000;

/** Messages of one (queue, instance) consumed again locally after their send-back failed (§7.3). */
export interface SendBackRun {
  mq: number;
  slot: number;
  /** The first failed consumption (consumeEnd ok = 0) of a message later consumed again locally. */
  startUs: number;
  lastRetryUs: number;
  /** When the committed offset passed the pinned one (or the ProcessQueue was dropped); −1 while open. */
  endUs: number;
  /** The lowest offset consumed again locally: the ProcessQueue's firstKey, where the committed offset stays. */
  pinnedOffset: number;
  /** Local re-consumptions (each 5 s after a failed send-back: LOCAL_CONSUME_RETRY_DELAY). */
  retries: number;
  /** "released": the offset moved past the pin; "dropped": the ProcessQueue went away; "open". */
  end: "released" | "dropped" | "open";
  /**
   * The last local re-consumption of a message that had failed while the offset was pinned: the run's
   * backlog of failed messages drains until then, behind a committed offset that moves again.
   */
  drainedUs: number;
}

/** Pulls of one (queue, instance) held at the broker and answered late with messages behind them. */
export interface HoldRun {
  mq: number;
  slot: number;
  startUs: number;
  endUs: number;
  holds: number;
  heldUs: number;
  /** Messages the late answers brought. */
  msgs: number;
}

/**
 * Per (queue, instance): where the FOUND answers' messages came from (offset ranges and arrival times),
 * and the pull held at the broker, if any. One object per ProcessQueue: nothing is allocated per record.
 */
class PullRanges {
  next: number;
  /** When the broker suspended the outstanding pull (pullHeld), and at which offset; −1: not held. */
  heldUs = -1;
  heldOffset = -1;
  readonly begin: number[] = [];
  readonly end: number[] = [];
  readonly tUs: number[] = [];
  head = 0;
  constructor(next: number) {
    this.next = next;
  }

  /** The arrival time of the pull that brought `offset` (ranges below it are consumed and forgotten), or −1. */
  arrivalOf(offset: number): number {
    while (this.head < this.end.length && this.end[this.head]! <= offset) this.head++;
    if (this.head > 32 && this.head * 2 > this.end.length) {
      this.begin.splice(0, this.head);
      this.end.splice(0, this.head);
      this.tUs.splice(0, this.head);
      this.head = 0;
    }
    return this.head < this.end.length && offset >= this.begin[this.head]! ? this.tUs[this.head]! : -1;
  }
}

const key = (mq: number, slot: number): number => mq * 65_536 + slot;

export class CaptureAggregate {
  private readonly pools: (PoolTrack | undefined)[] = [];
  private readonly ranges = new Map<number, PullRanges>();
  /** Failed consumptions awaiting their send-back, per queue: offset → (slot, time). */
  private readonly failed = new Map<number, Map<number, { slot: number; tUs: number }>>();
  private readonly openSendBack = new Map<number, SendBackRun>();
  /** The last released run per (queue, instance): messages that failed while it was pinned drain into it. */
  private readonly releasedSendBack = new Map<number, SendBackRun>();
  private readonly sendBack: SendBackRun[] = [];
  private readonly openHold = new Map<number, HoldRun>();
  private readonly holds: HoldRun[] = [];
  private finished = false;

  /** `mqs`: the queues runs are kept for (the pool is measured over every queue: it is per instance). */
  constructor(private readonly mqs: ReadonlySet<number>) {}

  pool(slot: number): PoolTrack | undefined {
    return this.pools[slot];
  }

  onConsumeStart(t: number, mq: number, offset: number, slot: number, worker: number): void {
    let p = this.pools[slot];
    if (p === undefined) this.pools[slot] = p = new PoolTrack();
    const arrival = this.ranges.get(key(mq, slot))?.arrivalOf(offset) ?? -1;
    p.start(t, mq, offset, worker, arrival);
    if (this.failed.size === 0) return;
    const f = this.failed.get(mq)?.get(offset);
    if (f === undefined || f.slot !== slot) return;
    this.failed.get(mq)!.delete(offset);
    // The message never left the ProcessQueue: its send-back failed and it is consumed here again.
    const k = key(mq, slot);
    let run = this.openSendBack.get(k);
    const released = this.releasedSendBack.get(k);
    if (run === undefined && released !== undefined && f.tUs <= released.endUs) {
      // Failed while the earlier pin held: one of that backlog, consumed again behind a moving offset.
      released.retries++;
      released.drainedUs = t;
      return;
    }
    if (run === undefined) {
      run = { mq, slot, startUs: f.tUs, lastRetryUs: t, endUs: -1, pinnedOffset: offset, retries: 0, end: "open", drainedUs: t };
      this.openSendBack.set(k, run);
    }
    run.retries++;
    run.lastRetryUs = t;
    run.drainedUs = t;
    run.pinnedOffset = Math.min(run.pinnedOffset, offset);
  }

  onConsumeEnd(t: number, mq: number, offset: number, slot: number, ok: number): void {
    this.pools[slot]?.end(t, mq, offset);
    if (ok !== 0 || !this.mqs.has(mq)) return;
    let m = this.failed.get(mq);
    if (m === undefined) this.failed.set(mq, (m = new Map()));
    m.set(offset, { slot, tUs: t });
  }

  /** A broker's sendBack or dlq record: the message left the consumer; it will not come back locally. */
  onSentBack(mq: number, offset: number): void {
    const m = this.failed.get(mq);
    if (m === undefined) return;
    m.delete(offset);
    if (m.size === 0) this.failed.delete(mq);
  }

  onPqCreated(mq: number, slot: number, nextOffset: number): void {
    const k = key(mq, slot);
    // A new ProcessQueue: also forgets a hold of an earlier incarnation (crashed without an answer).
    this.ranges.set(k, new PullRanges(nextOffset));
  }

  onPqDropped(t: number, mq: number, slot: number): void {
    const k = key(mq, slot);
    this.ranges.delete(k);
    const m = this.failed.get(mq);
    if (m !== undefined) for (const [o, f] of [...m]) if (f.slot === slot) m.delete(o);
    this.closeSendBack(k, t, "dropped");
  }

  onPullHeld(t: number, mq: number, slot: number, offset: number): void {
    const r = this.ranges.get(key(mq, slot));
    if (r === undefined) return;
    r.heldUs = t;
    r.heldOffset = offset;
  }

  onPullResult(t: number, mq: number, slot: number, code: number, nextBegin: number): void {
    const k = key(mq, slot);
    const r = this.ranges.get(k);
    if (r === undefined) return;
    const requested = r.next;
    if (code === 0 && nextBegin > requested) {
      r.begin.push(requested);
      r.end.push(nextBegin);
      r.tUs.push(t);
    }
    if (nextBegin >= 0) r.next = nextBegin;
    const heldUs = r.heldUs;
    if (heldUs < 0) return;
    r.heldUs = -1;
    // Only the answer to the held request itself (a FOUND from the offset it was held at).
    const msgs = code === 0 && requested === r.heldOffset ? nextBegin - requested : 0;
    // Long polling answers a held pull at the first arrival (one message); two or more behind a long
    // hold arrived while it waited: short polling's hold, or a wake-up that never came (broker spec §9).
    if (msgs < 2 || t - heldUs < HOLD_SLOW_US || !this.mqs.has(mq)) return;
    let run = this.openHold.get(k);
    if (run !== undefined && heldUs - run.endUs > HOLD_GAP_US) {
      this.holds.push(run);
      run = undefined;
    }
    if (run === undefined) {
      run = { mq, slot, startUs: heldUs, endUs: t, holds: 0, heldUs: 0, msgs: 0 };
      this.openHold.set(k, run);
    }
    run.endUs = t;
    run.holds++;
    run.heldUs += t - heldUs;
    run.msgs += msgs;
  }

  onOffsetUpdate(t: number, mq: number, slot: number, offset: number): void {
    if (this.openSendBack.size === 0) return;
    const k = key(mq, slot);
    const run = this.openSendBack.get(k);
    if (run !== undefined && offset > run.pinnedOffset) this.closeSendBack(k, t, "released");
  }

  private closeSendBack(k: number, t: number, end: "released" | "dropped"): void {
    const run = this.openSendBack.get(k);
    if (run === undefined) return;
    this.openSendBack.delete(k);
    run.endUs = t;
    run.end = end;
    this.sendBack.push(run);
    if (end === "released") this.releasedSendBack.set(k, run);
    else this.releasedSendBack.delete(k);
  }

  /** Closes the buckets and runs at the run's end; idempotent. */
  finish(endUs: number): void {
    if (this.finished) return;
    this.finished = true;
    for (const p of this.pools) p?.advance(endUs);
    for (const run of this.openSendBack.values()) this.sendBack.push({ ...run, endUs, end: "open" });
    this.openSendBack.clear();
    for (const run of this.openHold.values()) this.holds.push(run);
    this.openHold.clear();
  }

  sendBackRuns(): readonly SendBackRun[] {
    return this.sendBack;
  }

  holdRuns(): readonly HoldRun[] {
    return this.holds;
  }
}

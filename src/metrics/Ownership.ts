// Who owned each queue when: one interval per ProcessQueue (creation → drop), the duplicates each
// owner consumed while it held the queue, the time the queue had no owner at all, and — for orderly
// consumption — whether each owner held the queue's lock at the broker.

/**
 * ProcessQueue.REBALANCE_LOCK_MAX_LIVE_TIME (spec §3.5): a ProcessQueue's lock counts as expired once
 * more than this has passed since its last refresh (`now − lastLockTimestamp > 30000`).
 */
export const LOCK_MAX_LIVE_US = 30_000_000;

/** A lock state as the client sees it (§3.5, §8.3): held, expired (not refreshed for 30 s), or not locked. */
export type LockState = "held" | "expired" | "not locked";

/**
 * What the owner reported, as recorded: "held" from a refresh on (`refreshedUs`: its last refresh; it
 * turns expired LOCK_MAX_LIVE_US after that unless refreshed again), or "not locked". Expired stretches
 * are derived when read (lockTimeline), since nothing reports them.
 */
export interface LockSegment {
  state: "held" | "not locked";
  fromUs: number;
  toUs: number | null;
  refreshedUs: number;
}

/** A stretch of one owner's lock state. */
export interface LockSpan {
  state: LockState;
  fromUs: number;
  /** null: still so at the end of the run. */
  toUs: number | null;
}

export interface OwnerInterval {
  clientId: string;
  consumer: number; // consumer address (incarnation)
  fromUs: number;
  toUs: number | null;
  /** Successful consumptions of already-consumed messages by this owner during this interval. */
  duplicates: number;
  /** Lock segments (orderly consumption), created by the owner's first lock report; absent: never locked. */
  lock?: LockSegment[];
}

interface QueueOwnership {
  intervals: OwnerInterval[];
  owners: number;
  orphanSinceUs: number; // −1 while owned
  orphanUs: number;
}

export class Ownership {
  private readonly byKey = new Map<number, QueueOwnership>();

  private entry(group: number, mq: number): QueueOwnership {
    const key = group * 1048576 + mq;
    let e = this.byKey.get(key);
    if (!e) {
      e = { intervals: [], owners: 0, orphanSinceUs: 0, orphanUs: 0 };
      this.byKey.set(key, e);
    }
    return e;
  }

  /** The consumer's open interval on the queue, if it holds it. */
  private openInterval(group: number, mq: number, consumer: number): OwnerInterval | undefined {
    const e = this.byKey.get(group * 1048576 + mq);
    if (!e) return undefined;
    for (let i = e.intervals.length - 1; i >= 0; i--) {
      const iv = e.intervals[i]!;
      if (iv.consumer === consumer && iv.toUs === null) return iv;
    }
    return undefined;
  }

  open(group: number, mq: number, consumer: number, clientId: string, nowUs: number): void {
    const e = this.entry(group, mq);
    if (e.owners === 0 && e.orphanSinceUs >= 0) e.orphanUs += nowUs - e.orphanSinceUs;
    e.owners++;
    e.orphanSinceUs = -1;
    e.intervals.push({ clientId, consumer, fromUs: nowUs, toUs: null, duplicates: 0 });
  }

  close(group: number, mq: number, consumer: number, nowUs: number): void {
    const iv = this.openInterval(group, mq, consumer);
    if (iv === undefined) return;
    iv.toUs = nowUs;
    const last = iv.lock?.at(-1);
    if (last !== undefined && last.toUs === null) last.toUs = nowUs;
    const e = this.entry(group, mq);
    e.owners--;
    if (e.owners === 0) e.orphanSinceUs = nowUs;
  }

  duplicate(group: number, mq: number, consumer: number): void {
    const e = this.byKey.get(group * 1048576 + mq);
    if (!e) return;
    for (let i = e.intervals.length - 1; i >= 0; i--) {
      const iv = e.intervals[i]!;
      if (iv.consumer === consumer) {
        iv.duplicates++;
        return;
      }
    }
  }

  /**
   * The owner's ProcessQueue is locked as of now (§8.5: a lock or lockAll reply named it). A refresh
   * within LOCK_MAX_LIVE_US of the last one extends the held segment; a later one starts a new segment
   * (the gap in between reads as expired).
   */
  lockRefreshed(group: number, mq: number, consumer: number, nowUs: number): void {
    const iv = this.openInterval(group, mq, consumer);
    if (iv === undefined) return;
    const segs = (iv.lock ??= [{ state: "not locked", fromUs: iv.fromUs, toUs: null, refreshedUs: -1 }]);
    const last = segs.at(-1)!;
    if (last.state === "held" && nowUs - last.refreshedUs <= LOCK_MAX_LIVE_US) {
      last.refreshedUs = nowUs;
      return;
    }
    pushSegment(segs, { state: "held", fromUs: nowUs, toUs: null, refreshedUs: nowUs });
  }

  /** The owner's ProcessQueue is no longer locked (pq.locked false: lockAll left it out, or it was unlocked). */
  lockLost(group: number, mq: number, consumer: number, nowUs: number): void {
    const iv = this.openInterval(group, mq, consumer);
    const last = iv?.lock?.at(-1);
    if (last === undefined || last.state === "not locked") return;
    pushSegment(iv!.lock!, { state: "not locked", fromUs: nowUs, toUs: null, refreshedUs: -1 });
  }

  intervals(group: number, mq: number): readonly OwnerInterval[] {
    return this.byKey.get(group * 1048576 + mq)?.intervals ?? [];
  }

  /**
   * Seconds without any owner up to `nowUs` (from the start of the run), leaving out `unreadable` spans
   * ([from, to) pairs: the broker's topic config let nobody read the queue, issue 19) — a queue retired by
   * a shrink of readQueueNums or an unreadable broker is not an orphan.
   */
  orphanSeconds(group: number, mq: number, nowUs: number, unreadable: readonly number[] = []): number {
    const e = this.byKey.get(group * 1048576 + mq);
    const total = !e ? nowUs : e.orphanUs + (e.owners === 0 && e.orphanSinceUs >= 0 ? nowUs - e.orphanSinceUs : 0);
    if (unreadable.length === 0) return total / 1e6;
    // Unowned and unreadable at once: the parts of each unreadable span no owner interval covers.
    let overlap = 0;
    for (let i = 0; i < unreadable.length; i += 2) overlap += uncovered(unreadable[i]!, unreadable[i + 1]!, e?.intervals ?? [], nowUs);
    return (total - overlap) / 1e6;
  }

  /** Owner intervals started after a queue's first owner: every move of a queue between consumers. */
  changes(): number {
    let n = 0;
    for (const e of this.byKey.values()) n += Math.max(0, e.intervals.length - 1);
    return n;
  }
}

/** Ends the last segment at the new one's start and appends it; a last segment of no length is replaced. */
function pushSegment(segs: LockSegment[], seg: LockSegment): void {
  const last = segs.at(-1)!;
  if (last.fromUs === seg.fromUs) segs.pop();
  else last.toUs = seg.fromUs;
  segs.push(seg);
}

/**
 * An owner interval's lock states up to `nowUs`, in order: a held segment turns expired
 * LOCK_MAX_LIVE_US after its last refresh if nothing ended it before. An owner that never reported a
 * lock was not locked throughout.
 */
export function lockTimeline(iv: OwnerInterval, nowUs: number): LockSpan[] {
  if (iv.lock === undefined) return [{ state: "not locked", fromUs: iv.fromUs, toUs: iv.toUs }];
  const out: LockSpan[] = [];
  for (const seg of iv.lock) {
    const lapseUs = seg.refreshedUs + LOCK_MAX_LIVE_US;
    if (seg.state === "held" && lapseUs < (seg.toUs ?? nowUs)) {
      out.push({ state: "held", fromUs: seg.fromUs, toUs: lapseUs }, { state: "expired", fromUs: lapseUs, toUs: seg.toUs });
    } else {
      out.push({ state: seg.state, fromUs: seg.fromUs, toUs: seg.toUs });
    }
  }
  return out;
}

/** The time in [from, to) covered by no interval of `intervals` (an open one runs to `nowUs`). */
function uncovered(from: number, to: number, intervals: readonly OwnerInterval[], nowUs: number): number {
  const cuts: [number, number][] = [];
  for (const iv of intervals) {
    const a = Math.max(from, iv.fromUs);
    const b = Math.min(to, iv.toUs ?? nowUs);
    if (b > a) cuts.push([a, b]);
  }
  cuts.sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let end = from;
  for (const [a, b] of cuts) {
    if (b <= end) continue;
    covered += b - Math.max(a, end);
    end = b;
  }
  return to - from - covered;
}

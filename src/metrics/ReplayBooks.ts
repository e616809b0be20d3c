// Why each duplicate was consumed again. A duplicate is a message a fate subject consumed successfully
// before; here each one is put down to one cause (REPLAY_CAUSES), so per group the causes sum to its
// duplicates exactly:
//   - retryReplay: the consumed copy is one a delay level delivered although some node of the group had
//     delivered it already (a new master, or a restarted one, replaying since its delay-offset table,
//     broker spec §6.4) — or the other copy of such a message, when the replayed one was consumed first;
//   - otherwise the cause of the consuming owner's segment of the queue, fixed when its start offset was
//     chosen (startOffsetChosen):
//       reset     — no stored offset was used (consumeFromWhere placed it) and the start is at or below an
//                   offset already consumed, or an OFFSET_ILLEGAL fix had moved the queue back so;
//       rollback  — a stored offset below the highest any node ever stored for (group, queue): the
//                   answering node's table was stale (a master back from a crash, a promoted slave);
//       rebalance — the stored offset was the newest: what is replayed is the consumed-but-uncommitted
//                   tail a restart or a reassignment leaves behind.
// When the broker's replay report names only the retry queue's offset (not the message), a replayed copy
// that fails and is sent back again is not followed: the copy it leads to counts as its owner segment's.
// With the message's origin key (retryReplayed's optional arguments) every replay is followed.
//
// Everything is kept per (group, queue) in typed arrays; commits (one per pull) and consumptions cost
// O(1) and allocate nothing. Observers only record.
import { REPLAY_CAUSES, type ReplayCause } from "../scenario/vocabulary.ts";

export type ReplayCounts = Record<ReplayCause, number>;

const ROLLBACK = REPLAY_CAUSES.indexOf("rollback");
const RESET = REPLAY_CAUSES.indexOf("reset");
const REBALANCE = REPLAY_CAUSES.indexOf("rebalance");
const RETRY_REPLAY = REPLAY_CAUSES.indexOf("retryReplay");
const CAUSES = REPLAY_CAUSES.length;

/** One owner's stretch of a queue: its consumer address and the cause its start gave. */
interface Segment {
  consumer: number;
  cause: number;
}

export class ReplayBooks {
  /** Per (group, queue): the highest offset any node stored as committed; −1 none. */
  private readonly committedMax: Float64Array;
  /** Per (group, queue): the highest offset consumed; −1 none. */
  private readonly consumedMax: Float64Array;
  /** Per (group, queue): an OFFSET_ILLEGAL fix moved the queue back; the next start is a reset. */
  private readonly resetPending: Uint8Array;
  /** Per (group, queue): each owner's latest segment (owners are few: one per incarnation that held it). */
  private readonly segments = new Map<number, Segment[]>();
  /** Per retry queue: offsets a replayed delivery stored. */
  private readonly replayed = new Map<number, Set<number>>();
  /** Per group: origin keys whose replayed copy was consumed first, so their next duplicate is the replay's. */
  private readonly owed: Map<number, number>[];
  /** Per group × cause (REPLAY_CAUSES order). */
  private readonly counts: Float64Array;

  constructor(
    groups: number,
    private readonly queues: number,
  ) {
    this.committedMax = new Float64Array(groups * queues).fill(-1);
    this.consumedMax = new Float64Array(groups * queues).fill(-1);
    this.resetPending = new Uint8Array(groups * queues);
    this.owed = Array.from({ length: groups }, () => new Map<number, number>());
    this.counts = new Float64Array(groups * CAUSES);
  }

  /** A node stored `offset` as (group, mq)'s committed offset. */
  committed(group: number, mq: number, offset: number): void {
    const k = group * this.queues + mq;
    if (offset > this.committedMax[k]!) this.committedMax[k] = offset;
  }

  /**
   * A delay level's delivery into retry queue `mq` at `offset` repeats one some node had made. With the
   * message's group and origin key the replay is followed by message: its one extra copy (whichever
   * copy, sent back again or not, succeeds second) is the replay's duplicate.
   */
  retryReplayed(mq: number, offset: number, group?: number, originKey?: number): void {
    if (group !== undefined && originKey !== undefined) {
      this.owe(group, originKey);
      return;
    }
    let set = this.replayed.get(mq);
    if (set === undefined) this.replayed.set(mq, (set = new Set()));
    set.add(offset);
  }

  /** A crash lost [from, to) of `mq`: those offsets will be reused, so nothing at or past `from` was committed or consumed. */
  truncated(mq: number, from: number): void {
    for (let k = mq; k < this.committedMax.length; k += this.queues) {
      if (this.committedMax[k]! > from) this.committedMax[k] = from;
      if (this.consumedMax[k]! > from - 1) this.consumedMax[k] = from - 1;
    }
  }

  /** A new owner segment of (group, mq) starts at `offset` (see the causes above). */
  started(group: number, mq: number, offset: number, fromStoredOffset: boolean, consumer: number): void {
    const k = group * this.queues + mq;
    let cause = REBALANCE;
    // Without a stored offset the start replays only if it is at or below something consumed (a group's
    // first start, or LAST_OFFSET, replays nothing).
    if (this.resetPending[k] === 1 || (!fromStoredOffset && offset <= this.consumedMax[k]!)) cause = RESET;
    else if (fromStoredOffset && offset < this.committedMax[k]!) cause = ROLLBACK;
    this.resetPending[k] = 0;
    let segs = this.segments.get(k);
    if (segs === undefined) this.segments.set(k, (segs = []));
    const seg = segs.find((s) => s.consumer === consumer);
    if (seg === undefined) segs.push({ consumer, cause });
    else seg.cause = cause;
  }

  /** An OFFSET_ILLEGAL fix moved (group, mq) to `offset`: backwards if a message at or past it was consumed. */
  skipped(group: number, mq: number, offset: number): void {
    const k = group * this.queues + mq;
    if (offset <= this.consumedMax[k]!) this.resetPending[k] = 1;
  }

  /** A successful consumption; `duplicate`: the subject had consumed the message before. */
  consumed(group: number, mq: number, offset: number, originKey: number, consumer: number, duplicate: boolean): void {
    const k = group * this.queues + mq;
    if (offset > this.consumedMax[k]!) this.consumedMax[k] = offset;
    const replayedCopy = this.replayed.size > 0 && this.replayed.get(mq)?.has(offset) === true;
    if (!duplicate) {
      if (replayedCopy) this.owe(group, originKey);
      return;
    }
    this.counts[group * CAUSES + (replayedCopy || this.takeOwed(group, originKey) ? RETRY_REPLAY : this.segmentCause(k, consumer))]!++;
  }

  /** Group `group`'s duplicates by cause. */
  countsOf(group: number): ReplayCounts {
    const out = {} as ReplayCounts;
    REPLAY_CAUSES.forEach((c, i) => (out[c] = this.counts[group * CAUSES + i]!));
    return out;
  }

  private owe(group: number, originKey: number): void {
    const owed = this.owed[group]!;
    owed.set(originKey, (owed.get(originKey) ?? 0) + 1);
  }

  private takeOwed(group: number, originKey: number): boolean {
    const owed = this.owed[group]!;
    if (owed.size === 0) return false;
    const n = owed.get(originKey);
    if (n === undefined) return false;
    if (n > 1) owed.set(originKey, n - 1);
    else owed.delete(originKey);
    return true;
  }

  /** The cause of the consumer's latest segment of the queue; rebalance if it never started one. */
  private segmentCause(k: number, consumer: number): number {
    const segs = this.segments.get(k);
    if (segs !== undefined) for (let i = segs.length - 1; i >= 0; i--) if (segs[i]!.consumer === consumer) return segs[i]!.cause;
    return REBALANCE;
  }
}

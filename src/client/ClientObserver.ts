// What consumer instances tell whoever keeps the run's books (the metrics layer), and the counters they
// keep for it. Observers only record; nothing they do may change what a consumer does.
import { Histogram } from "../sim/Histogram.ts";
import { PullCodeCounts } from "./pullCodes.ts";

export interface ClientObserver {
  /** A listener call returned CONSUME_SUCCESS for the message at (mq, offset). */
  consumed(group: number, mq: number, offset: number, originKey: number, originBornUs: number, consumerAddr: number, nowUs: number): void;
  /** A ProcessQueue was created: the instance owns the queue from now on. */
  queueOpened(group: number, mq: number, consumerAddr: number, clientId: string, nowUs: number): void;
  /** A ProcessQueue was dropped (or its instance stopped). */
  queueClosed(group: number, mq: number, consumerAddr: number, nowUs: number): void;
  /** A rebalance changed the instance's assignment of a topic (a chart marker). */
  assignmentChanged(nowUs: number, label: string): void;
  /** An OFFSET_ILLEGAL fix moved the group's offset to `offset`: messages below it it had not settled are skipped. */
  offsetSkipped(group: number, mq: number, offset: number, consumerAddr?: number): void;
  /**
   * An operator's offset reset (resetOffset fault) set the group's offset of `mq` to `offset`: below it,
   * what the group has not settled is skipped (not lost); at or below something consumed, the queue replays.
   */
  offsetReset?(group: number, mq: number, offset: number, consumerAddr?: number): void;
  /**
   * A new ProcessQueue starts pulling `mq` at `offset` (§10.6): the broker's stored offset for the group
   * (fromStoredOffset, including its "start at 0" answer) or, with none stored, where consumeFromWhere
   * put it — then the messages below it the group has not settled are skipped at start.
   */
  startOffsetChosen(group: number, mq: number, offset: number, fromStoredOffset: boolean, consumerAddr?: number): void;
  /** BROADCASTING: a listener call failed and its message was dropped (§7.3: no send-back, no retry). */
  consumeDropped(group: number, mq: number, offset: number, originKey: number, consumerAddr: number, nowUs: number): void;
  /**
   * Orderly, CLUSTERING: the instance's ProcessQueue for `mq` is locked at the broker as of now
   * (pq.locked true, lastLockTimestamp refreshed, §8.5). Until the next refresh it counts as held for
   * REBALANCE_LOCK_MAX_LIVE_TIME (30 s), then as expired (§3.5).
   */
  lockRefreshed(group: number, mq: number, consumerAddr: number, nowUs: number): void;
  /** Orderly, CLUSTERING: lockAll's answer left `mq` out, or its removal unlocked it (pq.locked false). */
  lockLost(group: number, mq: number, consumerAddr: number, nowUs: number): void;
  /** Orderly: a listener call on the queue's head (first taken offset) returned SUSPEND_CURRENT_QUEUE_A_MOMENT. */
  orderlySuspended(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void;
  /** Orderly: the queue's consumed offset moved to `offset` (pq.commit(), the next offset to consume, §8.4). */
  orderlyCommitted(group: number, mq: number, offset: number, consumerAddr: number, nowUs: number): void;
}

/** Counters every consumer instance of a run adds to (one object per run). */
export class ClientStats {
  /** Flow-control events by kind: count, size, span, paused (FLOW_KIND order). */
  readonly flowControl = new Float64Array(4);
  readonly pulls = { found: 0, noNewMsg: 0, noMatchedMsg: 0, offsetIllegal: 0, exception: 0 };
  /** The same pulls per group by response code (summary groups[].pulls.byCode). */
  readonly pullCodes = new PullCodeCounts();
  /** Exact maxima of one ProcessQueue's cache, taken right after each put. */
  pqCountMax = 0;
  pqBytesMax = 0;
  /** Time a consume task waited for a worker, and listener call durations, µs. */
  readonly consumeWait = new Histogram();
  readonly consumeTime = new Histogram();

  get pullsTotal(): number {
    const p = this.pulls;
    return p.found + p.noNewMsg + p.noMatchedMsg + p.offsetIllegal + p.exception;
  }
}

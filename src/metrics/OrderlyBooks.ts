// Orderly consumption's books (spec §8): per (fate subject, queue), how often a listener call on the
// queue's head returned SUSPEND_CURRENT_QUEUE_A_MOMENT, and how long a head message stayed blocked.
//
// A block starts at the first suspend of an offset while none is open on the queue, and ends when the
// consume position moves past that offset (pq.commit(), §8.4: orderlyCommitted with a greater offset)
// or the message is consumed. The queue is blocked whoever owns it: a head that moves to another owner
// and is suspended there again is the same block. A block still open counts up to the end of the run.
// Keyed by fate subject, so a BROADCASTING group's instances (each with its own head) block on their own.

interface QueueBlocks {
  suspends: number;
  /** The blocked head's offset, −1 when no block is open. */
  blockedOffset: number;
  blockedSinceUs: number;
  longestUs: number;
}

export class OrderlyBooks {
  private readonly byKey = new Map<number, QueueBlocks>();

  private entry(subject: number, mq: number): QueueBlocks {
    const key = subject * 1048576 + mq;
    let e = this.byKey.get(key);
    if (!e) {
      e = { suspends: 0, blockedOffset: -1, blockedSinceUs: 0, longestUs: 0 };
      this.byKey.set(key, e);
    }
    return e;
  }

  /** A listener call on the head at `offset` returned SUSPEND_CURRENT_QUEUE_A_MOMENT. */
  suspended(subject: number, mq: number, offset: number, nowUs: number): void {
    const e = this.entry(subject, mq);
    e.suspends++;
    if (e.blockedOffset < 0) {
      e.blockedOffset = offset;
      e.blockedSinceUs = nowUs;
    }
  }

  /** The consume position moved to `offset` (the next offset to consume). */
  committed(subject: number, mq: number, offset: number, nowUs: number): void {
    const e = this.byKey.get(subject * 1048576 + mq);
    if (e !== undefined && e.blockedOffset >= 0 && offset > e.blockedOffset) this.unblock(e, nowUs);
  }

  /** The message at `offset` was consumed. */
  consumed(subject: number, mq: number, offset: number, nowUs: number): void {
    const e = this.byKey.get(subject * 1048576 + mq);
    if (e !== undefined && e.blockedOffset === offset) this.unblock(e, nowUs);
  }

  private unblock(e: QueueBlocks, nowUs: number): void {
    e.longestUs = Math.max(e.longestUs, nowUs - e.blockedSinceUs);
    e.blockedOffset = -1;
  }

  /** Suspends on the queue so far. */
  suspends(subject: number, mq: number): number {
    return this.byKey.get(subject * 1048576 + mq)?.suspends ?? 0;
  }

  /** The longest head block on the queue, µs, an open one counted up to `nowUs`. */
  longestBlockUs(subject: number, mq: number, nowUs: number): number {
    const e = this.byKey.get(subject * 1048576 + mq);
    if (e === undefined) return 0;
    return Math.max(e.longestUs, e.blockedOffset >= 0 ? nowUs - e.blockedSinceUs : 0);
  }

  /** The offset of the head blocked now, or −1. */
  blockedOffset(subject: number, mq: number): number {
    return this.byKey.get(subject * 1048576 + mq)?.blockedOffset ?? -1;
  }
}

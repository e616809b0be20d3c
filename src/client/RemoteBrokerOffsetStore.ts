// RemoteBrokerOffsetStore, spec §12.1: the consumer's in-memory offsets, committed to the broker by
// oneway UPDATE_CONSUMER_OFFSET messages. Keyed by global queue index. Broker reads (READ_FROM_STORE)
// are asynchronous in the simulator and live in the rebalance code that needs them.

/** Where persist() sends its oneway updates. */
export interface OffsetCommitter {
  commitOffset(queueIndex: number, offset: number): void;
}

export const enum ReadOffsetType {
  READ_FROM_MEMORY = 0,
  MEMORY_FIRST_THEN_STORE = 1,
}

export class RemoteBrokerOffsetStore {
  protected readonly values = new Map<number, number>();
  /** Queues whose entry is frozen by updateAndFreezeOffset (5.2.0+, ControllableOffset). */
  protected readonly frozen = new Set<number>();

  constructor(private readonly committer: OffsetCommitter) {}

  /** updateOffset(mq, offset, increaseOnly). */
  updateOffset(mq: number, offset: number, increaseOnly: boolean): void {
    const old = this.values.get(mq);
    if (old === undefined) {
      this.values.set(mq, offset);
      return;
    }
    if (this.frozen.has(mq)) return;
    this.values.set(mq, increaseOnly ? Math.max(old, offset) : offset);
  }

  /** updateAndFreezeOffset(mq, offset): set, then ignore later updates until removeOffset. */
  updateAndFreezeOffset(mq: number, offset: number): void {
    this.values.set(mq, offset);
    this.frozen.add(mq);
  }

  /** readOffset(mq, READ_FROM_MEMORY): the value or −1 if absent. */
  readOffset(mq: number): number {
    return this.values.get(mq) ?? -1;
  }

  /** persistAll(mqs): commit entries of queues in `mqs`, forget the others. Empty mqs: nothing. */
  persistAll(mqs: ReadonlySet<number>): void {
    if (mqs.size === 0) return;
    // Sorted so the order of oneway messages is independent of insertion history.
    const keys = [...this.values.keys()].sort((a, b) => a - b);
    for (const mq of keys) {
      if (mqs.has(mq)) this.committer.commitOffset(mq, this.values.get(mq)!);
      else {
        this.values.delete(mq);
        this.frozen.delete(mq);
      }
    }
  }

  /** persist(mq): oneway commit of that entry if present. */
  persist(mq: number): void {
    const v = this.values.get(mq);
    if (v !== undefined) this.committer.commitOffset(mq, v);
  }

  /** removeOffset(mq): drop the entry and any freeze. No broker call. */
  removeOffset(mq: number): void {
    this.values.delete(mq);
    this.frozen.delete(mq);
  }

  /** Entries, for accounting (sorted by queue index). */
  entries(): [number, number][] {
    return [...this.values.entries()].sort((a, b) => a[0] - b[0]);
  }
}

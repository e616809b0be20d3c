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

const ABSENT = 0;
const PRESENT = 1;
/** An entry frozen by updateAndFreezeOffset (5.2.0+, ControllableOffset): later updates are ignored. */
const FROZEN = 2;

/**
 * queue → offset by global queue index, in two packed arrays rather than a Map: it is read on every pull
 * and written on every consumed batch. The part of the Map interface the stores use; keys() ascends.
 */
export class OffsetTable {
  private readonly offsets: number[] = [];
  /** ABSENT, PRESENT or FROZEN per queue index. */
  private readonly states: number[] = [];

  /** ABSENT, PRESENT or FROZEN. */
  stateOf(mq: number): number {
    return mq < this.states.length ? this.states[mq]! : ABSENT;
  }

  /** The entry's offset, or `absent` when there is none. */
  read(mq: number, absent: number): number {
    return mq < this.states.length && this.states[mq] !== ABSENT ? this.offsets[mq]! : absent;
  }

  get(mq: number): number | undefined {
    return this.stateOf(mq) === ABSENT ? undefined : this.offsets[mq]!;
  }

  /** Sets the entry's offset; an entry's freeze is kept (as the Map and Set pair did). */
  set(mq: number, offset: number): void {
    while (this.states.length <= mq) {
      this.states.push(ABSENT);
      this.offsets.push(0);
    }
    this.offsets[mq] = offset;
    if (this.states[mq] === ABSENT) this.states[mq] = PRESENT;
  }

  /** Sets the entry's offset and freezes it. */
  setFrozen(mq: number, offset: number): void {
    this.set(mq, offset);
    this.states[mq] = FROZEN;
  }

  /** Drops the entry and its freeze. */
  delete(mq: number): void {
    if (mq < this.states.length) this.states[mq] = ABSENT;
  }

  /** The queues with an entry, ascending. */
  keys(): number[] {
    const out: number[] = [];
    for (let mq = 0; mq < this.states.length; mq++) if (this.states[mq] !== ABSENT) out.push(mq);
    return out;
  }
}

export class RemoteBrokerOffsetStore {
  protected readonly values = new OffsetTable();

  constructor(private readonly committer: OffsetCommitter) {}

  /** updateOffset(mq, offset, increaseOnly). */
  updateOffset(mq: number, offset: number, increaseOnly: boolean): void {
    const values = this.values;
    const state = values.stateOf(mq);
    if (state === ABSENT) {
      values.set(mq, offset);
      return;
    }
    if (state === FROZEN) return;
    values.set(mq, increaseOnly ? Math.max(values.read(mq, 0), offset) : offset);
  }

  /** updateAndFreezeOffset(mq, offset): set, then ignore later updates until removeOffset. */
  updateAndFreezeOffset(mq: number, offset: number): void {
    this.values.setFrozen(mq, offset);
  }

  /** readOffset(mq, READ_FROM_MEMORY): the value or −1 if absent. */
  readOffset(mq: number): number {
    return this.values.read(mq, -1);
  }

  /** persistAll(mqs): commit entries of queues in `mqs`, forget the others. Empty mqs: nothing. */
  persistAll(mqs: ReadonlySet<number>): void {
    if (mqs.size === 0) return;
    // In queue order, so the order of oneway messages is independent of insertion history.
    for (const mq of this.values.keys()) {
      if (mqs.has(mq)) this.committer.commitOffset(mq, this.values.get(mq)!);
      else this.values.delete(mq);
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
  }

  /** Entries, for accounting (sorted by queue index). */
  entries(): [number, number][] {
    return this.values.keys().map((mq) => [mq, this.values.get(mq)!]);
  }
}

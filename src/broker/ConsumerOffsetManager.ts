// ConsumerOffsetManager (spec §13.6): the committed offset of every (group, queue), and the copy last
// flushed to disk every flushConsumerOffsetInterval — what a restarted broker comes back with.
import type { Trace } from "../sim/Trace.ts";
import type { BrokerTrace } from "./trace.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";

/** consumerOffsetUpdateVersionStep: commits per DataVersion bump (broker spec §4.10). */
export const CONSUMER_OFFSET_UPDATE_VERSION_STEP = 500;

/** Offset table key of (group, global queue index). */
export function offsetKey(group: number, mq: number): number {
  return group * 1048576 + mq;
}

/** 2^20: offsetKey's group stride (global queue indexes stay below it). */
const GROUP_STRIDE = 1048576;

export class ConsumerOffsetManager {
  /**
   * The table, as a Map would keep it without the hashing every pull's commit would pay: its keys in the
   * order they were first set (the Map order snapshot and flush hand on), their offsets, and each key's
   * place by [group][mq].
   */
  private keys: number[] = [];
  private values: number[] = [];
  private places: (number[] | undefined)[] = [];
  private flushed = new Map<number, number>();
  /**
   * [5.x] The table's DataVersion counter, bumped every consumerOffsetUpdateVersionStep (500) commits
   * and persisted with it; a slave adopts its master's at each sync (broker spec §4.10).
   */
  dataVersion = 0;
  private flushedVersion = 0;
  private commitsSinceBump = 0;

  constructor(
    private readonly trace: Trace,
    private readonly T: BrokerTrace,
    private readonly observer?: BrokerObserver,
  ) {}

  /** commitOffset: by UPDATE_CONSUMER_OFFSET (viaPull 0) or a pull's piggy-backed offset (viaPull 1). */
  commitOffset(group: number, mq: number, offset: number, viaPull: number, nowUs: number): void {
    this.set(group, mq, offset);
    if (++this.commitsSinceBump >= CONSUMER_OFFSET_UPDATE_VERSION_STEP) {
      this.commitsSinceBump = 0;
      this.dataVersion++;
    }
    this.observer?.offsetCommitted?.(group, mq, offset);
    this.trace.emit(this.T.offsetCommit, nowUs, mq, group, offset, viaPull);
  }

  private set(group: number, mq: number, offset: number): void {
    let row = this.places[group];
    if (row === undefined) {
      row = [];
      this.places[group] = row;
    }
    const place = row[mq];
    if (place !== undefined) {
      this.values[place] = offset;
      return;
    }
    row[mq] = this.keys.length;
    this.keys.push(offsetKey(group, mq));
    this.values.push(offset);
  }

  /** The entry of an offsetKey (a table read from elsewhere). */
  private setKey(key: number, offset: number): void {
    const group = Math.floor(key / GROUP_STRIDE);
    this.set(group, key - group * GROUP_STRIDE, offset);
  }

  /** queryOffset: the committed offset, −1 if none. */
  queryOffset(group: number, mq: number): number {
    const row = this.places[group];
    const place = row === undefined ? undefined : row[mq];
    return place === undefined ? -1 : this.values[place]!;
  }

  /** The table as a Map, in the order its keys were first set. */
  private toMap(): Map<number, number> {
    const m = new Map<number, number>();
    for (let i = 0; i < this.keys.length; i++) m.set(this.keys[i]!, this.values[i]!);
    return m;
  }

  /** persist(): the table as it is now is what a restart will find. */
  flush(): void {
    this.flushed = this.toMap();
    this.flushedVersion = this.dataVersion;
  }

  /** Offsets committed since the last flush (lost if the broker crashes now). */
  /** The offset of (group, mq) as last flushed (what a restart brings back), −1 if none. */
  flushedOffset(group: number, mq: number): number {
    return this.flushed.get(offsetKey(group, mq)) ?? -1;
  }

  unflushedCount(): number {
    let n = 0;
    for (let i = 0; i < this.keys.length; i++) if (this.flushed.get(this.keys[i]!) !== this.values[i]) n++;
    return n;
  }

  /** encode(): a copy of the in-memory table (what a slave's SlaveSynchronize fetches, broker spec §4.7). */
  snapshot(): Map<number, number> {
    return this.toMap();
  }

  /**
   * syncConsumerOffset (broker spec §4.7): the master's entries replace this node's, entries the master
   * lacks are kept, and the table is persisted. (RocketMQ replaces per topic@group key the whole queue
   * map; the model per queue — they differ only for a queue the master never had an offset for.)
   */
  syncFrom(master: ReadonlyMap<number, number>, dataVersion = this.dataVersion): void {
    for (const [k, v] of master) this.setKey(k, v);
    this.dataVersion = dataVersion;
    this.commitsSinceBump = 0;
    this.flush();
  }

  /** Entries in the table (offsets this node holds). */
  get size(): number {
    return this.keys.length;
  }

  /** A restarted broker loads the last flushed table. */
  restore(): void {
    this.keys = [];
    this.values = [];
    this.places = [];
    for (const [k, v] of this.flushed) this.setKey(k, v);
    this.dataVersion = this.flushedVersion;
    this.commitsSinceBump = 0;
  }
}

// What became of every original message, per consumer group: consumed (how often), sent back into the
// retry chain, dead-lettered, lost, or filtered out by the group's tags. Kept here, apart from the
// broker's store, as a few bits per (group, message) in chunked columns per (group, scenario queue). A
// column frees a chunk once the broker no longer stores its messages (nobody can read them again, so
// their fates cannot change) and every message in it is resolved; messages still in the retry chain
// then move to a side table.
import { keyOffset, keyQueue, messageKey } from "../broker/QueueStore.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";

export const FATE_COUNT_MASK = 0x1f; // successful consumes, saturating at 31
export const FATE_RETRYING = 0x20; // sent back at least once: copies of it may be in the retry chain
export const FATE_LOST = 0x40; // deleted by retention (or skipped by an offset reset) while unconsumed
export const FATE_DLQ = 0x80; // ended in %DLQ%<group>
export const FATE_FILTERED = 0x100; // the group's tag filter excludes it: never delivered
/** Fate bits that settle a message as far as the group's progress goes (storage may go). */
export const FATE_RESOLVED = FATE_COUNT_MASK | FATE_RETRYING | FATE_LOST | FATE_DLQ | FATE_FILTERED;

/** Per consumer group, the fate of every original message of its subscribed topics. */
export class GroupFates {
  /** Messages appended to a subscribed topic. */
  produced = 0;
  /** Of those, messages the group's tag filter excludes (never delivered). */
  filtered = 0;
  /** Messages consumed successfully at least once. */
  consumed = 0;
  /** Successful consumptions beyond a message's first. */
  duplicates = 0;
  /** Messages ending in %DLQ%<group> (never consumed successfully). */
  dlq = 0;
  /** Messages deleted by retention before any successful consumption (and not in the retry chain). */
  lost = 0;
  /** Successful consumptions, duplicates included. */
  consumeOk = 0;
}

const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

/** One group's fates on one queue. */
export class FateColumn {
  /** Messages stored so far (= the queue's max offset). */
  max = 0;
  /** Every message below is resolved. */
  resolvedUpTo = 0;
  /** Chunk index of chunks[0]. */
  private base = 0;
  private readonly chunks: Uint16Array[] = [];

  get min(): number {
    return this.base << CHUNK_BITS;
  }

  append(offset: number, fate: number): void {
    const ci = (offset >>> CHUNK_BITS) - this.base;
    let c = this.chunks[ci];
    if (c === undefined) {
      c = new Uint16Array(CHUNK);
      this.chunks[ci] = c;
    }
    c[offset & MASK] = fate;
    this.max = offset + 1;
  }

  get(offset: number): number {
    return this.chunks[(offset >>> CHUNK_BITS) - this.base]![offset & MASK]!;
  }

  set(offset: number, fate: number): void {
    this.chunks[(offset >>> CHUNK_BITS) - this.base]![offset & MASK] = fate;
  }

  /**
   * Frees whole chunks below `limit` whose messages are all resolved; `keep` receives every message
   * that was ever sent back: a copy of it may still be consumed, and that consumption must find its
   * fate (first success, or a duplicate, or the undoing of a DLQ verdict).
   */
  compact(limit: number, keep: (offset: number, fate: number) => void): void {
    let o = this.resolvedUpTo;
    while (o < this.max && (this.get(o) & FATE_RESOLVED) !== 0) o++;
    this.resolvedUpTo = o;
    const drop = (Math.min(o, limit) >>> CHUNK_BITS) - this.base;
    if (drop <= 0) return;
    const end = (this.base + drop) << CHUNK_BITS;
    for (let x = this.min; x < end; x++) {
      const fate = this.get(x);
      if ((fate & FATE_RETRYING) !== 0) keep(x, fate);
    }
    this.chunks.splice(0, drop);
    this.base += drop;
  }
}

export class MessageFates {
  /** columns[group][mq]: the group's column on a queue of a topic it subscribes, else undefined. */
  private readonly columns: (FateColumn | undefined)[][];
  /** Per queue: the groups with a column on it, and each one's tag filter. */
  private readonly subscribers: { group: number; tagSet: ReadonlySet<number> | null }[][];
  /** Fates of retry-chain messages whose column chunk was freed, by group × 2^40 + key. */
  readonly retryFates = new Map<number, number>();

  constructor(
    model: Pick<Model, "groups">,
    routes: Routes,
    private readonly counters: readonly GroupFates[],
  ) {
    this.columns = model.groups.map(() => new Array<FateColumn | undefined>(routes.queues.length).fill(undefined));
    this.subscribers = routes.queues.map(() => []);
    for (const g of model.groups) {
      for (const s of g.subscriptions) {
        for (const mq of routes.topicQueues(s.topic)) {
          this.columns[g.index]![mq] = new FateColumn();
          this.subscribers[mq]!.push({ group: g.index, tagSet: s.tagSet });
        }
      }
    }
  }

  /** The group's column on a queue, if it subscribes the queue's topic. */
  column(group: number, mq: number): FateColumn | undefined {
    return this.columns[group]![mq];
  }

  /** A producer's message was stored: every subscribing group now awaits it (or filters it out). */
  stored(mq: number, offset: number, tag: number): void {
    const subs = this.subscribers[mq]!;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      const col = this.columns[s.group]![mq]!;
      const counters = this.counters[s.group]!;
      counters.produced++;
      const filtered = s.tagSet !== null && !s.tagSet.has(tag);
      if (filtered) counters.filtered++;
      col.append(offset, filtered ? FATE_FILTERED : 0);
    }
  }

  /** The broker no longer stores messages of `mq` below `offset`: their columns may go too. */
  reclaimed(mq: number, offset: number): void {
    for (const s of this.subscribers[mq]!) {
      this.columns[s.group]![mq]!.compact(offset, (o, fate) => this.retryFates.set(s.group * 2 ** 40 + messageKey(mq, o), fate));
    }
  }

  /** Fate bits of an original message for a group. */
  fate(group: number, originKey: number): number {
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    if (offset < col.min) return this.retryFates.get(group * 2 ** 40 + originKey) ?? FATE_RETRYING;
    return col.get(offset);
  }

  private write(group: number, originKey: number, value: number): void {
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    if (offset < col.min) this.retryFates.set(group * 2 ** 40 + originKey, value);
    else col.set(offset, value);
  }

  /**
   * A successful listener call for a message (original `originKey`): its first one counts it consumed
   * (undoing a loss or DLQ verdict), later ones are duplicates. Returns true for a duplicate.
   */
  recordConsumed(group: number, originKey: number): boolean {
    const counters = this.counters[group]!;
    const fate = this.fate(group, originKey);
    const count = fate & FATE_COUNT_MASK;
    counters.consumeOk++;
    if (count === 0) {
      counters.consumed++;
      if (fate & FATE_LOST) counters.lost--;
      if (fate & FATE_DLQ) counters.dlq--;
    } else {
      counters.duplicates++;
    }
    const next = (fate & ~(FATE_COUNT_MASK | FATE_LOST | FATE_DLQ)) | Math.min(FATE_COUNT_MASK, count + 1);
    this.write(group, originKey, next);
    return count > 0;
  }

  /** Sent back: its fate now follows its retry copies (until one of them is consumed). */
  markRetrying(group: number, originKey: number): void {
    // Set even on a message already consumed (a duplicate delivery that failed): its copies' fate
    // still needs this message's bits once its chunk is freed. Accounting reads RETRYING only on
    // messages not yet consumed.
    this.write(group, originKey, this.fate(group, originKey) | FATE_RETRYING);
  }

  /** The broker discarded a sent-back message (retryQueueNums 0): it counts as lost. */
  markDropped(group: number, originKey: number): void {
    const fate = this.fate(group, originKey);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ | FATE_LOST)) return;
    this.write(group, originKey, fate | FATE_LOST);
    this.counters[group]!.lost++;
  }

  markDlq(group: number, originKey: number): void {
    const fate = this.fate(group, originKey);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ)) return;
    this.write(group, originKey, fate | FATE_DLQ);
    this.counters[group]!.dlq++;
  }

  /**
   * Marks as lost the messages of [from, to) on a scenario queue that `group` has not settled (not
   * consumed, sent back, dead-lettered, lost, or filtered out): nobody will read them again.
   */
  markLost(group: number, mq: number, from: number, to: number): void {
    const col = this.columns[group]![mq];
    if (col === undefined) return;
    const end = Math.min(to, col.max);
    for (let o = Math.max(from, col.min); o < end; o++) {
      const fate = col.get(o);
      if ((fate & FATE_RESOLVED) !== 0) continue;
      col.set(o, fate | FATE_LOST);
      this.counters[group]!.lost++;
    }
  }

  /** Retention or a truncation deleted [from, to) of a queue: lost for every group that had not settled them. */
  deleted(mq: number, from: number, to: number): void {
    for (const s of this.subscribers[mq]!) this.markLost(s.group, mq, from, to);
  }

  /** Calls fn for every message of the group's column on `mq` still held (end-of-run walks). */
  forEachHeld(group: number, mq: number, fn: (offset: number, fate: number) => void): void {
    const col = this.columns[group]![mq];
    if (col === undefined) return;
    for (let o = col.min; o < col.max; o++) fn(o, col.get(o));
  }

  /** The fate of (group, mq, offset) while its column holds it; −1 below the column. */
  fateAt(group: number, mq: number, offset: number): number {
    const col = this.columns[group]![mq];
    if (col === undefined || offset < col.min || offset >= col.max) return -1;
    return col.get(offset);
  }
}

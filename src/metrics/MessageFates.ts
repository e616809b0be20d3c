// What became of every original message, per consumer group: consumed (how often), sent back into the
// retry chain, dead-lettered, lost, skipped by the group's start offset, or filtered out by its tags.
// Kept here, apart from the broker's store, as a few bits per (group, message) in columns of 4096-message
// chunks per (group, scenario queue). A replay can re-deliver any message the broker retains, so every
// fate stays answerable for the whole run (a re-consumption is a duplicate, message by message); memory
// still follows the backlog, not the history: a chunk whose messages are all resolved turns compact —
// the most common fate plus the exceptions, and a count of the messages in it the group still awaits.
import { keyOffset, keyQueue } from "../broker/QueueStore.ts";
import type { Routes } from "../protocol/routes.ts";
import type { Model } from "../scenario/types.ts";
import { FATE_COUNT_MASK, FATE_DLQ, FATE_FILTERED, FATE_LOST, FATE_RETRYING, FATE_SKIPPED, FateColumn, type AwaitingCount } from "./FateColumn.ts";

export {
  FATE_COUNT_MASK, FATE_DLQ, FATE_FILTERED, FATE_LOST, FATE_RESOLVED, FATE_RETRYING, FATE_SETTLED, FATE_SKIPPED, FateColumn, type AwaitingCount,
} from "./FateColumn.ts";

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
  /** Messages below the offset the group started a queue at with no stored offset, never consumed. */
  skippedAtStart = 0;
  /** Successful consumptions, duplicates included. */
  consumeOk = 0;
}

export class MessageFates {
  /** columns[group][mq]: the group's column on a queue of a topic it subscribes, else undefined. */
  private readonly columns: (FateColumn | undefined)[][];
  /** Per queue: the groups with a column on it, and each one's tag filter. */
  private readonly subscribers: { group: number; tagSet: ReadonlySet<number> | null }[][];

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
      const skipped = !filtered && offset < col.skipBelow;
      if (skipped) counters.lost++;
      col.append(offset, filtered ? FATE_FILTERED : skipped ? FATE_LOST : 0);
    }
  }

  /** Fate bits of an original message for a group. */
  fate(group: number, originKey: number): number {
    return this.columns[group]![keyQueue(originKey)]!.get(keyOffset(originKey));
  }

  /** Takes back a lost or skipped verdict: the message turned up after all (consumed, or a copy lives on). */
  private unlose(group: number, fate: number): number {
    if ((fate & FATE_LOST) !== 0) this.counters[group]!.lost--;
    if ((fate & FATE_SKIPPED) !== 0) this.counters[group]!.skippedAtStart--;
    return fate & ~(FATE_LOST | FATE_SKIPPED);
  }

  /**
   * A successful listener call for a message (original `originKey`): its first one counts it consumed
   * (undoing a loss, skip or DLQ verdict), later ones are duplicates. Returns true for a duplicate.
   */
  recordConsumed(group: number, originKey: number): boolean {
    const counters = this.counters[group]!;
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    let fate = col.get(offset);
    const count = fate & FATE_COUNT_MASK;
    counters.consumeOk++;
    if (count === 0) {
      counters.consumed++;
      if ((fate & FATE_DLQ) !== 0) counters.dlq--;
      fate = this.unlose(group, fate);
    } else {
      counters.duplicates++;
    }
    col.set(offset, (fate & ~(FATE_COUNT_MASK | FATE_DLQ)) | Math.min(FATE_COUNT_MASK, count + 1));
    return count > 0;
  }

  /**
   * Sent back: its fate now follows its retry copies (until one of them is consumed). A message counted
   * lost or skipped while a consumer still held it is neither once its copy is in the retry chain.
   */
  markRetrying(group: number, originKey: number): void {
    // Set even on a message already consumed (a duplicate delivery that failed): a copy's success must
    // then count as a duplicate. Accounting reads RETRYING only on messages not yet settled.
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    col.set(offset, this.unlose(group, col.get(offset)) | FATE_RETRYING);
  }

  /** The broker discarded a sent-back message (retryQueueNums 0): it counts as lost. */
  markDropped(group: number, originKey: number): void {
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const fate = col.get(offset);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ | FATE_LOST)) return;
    col.set(offset, this.unlose(group, fate) | FATE_LOST);
    this.counters[group]!.lost++;
  }

  /** A sent-back message went to %DLQ%<group>: dead-lettered, no longer lost or skipped. */
  markDlq(group: number, originKey: number): void {
    const col = this.columns[group]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const fate = col.get(offset);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ)) return;
    col.set(offset, this.unlose(group, fate) | FATE_DLQ);
    this.counters[group]!.dlq++;
  }

  /**
   * Marks as lost the messages of [from, to) on a scenario queue that `group` has not settled (not
   * consumed, sent back, dead-lettered, lost, skipped or filtered out): nobody will read them again.
   */
  markLost(group: number, mq: number, from: number, to: number): void {
    this.markUnresolved(group, mq, from, to, FATE_LOST);
  }

  /**
   * The group started `mq` at `to` with no stored offset (§10.6: the max offset, a timestamp's offset):
   * the messages below it it has not settled will never be delivered to it.
   */
  markSkippedAtStart(group: number, mq: number, to: number): void {
    this.markUnresolved(group, mq, 0, to, FATE_SKIPPED);
  }

  /** Adds `bit` (LOST or SKIPPED) to the unresolved messages of [from, to): O(unresolved part of the range). */
  private markUnresolved(group: number, mq: number, from: number, to: number, bit: number): void {
    const col = this.columns[group]![mq];
    if (col === undefined) return;
    let marked = 0;
    for (let o = col.nextUnresolved(from, to); o >= 0; o = col.nextUnresolved(o + 1, to)) {
      col.set(o, col.get(o) | bit);
      marked++;
    }
    if (bit === FATE_LOST) this.counters[group]!.lost += marked;
    else this.counters[group]!.skippedAtStart += marked;
  }

  /** Retention or a truncation deleted [from, to) of a queue: lost for every group that had not settled them. */
  deleted(mq: number, from: number, to: number): void {
    for (const s of this.subscribers[mq]!) this.markLost(s.group, mq, from, to);
  }

  /**
   * A crash lost [from, to) of a scenario queue, and `from` will be reused by new messages: for every
   * group, those it had not settled are lost; then the column takes new messages from `from` again.
   */
  truncated(mq: number, from: number, to: number): void {
    for (const s of this.subscribers[mq]!) {
      this.markLost(s.group, mq, from, to);
      const col = this.columns[s.group]![mq]!;
      col.truncate(from);
      // A consumer may have read up to `to` (a pull answered just before the crash): the messages that
      // refill [from, to) arrive lost, since a FOUND at its offset skips them silently (broker spec
      // §3.1); consuming one later (a rewind, 4.9.3's reset to 0, a consumer that was behind) undoes it.
      col.skipBelow = Math.max(col.skipBelow, to);
    }
  }

  /** Messages the group awaits on all its queues: O(compact chunks' counters + the chunks not yet resolved). */
  awaiting(group: number): AwaitingCount {
    const out: AwaitingCount = { awaiting: 0, retrying: 0 };
    for (const col of this.columns[group]!) col?.countAwaiting(out);
    return out;
  }

  /** The fate of (group, mq, offset); −1 if the group has no column on `mq` or the offset is not stored. */
  fateAt(group: number, mq: number, offset: number): number {
    const col = this.columns[group]![mq];
    if (col === undefined || offset < 0 || offset >= col.max) return -1;
    return col.get(offset);
  }
}

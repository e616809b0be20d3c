// What became of every original message, per fate subject: consumed (how often), sent back into the
// retry chain, dead-lettered, lost (dropped, in part), skipped by the start offset, or filtered out by
// the subscription's tags. A subject is whoever is due every message of its topics once: a CLUSTERING
// group as a whole, or one instance slot of a BROADCASTING group (every instance consumes every queue,
// §10.3, so the same message consumed once by each instance is no duplicate).
// Kept here, apart from the broker's store, as a few bits per (subject, message) in columns of 4096-message
// chunks per (subject, scenario queue). A replay can re-deliver any message the broker retains, so every
// fate stays answerable for the whole run (a re-consumption is a duplicate, message by message); memory
// still follows the backlog, not the history: a chunk whose messages are all resolved turns compact —
// the most common fate plus the exceptions, and a count of the messages in it the subject still awaits.
import { keyGen, keyOffset, keyQueue, messageKey } from "../broker/QueueStore.ts";
import { sqlFilterOf, type MessageFilter } from "../broker/messageFilter.ts";
import { clientSlot } from "../protocol/address.ts";
import type { Routes } from "../protocol/routes.ts";
import type { GroupModel, Model } from "../scenario/types.ts";
import {
  FATE_COUNT_MASK, FATE_DLQ, FATE_DROPPED, FATE_FILTERED, FATE_LOST, FATE_RETRYING, FATE_SKIPPED, FateColumn, consumedFate, type AwaitingCount,
} from "./FateColumn.ts";

export {
  FATE_COUNT_MASK, FATE_DLQ, FATE_DROPPED, FATE_FILTERED, FATE_LOST, FATE_RESOLVED, FATE_RETRYING, FATE_SETTLED, FATE_SKIPPED, FateColumn,
  isAwaiting, type AwaitingCount,
} from "./FateColumn.ts";

/** A subject's counters, read-only: what the accounts and the summary read. */
export interface FateCounts {
  readonly produced: number;
  readonly filtered: number;
  readonly consumed: number;
  readonly duplicates: number;
  readonly dlq: number;
  readonly lost: number;
  readonly dropped: number;
  readonly skippedAtStart: number;
  readonly consumeOk: number;
}

/** Per fate subject, the fate of every original message of its subscribed topics. */
export class GroupFates implements FateCounts {
  /** Messages appended to a subscribed topic. */
  produced = 0;
  /** Of those, messages the subscription's tag filter excludes (never delivered). */
  filtered = 0;
  /** Messages consumed successfully at least once. */
  consumed = 0;
  /** Successful consumptions beyond a message's first. */
  duplicates = 0;
  /** Messages ending in %DLQ%<group> (never consumed successfully). */
  dlq = 0;
  /** Messages never consumed successfully that nobody will deliver again: deleted by retention, skipped by
   * an offset reset, dropped (and not in the retry chain). */
  lost = 0;
  /** Of `lost`, the messages dropped after a failed listener call: by a BROADCASTING instance (§7.3), or
   * by the broker discarding a send-back (retryQueueNums 0). */
  dropped = 0;
  /** Messages below the offset a queue was started at with no stored offset, never consumed. */
  skippedAtStart = 0;
  /** Successful consumptions, duplicates included. */
  consumeOk = 0;
}

/** A BROADCASTING group's counters: the sums over its instance subjects, read when asked. */
export class FateTotals implements FateCounts {
  constructor(private readonly parts: readonly FateCounts[]) {}
  private sum(k: keyof FateCounts): number {
    let n = 0;
    for (const p of this.parts) n += p[k];
    return n;
  }
  get produced(): number { return this.sum("produced"); }
  get filtered(): number { return this.sum("filtered"); }
  get consumed(): number { return this.sum("consumed"); }
  get duplicates(): number { return this.sum("duplicates"); }
  get dlq(): number { return this.sum("dlq"); }
  get lost(): number { return this.sum("lost"); }
  get dropped(): number { return this.sum("dropped"); }
  get skippedAtStart(): number { return this.sum("skippedAtStart"); }
  get consumeOk(): number { return this.sum("consumeOk"); }
}

/**
 * Whose fates a set of columns holds. Subject g is group g for a CLUSTERING group and its instance slot 0
 * for a BROADCASTING one; a broadcasting group's other slots follow the groups, in slot order. So a
 * clustering group's subject is its group index, whatever the other groups are.
 */
export interface FateSubject {
  index: number;
  group: number;
  /** The consumer instance slot (BROADCASTING), −1 for a whole CLUSTERING group. */
  slot: number;
  /** The instance number within its group (BROADCASTING), −1 for a whole group. */
  instance: number;
  counters: GroupFates;
}

const isBroadcasting = (g: Pick<GroupModel, "messageModel">) => g.messageModel === "BROADCASTING";

export class MessageFates {
  readonly subjects: FateSubject[] = [];
  /** columns[subject][mq]: the subject's column on a queue of a topic it subscribes, else undefined. */
  private readonly columns: (FateColumn | undefined)[][] = [];
  /** Per queue: the subjects with a column on it, and each one's tag filter. */
  private readonly subscribers: { subject: number; tagSet: ReadonlySet<number> | null; sql: MessageFilter | null }[][];
  /** Per group, its subjects (one for CLUSTERING, one per instance slot for BROADCASTING). */
  private readonly byGroup: number[][];
  /** Per consumer instance slot (Cluster's layout: each group's instancesMax slots in group order), its
   * subject if its group is BROADCASTING, else −1. */
  private readonly bySlot: Int32Array;
  private readonly broadcasting: boolean[];

  constructor(model: Pick<Model, "groups" | "topics" | "seed" | "profile">, routes: Routes) {
    const groups = model.groups;
    this.broadcasting = groups.map(isBroadcasting);
    this.bySlot = new Int32Array(groups.reduce((a, g) => a + g.instancesMax, 0)).fill(-1);
    this.byGroup = groups.map((g) => [g.index]);
    for (const g of groups) this.subjects.push(this.subject(g.index, -1, -1));
    let slot = 0;
    for (const g of groups) {
      for (let i = 0; i < g.instancesMax; i++, slot++) {
        if (!isBroadcasting(g)) continue;
        if (i === 0) {
          Object.assign(this.subjects[g.index]!, { slot, instance: 0 });
          this.bySlot[slot] = g.index;
        } else {
          const s = this.subject(g.index, slot, i);
          this.subjects.push(s);
          this.byGroup[g.index]!.push(s.index);
          this.bySlot[slot] = s.index;
        }
      }
    }
    this.subscribers = routes.queues.map(() => []);
    for (const s of this.subjects) {
      const cols = new Array<FateColumn | undefined>(routes.queues.length).fill(undefined);
      this.columns.push(cols);
      for (const sub of groups[s.group]!.subscriptions) {
        for (const mq of routes.topicQueues(sub.topic)) {
          cols[mq] = new FateColumn();
          this.subscribers[mq]!.push({ subject: s.index, tagSet: sub.tagSet, sql: sqlFilterOf(model, s.group, sub) });
        }
      }
    }
  }

  private subject(group: number, slot: number, instance: number): FateSubject {
    return { index: this.subjects.length, group, slot, instance, counters: new GroupFates() };
  }

  /** A group's subjects: [group] for CLUSTERING, its instance slots' for BROADCASTING. */
  subjectsOf(group: number): readonly number[] {
    return this.byGroup[group]!;
  }

  /**
   * The subject a consumer's report is about: the group (CLUSTERING) or the consumer's instance slot
   * (BROADCASTING, where the report must name its consumer).
   */
  subjectOf(group: number, consumerAddr: number): number {
    if (!this.broadcasting[group]) return group;
    const s = consumerAddr >= 0 ? this.bySlot[clientSlot(consumerAddr)] : undefined;
    if (s === undefined || s < 0 || this.subjects[s]!.group !== group) {
      throw new RangeError(`BROADCASTING group ${group}: consumer address ${consumerAddr} is not one of its instances (its reports must name the instance)`);
    }
    return s;
  }

  /** The subject's column on a queue, if it subscribes the queue's topic. */
  column(subject: number, mq: number): FateColumn | undefined {
    return this.columns[subject]![mq];
  }

  /** A producer's message was stored: every subscribing subject now awaits it (or filters it out). */
  stored(mq: number, offset: number, tag: number): void {
    const subs = this.subscribers[mq]!;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      const col = this.columns[s.subject]![mq]!;
      const counters = this.subjects[s.subject]!.counters;
      counters.produced++;
      // A SQL92 subscription's broker filter decides on the original's properties (messageFilter.ts).
      const filtered = s.sql !== null ? !s.sql.matchesCommitLog(messageKey(mq, offset)) : s.tagSet !== null && !s.tagSet.has(tag);
      if (filtered) counters.filtered++;
      const skipped = !filtered && offset < col.skipBelow;
      if (skipped) counters.lost++;
      col.append(offset, filtered ? FATE_FILTERED : skipped ? FATE_LOST : 0);
    }
  }

  /** Fate bits of an original message for a subject. */
  fate(subject: number, originKey: number): number {
    return this.columns[subject]![keyQueue(originKey)]!.fateOf(keyOffset(originKey), keyGen(originKey));
  }

  /** Takes back a lost (dropped) or skipped verdict: the message turned up after all (consumed, or a copy lives on). */
  private unlose(subject: number, fate: number): number {
    const counters = this.subjects[subject]!.counters;
    if ((fate & FATE_LOST) !== 0) counters.lost--;
    if ((fate & FATE_DROPPED) !== 0) counters.dropped--;
    if ((fate & FATE_SKIPPED) !== 0) counters.skippedAtStart--;
    return fate & ~(FATE_LOST | FATE_DROPPED | FATE_SKIPPED);
  }

  /**
   * A successful listener call for a message (original `originKey`): its first one counts it consumed
   * (undoing a loss, skip or DLQ verdict), later ones are duplicates. Returns true for a duplicate.
   */
  recordConsumed(subject: number, originKey: number): boolean {
    const counters = this.subjects[subject]!.counters;
    const col = this.columns[subject]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const gen = keyGen(originKey);
    // Once per consumed message: the usual case (the queue's current generation) reads and writes the
    // column in one step instead of resolving the generation and the chunk twice through fateOf and setFate.
    let fate: number;
    if (offset < col.max && gen === col.genAt(offset)) {
      fate = col.consume(offset);
    } else {
      fate = col.fateOf(offset, gen);
      col.setFate(offset, gen, consumedFate(fate));
    }
    const count = fate & FATE_COUNT_MASK;
    counters.consumeOk++;
    if (count === 0) {
      counters.consumed++;
      if ((fate & FATE_DLQ) !== 0) counters.dlq--;
      this.unlose(subject, fate);
    } else {
      counters.duplicates++;
    }
    return count > 0;
  }

  /**
   * Sent back: its fate now follows its retry copies (until one of them is consumed). A message counted
   * lost or skipped while a consumer still held it is neither once its copy is in the retry chain.
   */
  markRetrying(subject: number, originKey: number): void {
    // Set even on a message already consumed (a duplicate delivery that failed): a copy's success must
    // then count as a duplicate. Accounting reads RETRYING only on messages not yet settled.
    const col = this.columns[subject]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const gen = keyGen(originKey);
    col.setFate(offset, gen, this.unlose(subject, col.fateOf(offset, gen)) | FATE_RETRYING);
  }

  /**
   * A failed message was dropped — by a BROADCASTING instance (§7.3), or by the broker discarding its
   * send-back (retryQueueNums 0): it counts as lost, and as dropped. A message consumed, dead-lettered
   * or already lost keeps its verdict.
   */
  markDropped(subject: number, originKey: number): void {
    const col = this.columns[subject]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const gen = keyGen(originKey);
    const fate = col.fateOf(offset, gen);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ | FATE_LOST)) return;
    col.setFate(offset, gen, this.unlose(subject, fate) | FATE_LOST | FATE_DROPPED);
    const counters = this.subjects[subject]!.counters;
    counters.lost++;
    counters.dropped++;
  }

  /** A sent-back message went to %DLQ%<group>: dead-lettered, no longer lost or skipped. */
  markDlq(subject: number, originKey: number): void {
    const col = this.columns[subject]![keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    const gen = keyGen(originKey);
    const fate = col.fateOf(offset, gen);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ)) return;
    col.setFate(offset, gen, this.unlose(subject, fate) | FATE_DLQ);
    this.subjects[subject]!.counters.dlq++;
  }

  /**
   * Marks as lost the messages of [from, to) on a scenario queue that `subject` has not settled (not
   * consumed, sent back, dead-lettered, lost, skipped or filtered out): nobody will read them again.
   */
  markLost(subject: number, mq: number, from: number, to: number): void {
    this.markUnresolved(subject, mq, from, to, FATE_LOST);
  }

  /**
   * The subject started `mq` at `to` with no stored offset (§10.6: the max offset, a timestamp's offset):
   * the messages below it it has not settled will never be delivered to it.
   */
  markSkippedAtStart(subject: number, mq: number, to: number): void {
    this.markUnresolved(subject, mq, 0, to, FATE_SKIPPED);
  }

  /** Adds `bit` (LOST or SKIPPED) to the unresolved messages of [from, to): O(unresolved part of the range). */
  private markUnresolved(subject: number, mq: number, from: number, to: number, bit: number): void {
    const col = this.columns[subject]![mq];
    if (col === undefined) return;
    let marked = 0;
    for (let o = col.nextUnresolved(from, to); o >= 0; o = col.nextUnresolved(o + 1, to)) {
      col.set(o, col.get(o) | bit);
      marked++;
    }
    const counters = this.subjects[subject]!.counters;
    if (bit === FATE_LOST) counters.lost += marked;
    else counters.skippedAtStart += marked;
  }

  /** Retention or a truncation deleted [from, to) of a queue: lost for every subject that had not settled them. */
  deleted(mq: number, from: number, to: number): void {
    for (const s of this.subscribers[mq]!) this.markLost(s.subject, mq, from, to);
  }

  /**
   * A crash lost [from, to) of a scenario queue, and `from` will be reused by new messages: for every
   * subject, those it had not settled are lost; then the column takes new messages from `from` again.
   */
  truncated(mq: number, from: number, to: number, gen: number): void {
    for (const s of this.subscribers[mq]!) {
      this.markLost(s.subject, mq, from, to);
      const col = this.columns[s.subject]![mq]!;
      col.truncate(from, gen);
      // A consumer may have read up to `to` (a pull answered just before the crash): the messages that
      // refill [from, to) arrive lost, since a FOUND at its offset skips them silently (broker spec
      // §3.1); consuming one later (a rewind, 4.9.3's reset to 0, a consumer that was behind) undoes it.
      col.skipBelow = Math.max(col.skipBelow, to);
    }
  }

  /** Messages the subject awaits on all its queues: O(compact chunks' counters + the chunks not yet resolved). */
  awaiting(subject: number): AwaitingCount {
    const out: AwaitingCount = { awaiting: 0, retrying: 0 };
    for (const col of this.columns[subject]!) col?.countAwaiting(out);
    return out;
  }

  /** The fate of (subject, mq, offset); −1 if the subject has no column on `mq` or the offset is not stored. */
  fateAt(subject: number, mq: number, offset: number): number {
    const col = this.columns[subject]![mq];
    if (col === undefined || offset < 0 || offset >= col.max) return -1;
    return col.get(offset);
  }
}

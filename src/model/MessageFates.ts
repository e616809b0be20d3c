// What became of every original message, per consumer group: consumed (how often), sent back into the
// retry chain, dead-lettered, or lost. The bits live in the queue store's fate columns (QueueStore) and,
// for messages still in the retry chain after their chunk was freed, in a side table.
import { FATE_COUNT_MASK, FATE_DLQ, FATE_LOST, FATE_RETRYING, keyOffset, keyQueue, type QueueStore } from "../broker/QueueStore.ts";
import type { Metrics } from "../metrics/Metrics.ts";
import type { Ownership } from "../metrics/Ownership.ts";

const SETTLED = FATE_COUNT_MASK | FATE_LOST | FATE_DLQ | FATE_RETRYING;

export class MessageFates {
  /** Fates of retry-chain messages whose original chunk was freed, by group × 2^40 + key. */
  readonly retryFates = new Map<number, number>();

  constructor(
    private readonly queues: readonly QueueStore[],
    /** fateSlot[group][modelTopic]: the group's fate column on that topic, −1 if not subscribed. */
    private readonly fateSlot: readonly number[][],
    /** Model topic of a topic index (−1 for retry and DLQ topics). */
    private readonly modelTopicOf: (topic: number) => number,
    /** Tag filter of a group on a topic index (null = every message). */
    private readonly tagSetOf: (group: number, topic: number) => Set<number> | null,
    private readonly metrics: Metrics,
    private readonly ownership: Ownership,
    private readonly nowUs: () => number,
  ) {}

  slotOf(group: number, modelTopic: number): number {
    return this.fateSlot[group]![modelTopic]!;
  }

  /** Fate bits of an original message for a group. */
  fate(group: number, originKey: number): number {
    const store = this.queues[keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    if (offset < store.physicalMin) return this.retryFates.get(group * 2 ** 40 + originKey) ?? FATE_RETRYING;
    return store.fate(this.slotOf(group, this.modelTopicOf(store.topicIndex)), offset);
  }

  private write(group: number, originKey: number, value: number): void {
    const store = this.queues[keyQueue(originKey)]!;
    const offset = keyOffset(originKey);
    if (offset < store.physicalMin) this.retryFates.set(group * 2 ** 40 + originKey, value);
    else store.setFate(this.slotOf(group, this.modelTopicOf(store.topicIndex)), offset, value);
  }

  /** A listener call returned CONSUME_SUCCESS for the message at (mq, offset). */
  recordConsumed(group: number, mq: number, offset: number, consumerAddr: number): void {
    const store = this.queues[mq]!;
    const key = store.originKey(offset);
    const counters = this.metrics.fates[group]!;
    const fate = this.fate(group, key);
    const count = fate & FATE_COUNT_MASK;
    counters.consumeOk++;
    if (count === 0) {
      counters.consumed++;
      if (fate & FATE_LOST) counters.lost--;
      if (fate & FATE_DLQ) counters.dlq--;
    } else {
      counters.duplicates++;
      this.ownership.duplicate(group, mq, consumerAddr);
    }
    const next = (fate & ~(FATE_COUNT_MASK | FATE_LOST | FATE_DLQ)) | Math.min(FATE_COUNT_MASK, count + 1);
    this.write(group, key, next);
    this.metrics.endToEndInterval.record(Math.max(0, this.nowUs() - store.originBornUs(offset)));
  }

  /** Sent back: its fate now follows its retry copies. */
  markRetrying(group: number, originKey: number): void {
    const fate = this.fate(group, originKey);
    if (fate & FATE_COUNT_MASK) return;
    this.write(group, originKey, fate | FATE_RETRYING);
  }

  /** The broker discarded a sent-back message (retryQueueNums 0): it counts as lost. */
  markDropped(group: number, originKey: number): void {
    const fate = this.fate(group, originKey);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ | FATE_LOST)) return;
    this.write(group, originKey, fate | FATE_LOST);
    this.metrics.fates[group]!.lost++;
  }

  markDlq(group: number, originKey: number): void {
    const fate = this.fate(group, originKey);
    if (fate & (FATE_COUNT_MASK | FATE_DLQ)) return;
    this.write(group, originKey, fate | FATE_DLQ);
    this.metrics.fates[group]!.dlq++;
  }

  /**
   * Marks as lost the messages of [from, to) on an ordinary queue that `group` has not settled (not
   * consumed, sent back, dead-lettered, lost, or filtered out by its tags): nobody will read them again.
   */
  markLost(group: number, mq: number, from: number, to: number): void {
    const store = this.queues[mq]!;
    const modelTopic = this.modelTopicOf(store.topicIndex);
    const slot = modelTopic >= 0 ? this.slotOf(group, modelTopic) : -1;
    if (slot < 0) return;
    const tags = this.tagSetOf(group, store.topicIndex);
    for (let o = Math.max(from, store.physicalMin); o < to; o++) {
      const fate = store.fate(slot, o);
      if ((fate & SETTLED) !== 0) continue;
      if (tags !== null && !tags.has(store.tag(o))) continue;
      store.setFate(slot, o, fate | FATE_LOST);
      this.metrics.fates[group]!.lost++;
    }
  }
}

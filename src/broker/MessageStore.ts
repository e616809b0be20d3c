// A broker's DefaultMessageStore, as far as the model needs it: the commit-log tail (which decides what
// is still in page cache), one consume queue per hosted queue, retention, the timestamp search and the
// "start at 0" rule (spec §10.6, §13.2, §13.7).
//
// Producers write lazily (a backlogged run schedules no event per produced message): before the store is
// read or written by anything else, `source.advanceTo(now)` appends every message born by now, so what a
// reader sees never depends on when that happened to run last.
import type { Routes } from "../protocol/routes.ts";
import { BROKER_CONSTANTS } from "../scenario/defaults.ts";
import type { Trace } from "../sim/Trace.ts";
import type { BrokerObserver } from "./BrokerObserver.ts";
import { QueueStore } from "./QueueStore.ts";
import type { BrokerTrace } from "./trace.ts";

/** Where the store's lazily produced messages come from (the producers, driven by the model). */
export interface MessageSource {
  /** Appends every message born at or before `nowUs`, on every broker. */
  advanceTo(nowUs: number): void;
  /** Asks to be woken (onArrival) at the next message born for `topic`, wherever it goes. */
  wakeAtNextArrival(topic: number): void;
}

export class MessageStore {
  /** Commit-log tail position, bytes: every stored message advances it. */
  commitLogTail = 0;
  /** Consume queues by global queue index; only this broker's are present. */
  private readonly queues: (QueueStore | null)[];

  constructor(
    private readonly routes: Routes,
    readonly broker: number,
    private readonly hotBytes: number,
    private readonly observer: BrokerObserver,
    private readonly trace: Trace,
    private readonly T: BrokerTrace,
  ) {
    this.queues = new Array<QueueStore | null>(routes.queues.length).fill(null);
    for (const mq of routes.queuesOf(broker)) {
      const q = routes.queues[mq]!;
      this.queues[mq] = new QueueStore(mq, q.topic, q.brokerName, q.queueId);
    }
  }

  queue(mq: number): QueueStore {
    return this.queues[mq]!;
  }

  /** Stored size of a message in the commit log (only used to place it for the page-cache test). */
  storedSize(bodyBytes: number, topicName: string): number {
    return bodyBytes + topicName.length + BROKER_CONSTANTS.STORE_OVERHEAD_BYTES;
  }

  isHot(clPos: number): boolean {
    return this.commitLogTail - clPos <= this.hotBytes;
  }

  /** Appends a message to a queue and the commit log; originKey −1 makes it an original. */
  append(mq: number, bornUs: number, bodyBytes: number, tag: number, originKey: number, originBornUs: number, reconsumeTimes: number): number {
    const q = this.queues[mq]!;
    this.commitLogTail += this.storedSize(bodyBytes, q.topic);
    return q.append(bornUs, this.commitLogTail, bodyBytes, tag, originKey, originBornUs, reconsumeTimes);
  }

  /** Deletes messages older than the topic's retention, in order (retry and DLQ queues keep theirs). */
  applyRetention(mq: number, nowUs: number): void {
    const retentionUs = this.routes.topics[this.routes.topicOf(mq)]!.retentionUs;
    if (retentionUs === Infinity) return;
    const q = this.queues[mq]!;
    const cutoffUs = nowUs - retentionUs;
    let min = Math.max(q.minOffset, q.physicalMin); // freed chunks held only settled messages
    const max = q.maxOffset;
    if (min >= max || q.bornUs(min) >= cutoffUs) {
      if (min > q.minOffset && min <= max) q.minOffset = min;
      return;
    }
    while (min < max && q.bornUs(min) < cutoffUs) min++;
    this.deleteUpTo(mq, min, nowUs);
  }

  /** Moves minOffset up to `offset`; the observer learns which messages are gone. */
  deleteUpTo(mq: number, offset: number, nowUs: number): void {
    const q = this.queues[mq]!;
    if (offset <= q.minOffset) return;
    this.observer.messagesDeleted(mq, q.minOffset, offset);
    q.minOffset = offset;
    this.trace.emit(this.T.retention, nowUs, mq, offset);
  }

  /** searchOffset(timestamp): the first offset born at or after it (minOffset if older than all). */
  searchOffset(mq: number, timestampUs: number): number {
    const q = this.queues[mq]!;
    let lo = Math.max(q.minOffset, q.physicalMin);
    let hi = q.maxOffset;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (q.bornUs(mid) < timestampUs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The offset QUERY_CONSUMER_OFFSET answers when the group has none stored: 0 if the queue was never
   * truncated and its first message is still in page cache (consume from the start), else −1.
   */
  startAtZero(mq: number): boolean {
    const q = this.queues[mq]!;
    return q.minOffset <= 0 && q.maxOffset > 0 && q.physicalMin === 0 && this.isHot(q.clPos(0));
  }

  /**
   * Gives back the memory of messages below `offset` — a simulator economy, not RocketMQ behaviour (its
   * commit log keeps everything up to retention). The caller must know nobody can read below it.
   */
  reclaimBelow(mq: number, offset: number): void {
    const q = this.queues[mq]!;
    q.freeBelow(offset);
    this.observer.storageReclaimed(mq, q.physicalMin);
  }
}
